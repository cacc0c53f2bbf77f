"""Nail masks as PNG, read and written with the stdlib (HQ has no image library and decodes no photo).

A mask is what a labeller's page posts: a PNG of exactly the capture's size whose every pixel is black or white
(grey, RGB with R = G = B, with or without an opaque alpha). `read_mask` checks that and returns its pixels;
`write_mask` writes them back as the one form HQ keeps and exports: 8-bit greyscale, 0 or 255, one channel.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # PNG colour type → samples per pixel (8-bit only)
NAIL, BACKGROUND = 255, 0


class MaskError(ValueError):
    """A posted mask HQ cannot keep; the message is one line."""


def _chunks(data: bytes) -> Iterator[tuple[bytes, bytes]]:
    at = len(SIGNATURE)
    while at + 8 <= len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind = data[at + 4:at + 8]
        body = data[at + 8:at + 8 + length]
        if len(body) != length:
            raise MaskError("the mask PNG is cut short")
        yield kind, body
        at += 12 + length


def read_mask(data: bytes, width: int, height: int) -> bytes:
    """The mask's pixels, row by row (`width * height` bytes, each 0 or 255), or MaskError saying what is wrong."""
    if not data.startswith(SIGNATURE):
        raise MaskError("the mask is not a PNG")
    header: tuple[int, ...] | None = None
    compressed = bytearray()
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body[:13])
        elif kind == b"IDAT":
            compressed += body
        elif kind == b"IEND":
            break
    if header is None:
        raise MaskError("the mask PNG has no header")
    w, h, depth, colour, _, _, interlace = header
    if (w, h) != (width, height):
        raise MaskError(f"the mask is {w}×{h}; the capture is {width}×{height}")
    if depth != 8 or colour not in CHANNELS or interlace:
        raise MaskError("the mask must be an 8-bit, non-interlaced grey or RGB(A) PNG")
    channels = CHANNELS[colour]
    stride = width * channels
    expected = height * (stride + 1)
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(bytes(compressed), expected + 1)  # never more than a mask of this size
    except zlib.error:
        raise MaskError("the mask PNG's pixels are damaged") from None
    if len(raw) != expected:
        raise MaskError("the mask PNG's pixels do not match its size")
    pixels = _unfilter(raw, height, stride, channels)
    return _single_channel(pixels, channels)


def _unfilter(raw: bytes, height: int, stride: int, bpp: int) -> bytes:
    out = bytearray(height * stride)
    prior = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prior, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prior[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prior[i], prior[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif kind != 0:
            raise MaskError("the mask PNG's pixels are damaged")
        out[y * stride:(y + 1) * stride] = line
        prior = line
    return bytes(out)


def _single_channel(pixels: bytes, channels: int) -> bytes:
    # an alpha channel must be opaque everywhere: a mask has no "half there"
    if channels in (2, 4) and pixels[channels - 1::channels].count(255) != len(pixels) // channels:
        raise MaskError("the mask has transparent pixels; send black for no nail, white for nail")
    grey = pixels[0::channels]
    if channels >= 3 and (grey != pixels[1::channels] or grey != pixels[2::channels]):
        raise MaskError("the mask has coloured pixels; send black for no nail, white for nail")
    if grey.count(NAIL) + grey.count(BACKGROUND) != len(grey):
        raise MaskError("the mask has grey pixels; send black for no nail, white for nail")
    return grey


def write_mask(pixels: bytes, width: int, height: int) -> bytes:
    """`pixels` (row by row, 0 or 255) as an 8-bit greyscale PNG."""
    if len(pixels) != width * height:
        raise ValueError("pixels do not match the size")
    raw = b"".join(b"\x00" + pixels[y * width:(y + 1) * width] for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    return (SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
