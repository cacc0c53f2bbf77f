"""Image headers, read with the stdlib: format, width and height of PNG, JPEG and WebP (what the feed declares
and the kiosk checks after download). HQ never decodes pixels; anything else is refused as a blob."""

from __future__ import annotations

import struct
from dataclasses import dataclass


@dataclass(frozen=True)
class ImageInfo:
    format: str  # PNG | JPEG | WEBP
    width: int
    height: int


MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}


def probe(head: bytes) -> ImageInfo | None:
    """The image in the first bytes of a file (64 KiB are enough for these headers), or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR" and len(head) >= 24:
        width, height = struct.unpack(">II", head[16:24])
        return ImageInfo("PNG", width, height)
    if head.startswith(b"\xff\xd8"):
        return _jpeg(head)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return _webp(head)
    return None


def _jpeg(data: bytes) -> ImageInfo | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return ImageInfo("JPEG", width, height)
        i += 2 + length
    return None


def _webp(data: bytes) -> ImageInfo | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
        return ImageInfo("WEBP", width, height)
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return ImageInfo("WEBP", width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return ImageInfo("WEBP", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    return None
