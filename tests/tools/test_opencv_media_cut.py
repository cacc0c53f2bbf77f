"""tools/opencv_media_cut.py: cv2 with the cut FFmpeg and libavif decodes and writes every video the kiosk uses
exactly as with the wheel's, refuses what was cut with OpenCV's own error (no crash), and the store build ships it
in place of the wheel's libraries and leaves out what only those needed (tools/bundle_filter.py).

The libraries are built from Debian's source archives (~1.5 min on 2 cores; kept under .cache/media_cut/, so a
second run takes a second). cv2 is then copied with the cut libraries in place of the wheel's and run in a fresh
interpreter; its /proc/self/maps must show the cut files and none of the libraries they no longer need."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import bundle_filter  # noqa: E402
import opencv_media_cut  # noqa: E402

DEMO = ROOT / "resources" / "demo" / "hand_demo.mp4"
pytestmark = pytest.mark.build  # builds FFmpeg and libavif from source: ./dev builds
LEFT_OUT = ("libvpx", "libaom", "libdav1d", "libssl", "libcrypto", "libdrm", "libswresample")

# Run in a fresh interpreter with `site` first on sys.path: a digest of every decoded frame of the demo, a
# written-and-read-back MP4 (mp4v, what `tryon --video --out` writes) and AVI (MJPG), an AVIF read and write, and
# the OpenCV libraries the process mapped.
SCRIPT = r"""
import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
import cv2, numpy as np
out = {"cv2": cv2.__file__}
capture = cv2.VideoCapture(sys.argv[2])
digest, frames = hashlib.sha256(), 0
while True:
    ok, frame = capture.read()
    if not ok:
        break
    digest.update(frame.tobytes()); frames += 1
out["demo"] = [frames, digest.hexdigest()]
rng = np.random.default_rng(3)
pictures = [cv2.GaussianBlur(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8), (9, 9), 3) for _ in range(12)]
for fourcc, suffix in (("mp4v", "mp4"), ("MJPG", "avi")):
    path = f"{sys.argv[3]}/written.{suffix}"
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*fourcc), 30, (320, 240))
    opened = writer.isOpened()
    for picture in pictures:
        writer.write(picture)
    writer.release()
    capture = cv2.VideoCapture(path)
    read = []
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        read.append(float(np.abs(frame.astype(np.int16) - pictures[len(read)]).mean()))
    out[suffix] = {"opened": opened, "frames": len(read), "worst_mean_error": max(read, default=999.0)}
out["avif_write"] = bool(cv2.imwrite(f"{sys.argv[3]}/x.avif", pictures[0]))
out["avif_read"] = cv2.imread(sys.argv[4]) is not None if sys.argv[4] else None
out["mapped"] = sorted({line.split()[-1].rsplit("/", 1)[-1] for line in open("/proc/self/maps")
                        if "opencv_python_headless.libs" in line})
