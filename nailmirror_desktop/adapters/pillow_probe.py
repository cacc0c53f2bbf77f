"""Checks an image before the asset store accepts it, and makes thumbnails.

Order of checks, cheapest and safest first:
1. byte size (empty, over `max_bytes`);
2. format from the magic bytes — only PNG, JPEG and WebP (never trust a file name or a Content-Type);
3. width and height read from the header by hand, and the pixel limit checked against them BEFORE anything is
   decoded, so a decompression bomb (a tiny file declaring 100k × 100k pixels) costs nothing;
4. the container's structure: PNG chunks walked with their CRCs up to IEND, JPEG must end with EOI after its scan,
   the WebP RIFF size must fit in the data — a truncated file is refused even where a decoder would "succeed"
   by filling the missing part with grey;
5. a full decode (Pillow, with truncated images not tolerated) whose size must match the header.
"""

from __future__ import annotations

import io
import struct
import warnings
import zlib

from PIL import Image, ImageFile

from nailmirror_desktop.core.catalog.assets import ImageInfo
from nailmirror_desktop.core.catalog.errors import ImageRejected

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
DEFAULT_MAX_PIXELS = 32_000_000  # ~ 8000 × 4000; AI results are ≤ 2048², nail textures far smaller

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PIL_FORMATS = {"PNG": "PNG", "JPEG": "JPEG", "WEBP": "WEBP"}
# JPEG start-of-frame markers (C4 = DHT, C8 = JPG extension, CC = DAC are not frames).
_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


