"""`nailmirror tryon`: file names, coverage files, exit codes and bad inputs, on real photos and real files."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from nailmirror_desktop.cli import main
from nailmirror_desktop.core.paths import resources_dir
from nailmirror_desktop.vision.nails.nail_tracks import HOLD_FRAMES
from nailmirror_desktop.vision.sources.image_io import read_image

ROOT = Path(__file__).resolve().parents[2]
STYLE = resources_dir() / "demo" / "styles" / "rose_gloss"
DEMO_VIDEO = resources_dir() / "demo" / "hand_demo.mp4"
# Photos the detector finds quickly (first views of its cascade), so the tests stay fast.
QUICK_PHOTOS = ("2C29D473-CCB4-458C-926B-99D0042161E6.jpg", "3493127D-7B19-4E50-94AE-2401BD2A91C8.jpg")


@pytest.fixture()
def photos(nails_eval_dir, tmp_path) -> list[Path]:
    folder = tmp_path / "photos"
    folder.mkdir()
    copies = []
    for name in QUICK_PHOTOS:
        source = nails_eval_dir / "images" / name
        assert source.is_file(), source
        copies.append(Path(shutil.copy(source, folder / name)))
    return copies


def _bomb_png(path: Path, width: int = 100_000, height: int = 100_000) -> Path:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
                     + chunk(b"IEND", b""))
    return path


def _no_hand_image(path: Path) -> Path:
    """A counter-top with a cup on it: no hand anywhere."""
    image = np.zeros((360, 480, 3), np.uint8)
    image[:] = np.linspace(150, 210, 480, dtype=np.uint8)[None, :, None]
    cv2.circle(image, (240, 180), 70, (40, 60, 160), -1)
    cv2.rectangle(image, (300, 160), (330, 200), (40, 60, 160), 8)
    cv2.imwrite(str(path), image)
    return path


def _run(capsys, *args: str) -> tuple[int, str]:
    status = main(["tryon", *args])
    return status, capsys.readouterr().err


def _assert_coverage(path: Path, shape: tuple[int, int]) -> np.ndarray:
    coverage = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert coverage is not None and coverage.dtype == np.uint8 and coverage.ndim == 2
    assert coverage.shape == shape
    assert set(np.unique(coverage)) <= {0, 255}
    return coverage


@pytest.mark.slow
def test_one_photo_gives_a_painted_image_and_its_coverage(capsys, photos, tmp_path):
    out, cov = tmp_path / "out" / "painted.png", tmp_path / "cov.png"
    status, err = _run(capsys, "--image", str(photos[0]), "--style", str(STYLE), "--out", str(out),
                       "--coverage-out", str(cov))
    assert status == 0, err
    original = read_image(photos[0])
    painted = cv2.imread(str(out))
    assert painted.shape == original.shape
    coverage = _assert_coverage(cov, original.shape[:2])
    nails = coverage == 255
    assert nails.sum() > 100
    # painted where the coverage says, and (apart from feathered edges next to it) nowhere else
    assert np.abs(painted.astype(int) - original)[nails].mean() > 20
    far = cv2.dilate(nails.astype(np.uint8), np.ones((9, 9), np.uint8)) == 0
    np.testing.assert_array_equal(painted[far], original[far])


@pytest.mark.slow
def test_directory_batch_names_outputs_by_stem(capsys, photos, tmp_path):
    out, cov = tmp_path / "out", tmp_path / "cov"
    status, err = _run(capsys, "--image", str(photos[0].parent), "--style", str(STYLE), "--out", str(out),
                       "--coverage-out", str(cov))
    assert status == 0, err
    stems = sorted(p.stem for p in photos)
    assert sorted(p.stem for p in out.iterdir()) == stems
    assert sorted(p.name for p in cov.iterdir()) == [f"{s}.png" for s in stems]
    for photo in photos:
        _assert_coverage(cov / f"{photo.stem}.png", read_image(photo).shape[:2])


@pytest.mark.slow
def test_several_files_make_out_a_directory(capsys, photos, tmp_path):
    out = tmp_path / "several"
    status, err = _run(capsys, "--image", *map(str, photos), "--style", str(STYLE), "--out", str(out))
    assert status == 0, err
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{p.stem}.png" for p in photos)


def test_no_hand_writes_the_image_unchanged_with_empty_coverage(capsys, tmp_path):
    image = _no_hand_image(tmp_path / "cup.png")
    out, cov = tmp_path / "cup_out.png", tmp_path / "cup_cov.png"
    status, err = _run(capsys, "--image", str(image), "--style", str(STYLE), "--out", str(out),
                       "--coverage-out", str(cov))
    assert status == 0
    assert "warning" in err and "no hand" in err and "cup.png" in err
    np.testing.assert_array_equal(cv2.imread(str(out)), cv2.imread(str(image)))
    assert not _assert_coverage(cov, (360, 480)).any()


def test_an_image_the_detector_cannot_take_still_gets_its_outputs(capsys, tmp_path):
    strip = tmp_path / "strip.png"
    cv2.imwrite(str(strip), np.full((1, 3000, 3), 128, np.uint8))  # one row: no view of it can be scaled
    out, cov = tmp_path / "strip_out.png", tmp_path / "strip_cov.png"
    status, err = _run(capsys, "--image", str(strip), "--style", str(STYLE), "--out", str(out),
                       "--coverage-out", str(cov))
    assert status == 1 and "cannot process" in err and len(err.strip().splitlines()) == 2
    np.testing.assert_array_equal(cv2.imread(str(out)), cv2.imread(str(strip)))
    assert not _assert_coverage(cov, (1, 3000)).any()  # a coverage for every photo: empty, nothing painted


@pytest.mark.slow
def test_bad_files_get_one_line_each_and_the_batch_goes_on(capsys, photos, tmp_path):
    folder = photos[0].parent
    good_jpeg = photos[0].read_bytes()
    (folder / "a_truncated.jpg").write_bytes(good_jpeg[: len(good_jpeg) // 2])
    (folder / "b_empty.jpg").write_bytes(b"")
    (folder / "c_notes.png").write_bytes(b"these are not pixels")
    _bomb_png(folder / "d_huge.png")
    _bomb_png(folder / "e_large.png", 9000, 9000)  # below Pillow's own bomb limit: our limit must catch it
    out = tmp_path / "out"
    status, err = _run(capsys, "--image", str(folder), str(tmp_path / "missing.jpg"), "--style", str(STYLE),
                       "--out", str(out))
    assert status == 1
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    for name in ("a_truncated.jpg", "b_empty.jpg", "c_notes.png", "d_huge.png", "e_large.png", "missing.jpg"):
        mentioning = [line for line in errors if name in line]
        assert len(mentioning) == 1, (name, err)
    assert any("truncated" in line for line in errors if "a_truncated" in line)
    assert any("too many pixels" in line for line in errors if "d_huge" in line)
    assert any("9000x9000" in line for line in errors if "e_large" in line)
    assert errors[-1] == "error: 6 input(s) failed"
    # the good photos, listed after the bad ones, were still done
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{p.stem}.png" for p in photos)


def test_exit_status_of_the_real_command(photos, tmp_path):
    """The console entry point as a process: bad input → status 1, one line on stderr naming it."""
    (tmp_path / "empty.jpg").write_bytes(b"")
    env = dict(os.environ, MPLCONFIGDIR=str(tmp_path / "mpl"))
    result = subprocess.run(
        [sys.executable, "-m", "nailmirror_desktop", "tryon", "--image", str(tmp_path / "empty.jpg"),
         "--style", str(STYLE), "--out", str(tmp_path / "o.png")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 1
    assert [line for line in result.stderr.splitlines() if line.startswith("error:")] == [
        f"error: {tmp_path / 'empty.jpg'}: empty file (0 bytes)", "error: 1 input(s) failed"]
    assert not (tmp_path / "o.png").exists()


def test_a_still_model_that_is_not_the_verified_build_is_one_line_not_a_traceback(capsys, photos, tmp_path,
                                                                                 monkeypatch):
    from dataclasses import replace

    from nailmirror_desktop.vision.nails import nail_segmenter

    monkeypatch.setattr(nail_segmenter, "STILL_MODEL", replace(nail_segmenter.STILL_MODEL, sha256="0" * 64))
    status, err = _run(capsys, "--image", str(photos[0]), "--style", str(STYLE), "--out", str(tmp_path / "o.png"))
    assert status == 1 and "Traceback" not in err
    assert [line for line in err.splitlines() if line.startswith("error:")] == [line for line in err.splitlines()]
    assert "nail_segmenter_still.onnx is corrupt or not the verified build" in err and "final --inner 64" in err


def test_bad_style_or_arguments_are_usage_errors(capsys, photos, tmp_path):
    status, err = _run(capsys, "--image", str(photos[0]), "--style", str(tmp_path / "nope"), "--out",
                       str(tmp_path / "o.png"))
    assert status == 2 and "nope" in err
    (tmp_path / "file_not_dir").write_text("x")
    status, err = _run(capsys, "--video", str(DEMO_VIDEO), "--style", str(STYLE), "--out",
                       str(tmp_path / "o.mp4"), "--coverage-out", str(tmp_path / "file_not_dir"))
    assert status == 2 and "coverage-out" in err and "directory" in err
    assert not (tmp_path / "o.mp4").exists()
    status, err = _run(capsys, "--image", *map(str, photos), "--style", str(STYLE), "--out",
                       str(tmp_path / "file_not_dir"))
    assert status == 2 and "directory" in err


def test_video_is_painted_frame_by_frame_with_a_progress_bar(capsys, tmp_path):
    clip = tmp_path / "clip.mp4"
    reader = cv2.VideoCapture(str(DEMO_VIDEO))
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"mp4v"), 30, (1280, 720))
    originals = []
    for _ in range(12):
        ok, frame = reader.read()
        assert ok
        writer.write(frame)
        originals.append(frame)
    reader.release()
    writer.release()
    out = tmp_path / "painted.mp4"
    status, err = _run(capsys, "--video", str(clip), "--style", str(STYLE), "--out", str(out))
    assert status == 0, err
    assert "12/12 frames" in err and "[" in err
    result = cv2.VideoCapture(str(out))
    assert int(result.get(cv2.CAP_PROP_FRAME_COUNT)) == 12
    assert (int(result.get(cv2.CAP_PROP_FRAME_WIDTH)), int(result.get(cv2.CAP_PROP_FRAME_HEIGHT))) == (1280, 720)
    ok, first = result.read()
    result.release()
    assert ok
    # the rose polish shows: many more strongly red-magenta pixels than in the drawn hands' pale nails
    def rose_pixels(image):
        b, g, r = (image[..., i].astype(int) for i in range(3))
        return int(((r - g > 80) & (b - g > 10)).sum())

    assert rose_pixels(first) > rose_pixels(originals[0]) + 500


@pytest.mark.slow
def test_video_coverage_is_one_png_per_decoded_frame_zero_without_a_hand(capsys, tmp_path):
    clip = tmp_path / "clip.mp4"
    reader = cv2.VideoCapture(str(DEMO_VIDEO))
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"mp4v"), 30, (1280, 720))
    for index in range(6 + HOLD_FRAMES + 2):
        ok, frame = reader.read()
        assert ok
        writer.write(frame if index < 6 else np.full_like(frame, 90))  # then an empty counter
    reader.release()
    writer.release()
    out, coverage_dir = tmp_path / "painted.mp4", tmp_path / "nested" / "deeper" / "coverage"
    status, err = _run(capsys, "--video", str(clip), "--style", str(STYLE), "--out", str(out),
                       "--coverage-out", str(coverage_dir))
    assert status == 0, err
    names = sorted(p.name for p in coverage_dir.iterdir())
    assert names == [f"{i:06d}.png" for i in range(6 + HOLD_FRAMES + 2)]
    coverages = [_assert_coverage(coverage_dir / name, (720, 1280)) for name in names]
    assert all(c.any() for c in coverages[:6])
    # no hand: all zero once the hold through landmark drop-outs (HOLD_FRAMES) is over
    assert not any(c.any() for c in coverages[6 + HOLD_FRAMES:])
    painted = cv2.VideoCapture(str(out))
    decoded = cv2.VideoCapture(str(clip))
    for coverage in coverages[:6]:
        ok_p, frame_p = painted.read()
        ok_o, frame_o = decoded.read()
        assert ok_p and ok_o
        # paint only where the coverage says (mp4v's blocks smear a few pixels either way)
        changed = np.abs(frame_p.astype(int) - frame_o.astype(int)).max(axis=2) > 60
        near = cv2.dilate(coverage, np.ones((9, 9), np.uint8)) > 0
        assert changed.sum() > 200 and (changed & ~near).sum() < 0.02 * changed.sum()
    painted.release()
    decoded.release()


def test_unreadable_video_fails_cleanly(capsys, tmp_path):
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\0" * 1000)
    status, err = _run(capsys, "--video", str(junk), "--style", str(STYLE), "--out", str(tmp_path / "o.mp4"))
    assert status == 1 and "junk.mp4" in err


@pytest.mark.slow
def test_single_output_format_follows_its_suffix_and_a_directory_out_takes_stems(capsys, photos, tmp_path):
    status, err = _run(capsys, "--image", str(photos[1]), "--style", str(STYLE), "--out", str(tmp_path / "o.jpg"))
    assert status == 0, err
    assert (tmp_path / "o.jpg").read_bytes()[:3] == b"\xff\xd8\xff"
    folder = tmp_path / "existing"
    folder.mkdir()
    status, err = _run(capsys, "--image", str(photos[1]), "--style", str(STYLE), "--out", str(folder))
    assert status == 0, err
    assert [p.name for p in folder.iterdir()] == [f"{photos[1].stem}.png"]


@pytest.mark.slow
def test_style_may_be_a_catalog_code(capsys, photos, tmp_path):
    import json

    assert main(["styles", "list", "--customer", "--json"]) == 0
    catalog = json.loads(capsys.readouterr().out)
    code = catalog[0]["style_code"]
    out, cov = tmp_path / "coded.png", tmp_path / "coded_cov.png"
    status, err = _run(capsys, "--image", str(photos[0]), "--style", code, "--out", str(out),
                       "--coverage-out", str(cov))
    assert status == 0, err
    coverage = _assert_coverage(cov, read_image(photos[0]).shape[:2])
    assert (coverage == 255).sum() > 100
    status, err = _run(capsys, "--image", str(photos[0]), "--style", "AB-ZZZZZZ", "--out", str(out))
    assert status == 2 and "AB-ZZZZZZ" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("how", ["same-path", "dotdot", "symlink", "hard-link", "folder-of-pngs", "coverage"])
def test_an_output_that_would_overwrite_an_input_is_refused_before_anything_is_written(capsys, tmp_path, how):
    folder = tmp_path / "in"
    folder.mkdir()
    photo = _no_hand_image(folder / "cup.png")
    other = _no_hand_image(folder / "mug.png")
    before = {p.name: p.read_bytes() for p in (photo, other)}
    args = ["--image", str(photo), "--style", str(STYLE), "--out", str(tmp_path / "fresh.png")]
    if how == "same-path":
        args[-1] = str(photo)
    elif how == "dotdot":
        args[-1] = str(folder / ".." / "in" / "cup.png")
    elif how == "symlink":
        (tmp_path / "link.png").symlink_to(photo)
        args[-1] = str(tmp_path / "link.png")
    elif how == "hard-link":
        os.link(photo, tmp_path / "hard.png")
        args[-1] = str(tmp_path / "hard.png")
    elif how == "folder-of-pngs":  # batch: OUT is the input folder, <stem>.png is each input itself
        args = ["--image", str(folder), "--style", str(STYLE), "--out", str(folder)]
    else:
        args += ["--coverage-out", str(photo)]
    status, err = _run(capsys, *args)
    assert status == 2, err
    assert [line for line in err.splitlines() if line.startswith("error:")] == [line for line in err.splitlines()]
    assert len(err.strip().splitlines()) == 1 and "would overwrite the input" in err
    assert {p.name: p.read_bytes() for p in (photo, other)} == before
    assert not (tmp_path / "fresh.png").exists()


def test_a_video_output_onto_its_input_is_refused(capsys, tmp_path):
    clip = tmp_path / "clip.mp4"
    shutil.copy(DEMO_VIDEO, clip)
    before = clip.read_bytes()
    (tmp_path / "alias.mp4").symlink_to(clip)
    for out in (clip, tmp_path / "alias.mp4"):
        status, err = _run(capsys, "--video", str(clip), "--style", str(STYLE), "--out", str(out))
        assert status == 2 and "would overwrite the input" in err
        assert clip.read_bytes() == before


@pytest.mark.slow
def test_folder_entries_that_are_not_files_are_each_reported_and_counted(capsys, photos, tmp_path):
    from PIL import Image

    folder = photos[0].parent
    (folder / "gone.jpg").symlink_to(folder / "nowhere.jpg")
    os.mkfifo(folder / "pipe.png")  # opening it for reading would block the batch forever
    (folder / "album.jpg").mkdir()
    cup = cv2.cvtColor(cv2.imread(str(_no_hand_image(tmp_path / "cup.png"))), cv2.COLOR_BGR2RGB)
    Image.fromarray(cup).save(folder / "cup_gif_named.png", format="GIF")
    Image.fromarray(cup).save(folder / "cup.gif", format="GIF")
    out = tmp_path / "out"
    status, err = _run(capsys, "--image", str(folder), "--style", str(STYLE), "--out", str(out))
    assert status == 1
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    for name, words in (("gone.jpg", "broken link"), ("pipe.png", "not a regular file"), ("album.jpg", "folder")):
        assert [line for line in errors if name in line and words in line], (name, err)
    assert errors[-1] == "error: 3 input(s) failed"
    # GIF is read by content, whatever the name: both are done (no hand: written unchanged)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{p.stem}.png" for p in photos] + ["cup.png", "cup_gif_named.png"])


@pytest.mark.slow
def test_a_large_photo_is_painted_at_its_own_size(capsys, photos, nails_eval_dir, tmp_path):
    original = cv2.imread(str(photos[0]))
    big = cv2.resize(original, (original.shape[1] * 7, original.shape[0] * 7), interpolation=cv2.INTER_CUBIC)
    assert max(big.shape[:2]) > 4096
    path = tmp_path / "big.png"
    cv2.imwrite(str(path), big, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    out, cov = tmp_path / "big_out.png", tmp_path / "big_cov.png"
    status, err = _run(capsys, "--image", str(path), "--style", str(STYLE), "--out", str(out),
                       "--coverage-out", str(cov))
    assert status == 0, err
    painted = cv2.imread(str(out))
    assert painted.shape == big.shape
    nails = _assert_coverage(cov, big.shape[:2]) == 255
    assert nails.sum() > 100 * 49
    assert np.abs(painted.astype(int) - big)[nails].mean() > 20
    far = cv2.dilate(nails.astype(np.uint8), np.ones((41, 41), np.uint8)) == 0
    np.testing.assert_array_equal(painted[far], big[far])  # untouched pixels keep full resolution
    # the nails are segmented and painted on the photo itself: they sit on the true nails (scaled alike) at
    # least as well as the reduced copy's coverage scaled up (what this command wrote before)
    from nailmirror_desktop.vision.paint.compositor import Compositor
    from nailmirror_desktop.vision.pipeline import TryOnPipeline
    from nailmirror_desktop.vision.sources.image_io import read_photo

    mask = cv2.imread(str(nails_eval_dir / "masks" / f"{photos[0].stem}.png"), cv2.IMREAD_GRAYSCALE)
    truth = cv2.resize(mask, big.shape[1::-1], interpolation=cv2.INTER_LINEAR) >= 128
    photo = read_photo(path)
    assert photo.reduced
    with TryOnPipeline(Compositor(np.full((8, 8, 3), 255, np.uint8))) as pipeline:
        small = pipeline.process_still(photo.image).coverage
    assert small is not None
    scaled_up = cv2.resize(small, big.shape[1::-1], interpolation=cv2.INTER_LINEAR) >= 128

    def iou(painted: np.ndarray) -> float:
        return float(np.count_nonzero(painted & truth) / np.count_nonzero(painted | truth))

    assert iou(nails) >= iou(scaled_up) - 0.01 and iou(nails) > 0.3


def test_an_opencv_message_is_one_line(capsys):
    from nailmirror_desktop.cli import tryon

    with pytest.raises(cv2.error) as caught:
        cv2.resize(np.zeros((0, 0), np.uint8), (4, 4))
    assert "\n" in str(caught.value)  # OpenCV ends its message with a line break
    tryon._error(f"x.png: cannot process (error: {caught.value})")
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("error: x.png: cannot process")


def test_a_single_out_without_an_image_suffix_is_refused_before_any_work(capsys, photos, tmp_path):
    """`--out dots` wrote a PNG named `dots`: refused now, one line naming the suffixes, nothing written."""
    for name in ("dots", "photo.gif", "painted."):
        status, err = _run(capsys, "--image", str(photos[0]), "--style", str(STYLE), "--out", str(tmp_path / name))
        assert status == 2 and len(err.strip().splitlines()) == 1, err
        assert "--out needs an image suffix" in err and ".png" in err and ".jpg" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nailmirror-home", "photos"]


@pytest.mark.slow
def test_tryon_prints_no_mediapipe_lines_and_its_log_file_keeps_them(photos, tmp_path, nailmirror_home):
    """MediaPipe and TFLite wrote about ten lines per run to the terminal (absl, EGL, XNNPACK, feedback
    manager): they go to data_dir()/logs/cli.log now, and the terminal keeps only what the command says."""
    import os
    import re
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "NAILMIRROR_HOME": str(nailmirror_home), "PYTHONPATH": str(root)}
    for name in ("GLOG_minloglevel", "TF_CPP_MIN_LOG_LEVEL", "OPENCV_LOG_LEVEL"):
        env.pop(name, None)
    run = subprocess.run([sys.executable, "-m", "nailmirror_desktop", "tryon", "--image", str(photos[0]),
                          "--style", str(STYLE), "--out", str(tmp_path / "out.png")],
                         env=env, cwd=root, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    noise = re.compile(r"absl|EGL|TensorFlow Lite|XNNPACK|^[IWE]\d{4} ", re.MULTILINE)
    assert noise.search(run.stderr) is None, run.stderr
    log = nailmirror_home / "logs" / "cli.log"
    assert re.search(r"native: .*(absl|XNNPACK|EGL)", log.read_text(encoding="utf-8"))
    assert log.stat().st_mode & 0o077 == 0


def _demo_photo(path: Path) -> Path:
    """A frame of the bundled demo video, both hands in it, as a photo."""
    capture = cv2.VideoCapture(str(DEMO_VIDEO))
    for _ in range(40):
        ok, frame = capture.read()
        assert ok
    capture.release()
    cv2.imwrite(str(path), frame)
    return path


@pytest.mark.slow
def test_shape_and_length_extend_the_nails_and_leave_the_coverage_natural(capsys, tmp_path):
    photo = _demo_photo(tmp_path / "hands.png")
    outputs = {}
    for name, extra in (("natural", ()), ("default", ("--shape", "round", "--length", "natural")),
                        ("stiletto", ("--shape", "stiletto", "--length", "long"))):
        out, cov = tmp_path / f"{name}.png", tmp_path / f"{name}_cov.png"
        status, err = _run(capsys, "--image", str(photo), "--style", str(STYLE), "--out", str(out),
                           "--coverage-out", str(cov), *extra)
        assert status == 0, err
        outputs[name] = (cv2.imread(str(out)), _assert_coverage(cov, (720, 1280)))
    natural, natural_cov = outputs["natural"]
    np.testing.assert_array_equal(outputs["default"][0], natural)  # natural is the default
    long, long_cov = outputs["stiletto"]
    np.testing.assert_array_equal(long_cov, natural_cov)
    near_nails = cv2.dilate(natural_cov, np.ones((15, 15), np.uint8)) > 0
    beyond = np.any(long != natural, axis=2) & ~near_nails
    assert beyond.sum() > 500  # painted past the natural nails


def test_an_unknown_shape_or_length_is_a_usage_error(capsys, tmp_path):
    for flag, word in (("--shape", "oval"), ("--length", "huge")):
        with pytest.raises(SystemExit) as stop:
            main(["tryon", "--image", str(tmp_path / "x.png"), "--style", str(STYLE), "--out",
                  str(tmp_path / "o.png"), flag, word])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert word in err and "invalid choice" in err
