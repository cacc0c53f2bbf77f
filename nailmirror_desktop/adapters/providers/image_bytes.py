"""Check that downloaded bytes are a real PNG/JPEG/WebP image before anything decodes them fully.

The header gives the dimensions without decoding, so a decompression bomb (a small file that inflates to
gigapixels) is refused before it costs memory; then OpenCV decodes it to prove it is not garbage or truncated.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from nailmirror_desktop.core.providers.port import ProviderError, ProviderErrorClass as C

MAX_PIXELS = 40_000_000  # 6k × 6k; provider results are 1–4 MP


@dataclass(frozen=True)
class ImageInfo:
    format: str  # "png" | "jpeg" | "webp"
    width: int
    height: int


def sniff_format(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def header_size(data: bytes, fmt: str) -> tuple[int, int] | None:
    """(width, height) read from the file header, or None if the header is malformed."""
    try:
        if fmt == "png":
            if data[12:16] != b"IHDR":
                return None
            return struct.unpack(">II", data[16:24])
        if fmt == "jpeg":
            return _jpeg_size(data)
        if fmt == "webp":
            return _webp_size(data)
    except struct.error:
        return None
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            return None
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # start of frame
            height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
            return width, height
        pos += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    return None


def is_complete(data: bytes, fmt: str) -> bool:
    """Whether the file ends where its format says it ends (PNG IEND, JPEG EOI, RIFF length)."""
    if fmt == "png":
        return data.rstrip(b"\0")[-8:-4] == b"IEND"
    if fmt == "jpeg":
        return data.rstrip(b"\0")[-2:] == b"\xff\xd9"
    if fmt == "webp":
        return len(data) >= 8 + int.from_bytes(data[4:8], "little")
    return False


def inspect_image(data: bytes, *, max_pixels: int = MAX_PIXELS) -> ImageInfo:
    """Format and size of an encoded image, after a full decode; raises ProviderError (result_*) if unusable."""
    fmt = sniff_format(data)
    if fmt is None:
        raise ProviderError("result_not_image", "bytes are not PNG, JPEG or WebP", C.INVALID_REQUEST)
    size = header_size(data, fmt)
    if size is None or min(size) <= 0:
        raise ProviderError("result_undecodable", f"{fmt} header malformed", C.INVALID_REQUEST)
    if size[0] * size[1] > max_pixels:
        raise ProviderError("result_too_many_pixels", f"{size[0]}x{size[1]} > {max_pixels} px", C.INVALID_REQUEST)
    if not is_complete(data, fmt):  # OpenCV quietly decodes a cut JPEG as grey: check the trailer ourselves
        raise ProviderError("result_truncated", f"{fmt} file is cut short", C.INVALID_REQUEST)
    decode_bgr(data)
    return ImageInfo(fmt, size[0], size[1])


def decode_bgr(data: bytes) -> np.ndarray:
    """(H, W, 3) uint8 BGR; raises ProviderError result_undecodable on garbage or truncated files."""
    import cv2  # adapters may use OpenCV; imported here so the module loads cheaply

    pixels = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if pixels is None or pixels.size == 0:
        raise ProviderError("result_undecodable", "image does not decode", C.INVALID_REQUEST)
    return pixels