print(json.dumps(out))
"""


def _run(site: Path, work: Path, avif: Path | None = None) -> dict:
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(site), str(DEMO), str(work), str(avif or "")],
                            capture_output=True, text=True, timeout=300, cwd=work)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def cut(tmp_path_factory) -> dict[str, Path]:
    return opencv_media_cut.build(opencv_media_cut.opencv_libs_dir(), tmp_path_factory.mktemp("media_cut"))


@pytest.fixture(scope="module")
def wheel_site() -> Path:
    return opencv_media_cut.opencv_libs_dir().parent


@pytest.fixture(scope="module")
def cut_site(cut, wheel_site, tmp_path_factory) -> Path:
    """A site folder with cv2 and its libraries as the store bundle has them: the cut ones in place, the wheel's
    that nothing needs any more left out (bundle_filter decides which)."""
    site = tmp_path_factory.mktemp("site")
    shutil.copytree(wheel_site / "cv2", site / "cv2", symlinks=True)
    libs = wheel_site / "opencv_python_headless.libs"
    cv2_so = next((wheel_site / "cv2").glob("cv2*.so"))
    binaries = [("cv2/" + cv2_so.name, str(cv2_so), "EXTENSION")]
    binaries += [(f"opencv_python_headless.libs/{p.name}", str(p), "BINARY") for p in sorted(libs.iterdir())]
    kept = bundle_filter.replace_opencv_libraries(binaries, cut)
    (site / "opencv_python_headless.libs").mkdir()
    for destination, source, _ in kept:
        if destination.startswith("opencv_python_headless.libs/"):
            shutil.copy2(source, site / destination)
    return site


def test_the_wheel_carries_the_versions_the_sources_build():
    # a new opencv-python release ships another FFmpeg: this fails until the sources (and their sha256) follow it
    wheel = opencv_media_cut.wheel_libraries(opencv_media_cut.opencv_libs_dir())
    assert opencv_media_cut.version_mismatches(wheel) == []


def test_a_wheel_of_other_versions_is_refused_before_anything_is_built(tmp_path):
    for name in ("libavcodec-0123abcd.so.62.30.100", "libavformat-0123abcd.so.62.12.102",
                 "libavutil-0123abcd.so.60.26.102", "libswscale-0123abcd.so.9.5.102"):
        (tmp_path / name).write_bytes(b"")
    problems = opencv_media_cut.version_mismatches(opencv_media_cut.wheel_libraries(tmp_path))
    assert problems == ["libavcodec: the wheel has 62.30.100, the sources build 62.28.102", "libavif: not in the wheel"]
    with pytest.raises(opencv_media_cut.MediaCutError, match="libavcodec: the wheel has 62.30.100"):
        opencv_media_cut.build(tmp_path, tmp_path / "out", cache=None)
    assert not (tmp_path / "out").exists()


def test_a_source_archive_that_does_not_match_its_sha256_is_refused(tmp_path):
    archive = tmp_path / "data.bin"
    archive.write_bytes(b"not the archive")
    wrong = opencv_media_cut.Source("x", "1", archive.as_uri(), "0" * 64, "x")
    with pytest.raises(opencv_media_cut.MediaCutError, match="expected sha256"):
        opencv_media_cut.fetch(wrong, tmp_path / "sources")
    assert list((tmp_path / "sources").iterdir()) == []


def test_the_cut_libraries_keep_the_wheel_s_names_and_find_each_other(cut):
    for name, path in cut.items():
        assert path.name == name and bundle_filter.soname(path) == name
        for needed in bundle_filter.needed_libraries(path):
            assert needed.startswith(("libc.", "libm.", "libz.", "libpthread.", "ld-linux")) or needed in cut, needed


def test_cv2_with_the_cut_decodes_and_writes_as_with_the_wheel_s_libraries(cut, cut_site, wheel_site, tmp_path):
    (tmp_path / "wheel").mkdir()
    (tmp_path / "cut").mkdir()
    wheel = _run(wheel_site, tmp_path / "wheel")
    avif = tmp_path / "wheel" / "x.avif"
    assert wheel["avif_write"] and avif.exists()  # the wheel's libaom writes one for the cut to read
    with_cut = _run(cut_site, tmp_path / "cut", avif)

    assert with_cut["cv2"].startswith(str(cut_site))
    assert set(cut) <= set(with_cut["mapped"])
    assert not [name for name in with_cut["mapped"] if name.startswith(LEFT_OUT)]
    assert with_cut["demo"][0] == 120 and with_cut["demo"] == wheel["demo"]  # the same FFmpeg: the same pixels
    for suffix in ("mp4", "avi"):
        assert with_cut[suffix]["opened"] and with_cut[suffix]["frames"] == 12
        assert with_cut[suffix]["worst_mean_error"] < 4.0
    assert with_cut["avif_write"] is False and with_cut["avif_read"] is False  # refused, not a crash


def test_the_bundle_leaves_out_what_only_the_wheel_s_video_libraries_needed(cut, cut_site):
    shipped = {p.name for p in (cut_site / "opencv_python_headless.libs").iterdir()}
    assert set(cut) <= shipped
    assert not [name for name in shipped if name.startswith(LEFT_OUT)]
    assert sum(p.stat().st_size for p in cut.values()) < 8 * 2**20  # the wheel's came to 44 MB
