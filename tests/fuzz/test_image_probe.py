"""Property: for any bytes — random, or a real PNG/JPEG/WebP with its bytes flipped, cut, stretched or its
declared size set huge — the Pillow probe either accepts with sane dimensions (within its pixel limit, what a
decoder agrees on) or refuses with ImageRejected; never another exception, never a decode of a huge header."""

from __future__ import annotations

import struct
import zlib

from hypothesis import given
from hypothesis import strategies as st

from nailmirror_desktop.adapters.pillow_probe import PillowImageProbe
from nailmirror_desktop.core.catalog import ImageRejected
from nailmirror_desktop.core.catalog.assets import ImageInfo
from tests.support.style_fixtures import image_bytes

MAX_PIXELS = 64 * 64
PROBE = PillowImageProbe(max_bytes=64 * 1024, max_pixels=MAX_PIXELS)
SAMPLES = {fmt: image_bytes(size=(24, 16), fmt=fmt) for fmt in ("PNG", "JPEG", "WEBP")}


def _holds(data: bytes) -> ImageInfo | None:
    try:
        info = PROBE.probe(data)
    except ImageRejected as exc:
        assert exc.code.startswith("IMAGE_") and "\n" not in str(exc)
        return None
    assert info.format in SAMPLES
    assert info.width > 0 and info.height > 0 and info.width * info.height <= MAX_PIXELS
    return info


@given(st.binary(max_size=4096))
def test_any_bytes(data):
    _holds(data)


@given(st.sampled_from(sorted(SAMPLES)), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)),
                                                    max_size=8))
def test_real_images_with_bytes_flipped(fmt, flips):
    data = bytearray(SAMPLES[fmt])
    for position, value in flips:
        data[position % len(data)] = value
    _holds(bytes(data))


@given(st.sampled_from(sorted(SAMPLES)), st.integers(0, 10**6), st.binary(max_size=64), st.integers(0, 10**6))
def test_real_images_cut_or_with_bytes_inserted(fmt, cut_at, inserted, insert_at):
    data = SAMPLES[fmt]
    _holds(data[: cut_at % (len(data) + 1)])
    at = insert_at % (len(data) + 1)
    _holds(data[:at] + inserted + data[at:])


def _png_with_size(width: int, height: int) -> bytes:
    data = SAMPLES["PNG"]
    ihdr = struct.pack(">II", width, height) + data[24:29]
    return data[:16] + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)) + data[33:]


@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
def test_a_png_declaring_any_size_is_refused_before_decoding_unless_it_is_small(width, height):
    # CRC fixed up, so only the size check can refuse it; a huge one must go before Pillow allocates it
    info = _holds(_png_with_size(width, height))
    if width * height > MAX_PIXELS:
        assert info is None


@given(st.integers(0, 2**16 - 1), st.integers(0, 2**16 - 1))
def test_a_jpeg_declaring_any_size(width, height):
    data = SAMPLES["JPEG"]
    sof = max(data.find(b"\xff\xc0"), data.find(b"\xff\xc2"))
    assert sof > 0
    patched = data[: sof + 5] + struct.pack(">HH", height, width) + data[sof + 9:]
    info = _holds(patched)
    if width * height > MAX_PIXELS:
        assert info is None


@given(st.sampled_from(sorted(SAMPLES)), st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)),
                                                    max_size=3))
def test_what_is_accepted_converts_and_thumbnails(fmt, flips):
    data = bytearray(SAMPLES[fmt])
    for position, value in flips:
        data[position % len(data)] = value
    if _holds(bytes(data)) is None:
        return
    assert _holds(PROBE.to_png(bytes(data))) is not None
    assert _holds(PROBE.make_thumbnail(bytes(data), 8)) is not None


@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789=", min_size=12, max_size=200))
def test_a_refusal_never_quotes_the_bytes(text):
    # a mistaken path or a link may hand the probe a private file: its refusal must not show the contents
    data = text.encode()
    try:
        PROBE.probe(data)
    except ImageRejected as exc:
        assert text[:6] not in str(exc)
