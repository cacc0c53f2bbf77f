"""Build cv2's video and AVIF libraries cut to what the kiosk uses, for the store bundle (#13.10).

    .venv/bin/python tools/opencv_media_cut.py OUT_DIR     build them for this .venv's cv2; print what replaces what

opencv-python-headless ships FFmpeg with every codec, libvpx, libdav1d and OpenSSL 1.1 (for https:// streams),
and libavif with libaom: ~43 MB. The kiosk decodes two kinds of files through them: its own demo video (MPEG-4
part 2 in MP4) and, from the command line, a video a person hands `nailmirror tryon --video` (a phone's H.264 or
HEVC in MP4/MOV/MKV, or an AVI), and it writes MP4 (mp4v) and AVI (MJPG). The camera does not go through FFmpeg
(OpenCV's V4L2 backend decodes MJPEG/YUYV itself), and no image the kiosk reads is AVIF (image_io's formats).

So this builds, from Debian's copies of the same releases (checked by sha256), FFmpeg with those codecs,
containers and the file protocol only (no network, no hardware, no VP8/VP9/AV1) and libavif with no AV1 codec
(an AVIF read or write then fails with "No codec available", as any unknown format does), and names each library
as the wheel's file, so cv2 finds it through its RPATH and each finds the others through $ORIGIN. The wheel's
versions are read from its file names; a wheel of other versions is left as it is (build.spec says so): an FFmpeg
of another minor version could differ in the struct layouts cv2 was compiled against.

Needs gcc, make, nasm, cmake, ninja, patchelf and strip (./dev's Debian list) and the Debian mirror for the two
source archives, kept under .cache/sources/. A build takes ~2 min on 2 cores and is kept under .cache/media_cut/,
keyed by the sources and the configuration, so the next store build reuses it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache"
MIRROR = "http://deb.debian.org/debian/pool/main"


@dataclass(frozen=True)
class Source:
    name: str
    version: str
    url: str
    sha256: str
    folder: str  # the archive's top folder


FFMPEG = Source("ffmpeg", "8.1.2", f"{MIRROR}/f/ffmpeg/ffmpeg_8.1.2.orig.tar.xz",
                "464beb5e7bf0c311e68b45ae2f04e9cc2af88851abb4082231742a74d97b524c", "ffmpeg-8.1.2")
LIBAVIF = Source("libavif", "1.4.2", f"{MIRROR}/liba/libavif/libavif_1.4.2.orig.tar.gz",
                 "2b645287340ba5a631d268b551dc2d72bd73ac33335962dd36dcdb6d8366921d", "libavif-1.4.2")

# The libraries cv2 links (and the version its wheel ships), with the source release that has that version.
# libavcodec 62.28.102 etc. are FFmpeg 8.1.2's (libavcodec/version.h); libavif's soname 16.4.2 is libavif 1.4.2.
FFMPEG_LIBRARIES = {"avcodec": "62.28.102", "avformat": "62.12.102", "avutil": "60.26.102", "swscale": "9.5.102"}
AVIF_LIBRARY = {"avif": "16.4.2"}
LIBRARIES = {**FFMPEG_LIBRARIES, **AVIF_LIBRARY}  # every library this cut replaces

# What the kiosk decodes and writes (module docstring). h263 comes with mpeg4; parsers split raw streams.
FFMPEG_CONFIGURE = (
    "--enable-shared", "--disable-static", "--enable-pic", "--disable-autodetect", "--disable-programs",
    "--disable-doc", "--disable-avdevice", "--disable-avfilter", "--disable-swresample", "--disable-network",
    "--disable-everything", "--enable-zlib",
    "--enable-decoder=h264,hevc,mpeg4,mjpeg,rawvideo",
    "--enable-encoder=mpeg4,mjpeg,rawvideo",
    "--enable-parser=h264,hevc,mpeg4video,mjpeg",
    "--enable-demuxer=mov,matroska,avi,mjpeg,h264,hevc,m4v",
    "--enable-muxer=mp4,mov,avi,matroska",
    "--enable-protocol=file",
    "--enable-bsf=h264_mp4toannexb,hevc_mp4toannexb,mpeg4_unpack_bframes,extract_extradata",
)
AVIF_CMAKE = (
    "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=ON", "-DAVIF_BUILD_APPS=OFF", "-DAVIF_BUILD_TESTS=OFF",
    *(f"-DAVIF_CODEC_{codec}=OFF" for codec in ("AOM", "DAV1D", "LIBGAV1", "RAV1E", "SVT")),
    "-DAVIF_LIBYUV=OFF", "-DAVIF_LIBSHARPYUV=OFF", "-DAVIF_ZLIBPNG=OFF", "-DAVIF_JPEG=OFF", "-DAVIF_LIBXML2=OFF",
)

_WHEEL_NAME = re.compile(r"^lib(?P<kind>[a-z0-9]+)-[0-9a-f]{8}\.so\.(?P<version>[0-9.]+)$")


class MediaCutError(RuntimeError):
    pass


def wheel_libraries(libs_dir: Path) -> dict[str, tuple[str, str]]:
    """kind ('avcodec', 'avif' …) → (file name, version) of the wheel's libraries in `libs_dir`."""
    found: dict[str, tuple[str, str]] = {}
    for path in sorted(libs_dir.iterdir()):
        match = _WHEEL_NAME.match(path.name)
        if match:
            found[match["kind"]] = (path.name, match["version"])
    return found


