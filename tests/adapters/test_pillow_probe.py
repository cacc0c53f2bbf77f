"""The image probe refuses what must not enter the asset store, and decodes what may."""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np
import pytest

from nailmirror_desktop.adapters.pillow_probe import PillowImageProbe, read_header_size, sniff_format
from nailmirror_desktop.core.catalog import ImageRejected
from tests.support.style_fixtures import image_bytes


def _rejected_code(data: bytes, probe=None) -> str:
    with pytest.raises(ImageRejected) as info:
        (probe or PillowImageProbe()).probe(data)
    return info.value.code


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def _png(width: int, height: int, idat: bytes, bit_depth=8, colour_type=2) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, bit_depth, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", idat)
            + _png_chunk(b"IEND", b""))


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_allowed_formats_are_measured(fmt):
    info = PillowImageProbe().probe(image_bytes(size=(37, 53), fmt=fmt))
    assert (info.width, info.height, info.format) == (37, 53, fmt)


def test_lossless_and_extended_webp_headers_are_read():
    import io

    from PIL import Image

    for kwargs, chunk in (({"lossless": True}, b"VP8L"), ({"lossless": False}, b"VP8X")):
        buffer = io.BytesIO()
        Image.new("RGBA", (301, 17), (1, 2, 3, 40)).save(buffer, "WEBP", **kwargs)
        data = buffer.getvalue()
        assert data[12:16] == chunk
        assert read_header_size(data, "WEBP") == (301, 17)
        assert PillowImageProbe().probe(data).width == 301


def test_a_real_photo_is_accepted_with_its_true_size(nails_eval_dir):
    photo = sorted((nails_eval_dir / "images").glob("*.jpg"))[0]
    data = photo.read_bytes()
    info = PillowImageProbe().probe(data)
    height, width = cv2.imread(str(photo), cv2.IMREAD_UNCHANGED).shape[:2]
    assert (info.width, info.height, info.format) == (width, height, "JPEG")


def test_zero_bytes_are_refused():
    assert _rejected_code(b"") == "IMAGE_EMPTY"


def test_too_many_bytes_are_refused_before_anything_else():
    data = image_bytes(size=(64, 64))
    assert _rejected_code(data, PillowImageProbe(max_bytes=len(data) - 1)) == "IMAGE_TOO_LARGE"
    assert PillowImageProbe(max_bytes=len(data)).probe(data).width == 64


@pytest.mark.parametrize("data", [
    b"GIF89a" + b"\x00" * 40,
    b"BM" + b"\x00" * 60,
    b"<svg xmlns='http://www.w3.org/2000/svg'/>",
    b"not an image at all, just text named nail.png",
    b"RIFF\x10\x00\x00\x00WAVEfmt ",
])
def test_other_formats_are_refused_by_their_magic_bytes(data):
    assert _rejected_code(data) == "IMAGE_FORMAT_NOT_ALLOWED"


def test_a_gif_made_by_pillow_is_refused():
    assert sniff_format(image_bytes(fmt="PNG")) == "PNG"
    assert _rejected_code(image_bytes(fmt="GIF")) == "IMAGE_FORMAT_NOT_ALLOWED"


def test_a_bomb_header_is_refused_before_decoding():
    # 100k × 100k declared; the IDAT is not even valid zlib, so only a header check can give this answer.
    bomb = _png(100_000, 100_000, b"\x00garbage")
    assert _rejected_code(bomb) == "IMAGE_TOO_MANY_PIXELS"


def test_a_real_decompression_bomb_is_refused():
    # A valid 1-bit 9000 × 9000 PNG (81 Mpx) compressed into a few kilobytes.
    width = height = 9_000
    row = b"\x00" + b"\x00" * (width // 8)
    idat = zlib.compress(row * height, 9)
    bomb = _png(width, height, idat, bit_depth=1, colour_type=0)
    assert len(bomb) < 64 * 1024
    assert _rejected_code(bomb) == "IMAGE_TOO_MANY_PIXELS"
    # The same file under a limit it fits is decoded for real (so the check above is the limit, not a defect).
    assert PillowImageProbe(max_pixels=width * height).probe(bomb).width == width


def test_pixel_limit_is_configurable():
    data = image_bytes(size=(100, 100))
    assert _rejected_code(data, PillowImageProbe(max_pixels=9_999)) == "IMAGE_TOO_MANY_PIXELS"
    assert PillowImageProbe(max_pixels=10_000).probe(data).height == 100


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
@pytest.mark.parametrize("keep", [0.1, 0.5, 0.9, -2])
def test_truncated_files_are_refused(fmt, keep):
    data = image_bytes(size=(120, 90), fmt=fmt)
    cut = len(data) + keep if keep < 0 else int(len(data) * keep)
    assert _rejected_code(data[:cut]) in {"IMAGE_TRUNCATED", "IMAGE_CORRUPT"}


def test_jpeg_without_its_end_marker_is_refused_as_truncated():
    data = image_bytes(size=(200, 150), fmt="JPEG")
    assert data.endswith(b"\xff\xd9")
    assert _rejected_code(data[:-2]) == "IMAGE_TRUNCATED"


def test_jpeg_with_a_trailer_after_its_end_marker_is_accepted():
    data = image_bytes(size=(200, 150), fmt="JPEG") + b"camera trailer"
    assert PillowImageProbe().probe(data).width == 200


def test_jpeg_cut_inside_its_scan_is_refused():
    data = image_bytes(size=(200, 150), fmt="JPEG")
    assert _rejected_code(data[: int(len(data) * 0.7)]) == "IMAGE_TRUNCATED"


def test_corrupt_png_crc_is_refused():
    data = bytearray(image_bytes(size=(50, 50)))
    idat = data.find(b"IDAT")
    data[idat + 10] ^= 0xFF
    assert _rejected_code(bytes(data)) == "IMAGE_CORRUPT"


def test_png_with_valid_chunks_but_undecodable_pixels_is_refused():
    bad = _png(16, 16, zlib.compress(b"\x00" * 10))  # far fewer bytes than 16 rows of 16 RGB pixels
    assert _rejected_code(bad) == "IMAGE_CORRUPT"


def test_png_whose_decoded_size_disagrees_with_the_header_cannot_happen_silently():
    bad = _png(0, 16, zlib.compress(b"\x00" * 10))
    assert _rejected_code(bad) == "IMAGE_CORRUPT"


def test_thumbnail_keeps_aspect_and_alpha_and_is_deterministic():
    probe = PillowImageProbe()
    source = image_bytes(size=(400, 200), color=(10, 200, 30, 128))
    thumb = probe.make_thumbnail(source, 64)
    assert thumb == probe.make_thumbnail(source, 64)
    info = probe.probe(thumb)
    assert (info.width, info.height, info.format) == (64, 32, "PNG")
    decoded = cv2.imdecode(np.frombuffer(thumb, "uint8"), cv2.IMREAD_UNCHANGED)
    assert decoded.shape == (32, 64, 4) and 100 < int(decoded[16, 32, 3]) < 160


def test_thumbnail_of_a_bad_image_is_refused():
    with pytest.raises(ImageRejected):
        PillowImageProbe().make_thumbnail(b"junk", 64)


def test_a_refusal_never_quotes_the_files_bytes():
    # a style folder's nail.png may be a link to a private file: the error must not show what it holds
    with pytest.raises(ImageRejected) as info:
        PillowImageProbe().probe(b"PASSWORD=hunter2\nmore private text")
    assert info.value.code == "IMAGE_FORMAT_NOT_ALLOWED"
    assert "hunter2" not in str(info.value) and "PASSWORD" not in str(info.value)
