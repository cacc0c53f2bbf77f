"""Reading photos safely: formats by content (GIF's first frame too, whatever the name), never opening a FIFO,
saying what a non-file is, and decoding a large photo reduced while keeping its full size."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from nailmirror_desktop.vision.sources.image_io import (
    PHOTO_MAX_SIDE,
    READABLE_SUFFIXES,
    ImageReadError,
    read_full_size,
    read_image,
    read_photo,
)

ROOT = Path(__file__).resolve().parents[2]


def _code(path) -> str:
    with pytest.raises(ImageReadError) as caught:
        read_image(path)
    assert len(str(caught.value).splitlines()) == 1
    return caught.value.code


def _pillow_bytes(fmt: str, size=(40, 30), color=(200, 30, 90)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.mark.parametrize("name", ["frame.gif", "frame.png", "frame.jpg"])
def test_a_gif_is_read_by_its_content_whatever_its_name(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(_pillow_bytes("GIF"))
    image = read_image(path)
    assert image.shape == (30, 40, 3)
    assert np.abs(image[15, 20].astype(int) - (90, 30, 200)).max() < 8  # BGR


def test_the_cli_and_the_reader_agree_on_suffixes():
    from nailmirror_desktop.cli.tryon import IMAGE_SUFFIXES

    assert IMAGE_SUFFIXES == READABLE_SUFFIXES and ".gif" in IMAGE_SUFFIXES


@pytest.mark.parametrize("fmt", ["ICO", "PCX", "TGA", "PPM"])
def test_other_formats_are_refused_by_content_even_named_png(tmp_path, fmt):
    path = tmp_path / "looks.png"
    path.write_bytes(_pillow_bytes(fmt, size=(32, 32)))
    assert _code(path) == "NOT_AN_IMAGE"


def test_a_fifo_is_refused_without_being_opened_for_reading(tmp_path):
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    seen = []
    reader = threading.Thread(target=lambda: seen.append(_code(fifo)), daemon=True)
    reader.start()
    reader.join(timeout=5)
    if reader.is_alive():  # unblock the thread so the test run can end, then fail
        with open(fifo, "wb"):
            pass
        pytest.fail("reading a FIFO blocked")
    assert seen == ["NOT_A_FILE"]


def test_a_broken_link_and_a_folder_are_named_as_such(tmp_path):
    (tmp_path / "gone.jpg").symlink_to(tmp_path / "nowhere.jpg")
    with pytest.raises(ImageReadError, match="broken link"):
        read_image(tmp_path / "gone.jpg")
    (tmp_path / "album.jpg").mkdir()
    with pytest.raises(ImageReadError, match="a folder"):
        read_image(tmp_path / "album.jpg")
    assert _code(tmp_path / "album.jpg") == "NOT_A_FILE"


def _gradient(width: int, height: int) -> np.ndarray:
    x = np.linspace(0, 255, width, dtype=np.float32)[None, :]
    y = np.linspace(0, 255, height, dtype=np.float32)[:, None]
    return np.dstack([np.broadcast_to(x, (height, width)), np.broadcast_to(y, (height, width)),
                      np.full((height, width), 128, np.float32)]).astype(np.uint8)


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".png", ".jpg"])
def test_a_large_photo_is_decoded_reduced_and_keeps_its_full_size(tmp_path, suffix):
    path = tmp_path / f"large{suffix}"
    cv2.imwrite(str(path), _gradient(5000, 3000))
    photo = read_photo(path)
    assert photo.reduced and photo.full_size == (5000, 3000)
    assert max(photo.image.shape[:2]) <= PHOTO_MAX_SIDE and photo.image.shape == (1500, 2500, 3)
    full = read_full_size(path, photo)
    assert full.shape == (3000, 5000, 3)
    small_of_full = cv2.resize(full, (2500, 1500), interpolation=cv2.INTER_AREA)
    assert np.abs(small_of_full.astype(int) - photo.image).mean() < 3


def test_a_small_photo_is_not_reduced(tmp_path):
    path = tmp_path / "small.png"
    cv2.imwrite(str(path), _gradient(640, 480))
    photo = read_photo(path)
    assert not photo.reduced and photo.full_size == (640, 480)
    np.testing.assert_array_equal(photo.image, read_image(path))


def test_exif_orientation_turns_the_full_size_too(tmp_path):
    path = tmp_path / "turned.jpg"
    image = Image.fromarray(_gradient(5000, 3000)[..., ::-1].copy())
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to view
    image.save(path, exif=exif.tobytes())
    photo = read_photo(path)
    assert photo.full_size == (3000, 5000) and photo.image.shape == (2500, 1500, 3)
    assert read_full_size(path, photo).shape == (5000, 3000, 3)


# VmHWM, not ru_maxrss: Linux keeps ru_maxrss across exec, so a child of a big pytest starts "high"
_PEAK = """
import re, sys
from nailmirror_desktop.vision.sources.image_io import read_photo, read_image
def peak_kib():
    return int(re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1))
before = peak_kib()
(read_photo if sys.argv[2] == "reduced" else read_image)(sys.argv[1])
print((peak_kib() - before) // 1024)
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads VmHWM from /proc")
def test_a_7000_px_png_decodes_reduced_in_much_less_memory(tmp_path):
    path = tmp_path / "49mpx.png"
    cv2.imwrite(str(path), _gradient(7000, 7000), [cv2.IMWRITE_PNG_COMPRESSION, 1])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    grown = {}
    for how in ("reduced", "full"):
        done = subprocess.run([sys.executable, "-c", _PEAK, str(path), how], env=env, capture_output=True,
                              text=True, timeout=120, check=True)
        grown[how] = int(done.stdout.split()[-1])
    # 49 Mpx: ~147 MB as BGR. Reduced (3500 × 3500): one Pillow decode buffer, no full-size copies.
    assert grown["reduced"] < 320, grown
    assert grown["reduced"] < grown["full"] * 0.75, grown