class PillowImageProbe:
    """`ImageProbe` implementation (see core.styles.assets). Thread-safe: it keeps no state."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES, max_pixels: int = DEFAULT_MAX_PIXELS) -> None:
        self.max_bytes = max_bytes
        self.max_pixels = max_pixels

    def probe(self, data: bytes) -> ImageInfo:
        if not data:
            raise ImageRejected("IMAGE_EMPTY")
        if len(data) > self.max_bytes:
            raise ImageRejected("IMAGE_TOO_LARGE", f"{len(data)} bytes > {self.max_bytes}")
        image_format = sniff_format(data)
        width, height = read_header_size(data, image_format)
        if width <= 0 or height <= 0:
            raise ImageRejected("IMAGE_CORRUPT", f"header size {width}x{height}")
        if width * height > self.max_pixels:
            raise ImageRejected("IMAGE_TOO_MANY_PIXELS", f"{width}x{height} > {self.max_pixels} pixels")
        check_complete(data, image_format)
        _decode_fully(data, image_format, (width, height))
        return ImageInfo(width=width, height=height, format=image_format)

    def make_thumbnail(self, data: bytes, max_side: int) -> bytes:
        self.probe(data)
        with Image.open(io.BytesIO(data)) as opened:
            image = _normalised_mode(opened)
            image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
            return _png_bytes(image)

    def to_png(self, data: bytes) -> bytes:
        self.probe(data)
        with Image.open(io.BytesIO(data)) as image:
            return _png_bytes(_normalised_mode(image))


def sniff_format(data: bytes) -> str:
    if data.startswith(_PNG_SIGNATURE):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    # never quote the bytes: a link or a mistaken path may point at a private file
    raise ImageRejected("IMAGE_FORMAT_NOT_ALLOWED", "not a PNG, JPEG or WebP file")


def read_header_size(data: bytes, image_format: str) -> tuple[int, int]:
    """(width, height) in pixels from the header alone. Raises ImageRejected(IMAGE_TRUNCATED/IMAGE_CORRUPT)."""
    try:
        if image_format == "PNG":
            return _png_size(data)
        if image_format == "JPEG":
            return _jpeg_size(data)
        return _webp_size(data)
    except (struct.error, IndexError):
        raise ImageRejected("IMAGE_TRUNCATED", "header cut short") from None


def check_complete(data: bytes, image_format: str) -> None:
    if image_format == "PNG":
        _check_png_chunks(data)
    elif image_format == "JPEG":
        _check_jpeg_end(data)
    else:
        _check_riff_size(data)


def _png_size(data: bytes) -> tuple[int, int]:
    length, kind = struct.unpack(">I4s", data[8:16])
    if kind != b"IHDR" or length != 13:
        raise ImageRejected("IMAGE_CORRUPT", "PNG does not start with IHDR")
    return struct.unpack(">II", data[16:24])


def _check_png_chunks(data: bytes) -> None:
    offset = len(_PNG_SIGNATURE)
    while True:
        if offset + 12 > len(data):
            raise ImageRejected("IMAGE_TRUNCATED", f"PNG ends inside a chunk header at {offset}")
        length, kind = struct.unpack(">I4s", data[offset : offset + 8])
        end = offset + 12 + length
        if end > len(data):
            raise ImageRejected("IMAGE_TRUNCATED", f"PNG chunk {kind!r} needs {end} bytes, file has {len(data)}")
        (crc,) = struct.unpack(">I", data[end - 4 : end])
        if zlib.crc32(data[offset + 4 : end - 4]) != crc:
            raise ImageRejected("IMAGE_CORRUPT", f"PNG chunk {kind!r} CRC mismatch")
        if kind == b"IEND":
            return
        offset = end


def _jpeg_size(data: bytes) -> tuple[int, int]:
    offset = 2
    while offset < len(data):
        if data[offset] != 0xFF:
            raise ImageRejected("IMAGE_CORRUPT", f"JPEG marker expected at {offset}")
        marker = data[offset + 1]
        if marker == 0xFF:  # fill byte
            offset += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # stand-alone markers carry no length
            offset += 2
            continue
        (segment_length,) = struct.unpack(">H", data[offset + 2 : offset + 4])
        if marker in _JPEG_SOF:
            height, width = struct.unpack(">HH", data[offset + 5 : offset + 9])
            return width, height
        if marker in (0xDA, 0xD9):
            raise ImageRejected("IMAGE_CORRUPT", "JPEG has no frame header before its scan")
        offset += 2 + segment_length
    raise ImageRejected("IMAGE_TRUNCATED", "JPEG ends before its frame header")


def _check_jpeg_end(data: bytes) -> None:
    # Decoders pad a cut-off scan with grey and only warn; a complete file ends with EOI (FF D9). Some cameras
    # append a trailer after EOI, so look for EOI after the first scan rather than only at the last two bytes.
    scan = data.find(b"\xff\xda")
    if scan < 0 or data.rfind(b"\xff\xd9") < scan:
        raise ImageRejected("IMAGE_TRUNCATED", "JPEG has no end-of-image marker after its scan")


def _webp_size(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        if len(data) < 30:
            raise struct.error
        return width, height
    if chunk == b"VP8L":
        if data[20] != 0x2F:
            raise ImageRejected("IMAGE_CORRUPT", "VP8L signature missing")
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        if data[23:26] != b"\x9d\x01\x2a":
            raise ImageRejected("IMAGE_CORRUPT", "VP8 start code missing")
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    raise ImageRejected("IMAGE_CORRUPT", f"unknown WebP chunk {chunk!r}")


def _check_riff_size(data: bytes) -> None:
    (riff_size,) = struct.unpack("<I", data[4:8])
    if riff_size + 8 > len(data):
        raise ImageRejected("IMAGE_TRUNCATED", f"WebP declares {riff_size + 8} bytes, file has {len(data)}")


def _decode_fully(data: bytes, image_format: str, header_size: tuple[int, int]) -> None:
    try:
        with warnings.catch_warnings():
            # Our own limit was checked from the header already; Pillow's fixed one (89 Mpx) is not ours to apply.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=[_PIL_FORMATS[image_format]]) as image:
                if image.size != header_size:
                    raise ImageRejected("IMAGE_CORRUPT", f"decoder size {image.size} != header {header_size}")
                if ImageFile.LOAD_TRUNCATED_IMAGES:
                    raise ImageRejected("IMAGE_CORRUPT", "Pillow is set to accept truncated images")
                image.load()
    except ImageRejected:
        raise
    except Exception as exc:  # Pillow raises OSError, SyntaxError, ValueError … for undecodable data
        raise ImageRejected("IMAGE_CORRUPT", f"{type(exc).__name__}: {exc}") from None


def _normalised_mode(image: Image.Image) -> Image.Image:
    if image.mode in ("RGB", "RGBA", "L", "LA"):
        return image.copy()
    has_alpha = image.mode in ("P", "PA") and "transparency" in image.info or image.mode.endswith("A")
    return image.convert("RGBA" if has_alpha else "RGB")


def _png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")  # no metadata copied: same pixels → same bytes → same sha256
    return buffer.getvalue()