def version_mismatches(wheel: dict[str, tuple[str, str]]) -> list[str]:
    """One line per library this cut would replace whose wheel version is not the one the sources build."""
    problems = []
    for kind, version in LIBRARIES.items():
        if kind not in wheel:
            problems.append(f"lib{kind}: not in the wheel")
        elif wheel[kind][1] != version:
            problems.append(f"lib{kind}: the wheel has {wheel[kind][1]}, the sources build {version}")
    return problems


def fetch(source: Source, folder: Path = CACHE / "sources") -> Path:
    """The source archive, downloaded once and checked by sha256 (a file that does not match is refused)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / source.url.rsplit("/", 1)[1]
    if not target.exists() or _sha256(target) != source.sha256:
        partial = target.with_suffix(target.suffix + ".part")
        with urllib.request.urlopen(source.url, timeout=60) as response, partial.open("wb") as out:
            shutil.copyfileobj(response, out)
        if _sha256(partial) != source.sha256:
            partial.unlink()
            raise MediaCutError(f"{source.url} does not have the expected sha256 {source.sha256}")
        partial.replace(target)
    return target


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _unpack(archive: Path, source: Source, work: Path) -> Path:
    shutil.rmtree(work / source.folder, ignore_errors=True)
    with tarfile.open(archive) as tar:
        tar.extractall(work, filter="data")
    return work / source.folder


def _run(command: list[str], cwd: Path, log: Path) -> None:
    with log.open("a") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        if subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
            raise MediaCutError(f"{command[0]} failed in {cwd}: see {log}")


def build_ffmpeg(work: Path, jobs: int) -> dict[str, Path]:
    """kind → the built library (its real file, not the symlinks)."""
    tree = _unpack(fetch(FFMPEG), FFMPEG, work)
    prefix = work / "ffmpeg-install"
    log = work / "ffmpeg.log"
    _run(["./configure", f"--prefix={prefix}", *FFMPEG_CONFIGURE], tree, log)
    _run(["make", f"-j{jobs}"], tree, log)
    _run(["make", "install"], tree, log)
    return {kind: prefix / "lib" / f"lib{kind}.so.{version}" for kind, version in FFMPEG_LIBRARIES.items()}


def build_avif(work: Path, jobs: int) -> dict[str, Path]:
    tree = _unpack(fetch(LIBAVIF), LIBAVIF, work)
    log = work / "libavif.log"
    _run(["cmake", "-S", ".", "-B", "build", "-G", "Ninja", *AVIF_CMAKE], tree, log)
    _run(["ninja", "-C", "build", f"-j{jobs}"], tree, log)
    return {kind: tree / "build" / f"lib{kind}.so.{version}" for kind, version in AVIF_LIBRARY.items()}


def _rename(built: Path, target: Path, names: dict[str, str]) -> None:
    """Copy `built` to `target`, its soname and its needs renamed to the wheel's file names, found via $ORIGIN."""
    shutil.copy2(built, target)
    # strip first: strip rewriting a file patchelf has grown leaves load segments that are not page-aligned
    subprocess.run(["strip", "--strip-unneeded", str(target)], check=True)
    subprocess.run(["patchelf", "--set-soname", target.name, str(target)], check=True)
    for plain, wheel_name in names.items():
        subprocess.run(["patchelf", "--replace-needed", plain, wheel_name, str(target)], check=True)
    subprocess.run(["patchelf", "--set-rpath", "$ORIGIN", str(target)], check=True)


def _plain_soname(kind: str, version: str) -> str:
    return f"lib{kind}.so.{version.split('.')[0]}"


def _cache_key(wheel: dict[str, tuple[str, str]]) -> str:
    recipe = {"ffmpeg": [FFMPEG.sha256, FFMPEG_CONFIGURE], "libavif": [LIBAVIF.sha256, AVIF_CMAKE],
              "wheel": sorted(wheel.items()), "tool": _sha256(Path(__file__))}
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]


def build(libs_dir: Path, out_dir: Path, jobs: int | None = None,
          cache: Path | None = CACHE / "media_cut") -> dict[str, Path]:
    """wheel file name → its cut replacement in `out_dir`, for the wheel's libraries in `libs_dir`.
    Raises MediaCutError when the wheel's versions are not the sources' (nothing is built then)."""
    wheel = wheel_libraries(libs_dir)
    problems = version_mismatches(wheel)
    if problems:
        raise MediaCutError("; ".join(problems))
    key = _cache_key(wheel)
    kept = cache / key if cache is not None else None
    names = {_plain_soname(kind, wheel[kind][1]): wheel[kind][0] for kind in LIBRARIES}
    result = {wheel[kind][0]: out_dir / wheel[kind][0] for kind in LIBRARIES}
    out_dir.mkdir(parents=True, exist_ok=True)
    if kept is not None and all((kept / name).exists() for name in result):
        for name, target in result.items():
            shutil.copy2(kept / name, target)
        return result
    work = out_dir / "work"
    work.mkdir(exist_ok=True)
    jobs = jobs or os.cpu_count() or 1
    built = {**build_ffmpeg(work, jobs), **build_avif(work, jobs)}
    for kind, path in built.items():
        _rename(path, result[wheel[kind][0]], names)
    shutil.rmtree(work)
    if kept is not None:
        kept.mkdir(parents=True, exist_ok=True)
        for name, target in result.items():
            shutil.copy2(target, kept / name)
    return result


def opencv_libs_dir() -> Path:
    import cv2

    return Path(cv2.__file__).parent.parent / "opencv_python_headless.libs"


if __name__ == "__main__":
    for wheel_name, replacement in build(opencv_libs_dir(), Path(sys.argv[1])).items():
        print(f"{wheel_name} {replacement} {replacement.stat().st_size}")
