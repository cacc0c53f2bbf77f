"""Reading images from disk safely: size limits before decoding, full decode checks, one-line errors.

Order: the file's byte size (empty, too big), then the header's width × height against a pixel limit before any
pixel is decoded (a tiny file can declare 100 000 × 100 000 pixels), then a full decode that refuses truncated
data (decoders otherwise pad a cut-off JPEG with grey and only warn). EXIF orientation is applied, as
cv2.imread does, so outputs line up with what a photo viewer shows.

Formats are decided by the file's content, never its name: JPEG (and phones' MPO), PNG, WebP, BMP, TIFF and GIF
(its first frame); anything else is NOT_AN_IMAGE. `read_photo` decodes a large photo reduced (long side at most
`max_side`, JPEG straight from the DCT at 1/2, 1/4, 1/8) so one photo cannot take a store PC's memory, and says
the full size so outputs can still be written at it.
"""

from __future__ import annotations

import io
import math
import os
import stat
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError

MAX_FILE_BYTES = 100 * 1024 * 1024
MAX_PIXELS = 50_000_000  # ~ 8660 × 5770: bigger than any phone photo, far below a decompression bomb
PHOTO_MAX_SIDE = 4096  # what try-on works at: hands and nails are found as well, at a quarter of the memory
READABLE_FORMATS = ("JPEG", "PNG", "WEBP", "BMP", "TIFF", "GIF")
Image.init()  # registers every plugin, so `formats=` can name WebP and TIFF (open loads them lazily); JPEG opens MPO
READABLE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff", ".gif"}


class ImageReadError(ValueError):
    """An image that cannot be used. `code` is stable (for the UI); str() is one line naming the file."""

    def __init__(self, path: Path | str, code: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.path = Path(path)
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class Photo:
    """image: (h, w, 3) uint8 BGR, at most `max_side` on its long side; full_size: (W, H) of the photo itself
    (after EXIF orientation) — equal to the image's size when it was not reduced."""

    image: NDArray[np.uint8]
    full_size: tuple[int, int]

    @property
    def reduced(self) -> bool:
        return self.full_size != (self.image.shape[1], self.image.shape[0])


def read_image(path: str | Path, *, keep_alpha: bool = False, max_pixels: int = MAX_PIXELS,
               max_bytes: int = MAX_FILE_BYTES) -> NDArray[np.uint8]:
    """Decode `path` to (H, W, 3) uint8 BGR, or (H, W, 4) BGRA when `keep_alpha` and the image has alpha.

    Raises ImageReadError (codes: NOT_FOUND, NOT_A_FILE, EMPTY, TOO_LARGE, UNREADABLE, TOO_MANY_PIXELS,
    NOT_AN_IMAGE, TRUNCATED, CORRUPT).
    """
    return _decode(Path(path), keep_alpha, max_pixels, max_bytes, None).image


def read_photo(path: str | Path, *, max_side: int = PHOTO_MAX_SIDE, max_pixels: int = MAX_PIXELS,
               max_bytes: int = MAX_FILE_BYTES) -> Photo:
    """Decode `path` to BGR, reduced by a whole factor when its long side is over `max_side`; raises
    ImageReadError as read_image does."""
    return _decode(Path(path), False, max_pixels, max_bytes, max_side)


def read_full_size(path: str | Path, photo: Photo, *, max_bytes: int = MAX_FILE_BYTES) -> NDArray[np.uint8]:
    """The photo `read_photo` reduced, decoded again at its own size ((H, W, 3) BGR) to write outputs at it.
    OpenCV decodes straight into one BGR array (Pillow's path takes three full-size copies); the size must be
    the one read_photo saw, so a file changed in between is refused."""
    path = Path(path)
    data = np.frombuffer(_read_bytes(path, max_bytes), np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)  # applies EXIF orientation, as read_photo does
    del data
    if image is None or (image.shape[1], image.shape[0]) != photo.full_size:
        raise ImageReadError(path, "CORRUPT", "the image changed while it was being read")
    return np.asarray(image, np.uint8)


def _decode(path: Path, keep_alpha: bool, max_pixels: int, max_bytes: int, max_side: int | None) -> Photo:
    data = _read_bytes(path, max_bytes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=READABLE_FORMATS) as image:
                width, height = image.size
                if width <= 0 or height <= 0:
                    raise ImageReadError(path, "CORRUPT", f"image declares {width}x{height} pixels")
                if width * height > max_pixels:
                    raise ImageReadError(
                        path, "TOO_MANY_PIXELS", f"image has too many pixels: {width}x{height} (limit {max_pixels:,})"
                    )
                if ImageFile.LOAD_TRUNCATED_IMAGES:  # a global Pillow switch; never read damaged files
                    raise ImageReadError(path, "CORRUPT", "Pillow is set to accept truncated images")
                factor = math.ceil(max(width, height) / max_side) if max_side else 1
                if factor > 1 and image.format in ("JPEG", "MPO"):
                    image.draft("RGB", (math.ceil(width / factor), math.ceil(height / factor)))
                image.load()
                loaded: Image.Image = image
                if max_side and max(loaded.size) > max_side:  # PNG & co. (or what draft could not reach)
                    loaded = loaded.reduce(math.ceil(max(loaded.size) / max_side))
                oriented = ImageOps.exif_transpose(loaded)
                turned = oriented.size != loaded.size
                full_size = (height, width) if turned else (width, height)
                del loaded
                return Photo(_to_array(oriented, keep_alpha), full_size)
    except ImageReadError:
        raise
    except UnidentifiedImageError:
        raise ImageReadError(path, "NOT_AN_IMAGE", "not a readable image format (JPEG, PNG, WebP, BMP, TIFF, GIF)"
                             ) from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageReadError(path, "TOO_MANY_PIXELS", f"image has too many pixels ({exc})") from None
    except OSError as exc:
        code = "TRUNCATED" if "truncated" in str(exc).lower() else "CORRUPT"
        raise ImageReadError(path, code, f"{'truncated' if code == 'TRUNCATED' else 'corrupt'} image ({exc})") from None
    except (SyntaxError, ValueError, EOFError, MemoryError) as exc:  # Pillow's plugins raise all of these
        raise ImageReadError(path, "CORRUPT", f"corrupt image ({type(exc).__name__}: {exc})") from None


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    """The file's bytes; never opens a FIFO or device for reading (it could block), checks the size first."""
    try:
        info = path.stat()
    except FileNotFoundError:
        detail = "broken link (its target does not exist)" if path.is_symlink() else "no such file"
        raise ImageReadError(path, "NOT_FOUND", detail) from None
    except OSError as exc:
        raise ImageReadError(path, "UNREADABLE", f"cannot read file ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        detail = "a folder, not a file" if stat.S_ISDIR(info.st_mode) else "not a regular file (FIFO, device, socket)"
        raise ImageReadError(path, "NOT_A_FILE", detail)
    if info.st_size == 0:
        raise ImageReadError(path, "EMPTY", "empty file (0 bytes)")
    if info.st_size > max_bytes:
        raise ImageReadError(path, "TOO_LARGE", f"file is {info.st_size:,} bytes (limit {max_bytes:,})")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # swapped for a FIFO since stat: no hang
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise ImageReadError(path, "NOT_A_FILE", "not a regular file")
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise ImageReadError(path, "UNREADABLE", f"cannot read file ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise ImageReadError(path, "TOO_LARGE", f"file is over {max_bytes:,} bytes")
    return data


def _to_array(image: Image.Image, keep_alpha: bool) -> NDArray[np.uint8]:
    has_alpha = image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)
    if keep_alpha and has_alpha:
        bgra = cv2.cvtColor(np.asarray(image.convert("RGBA")), cv2.COLOR_RGBA2BGRA)
        return np.asarray(bgra, np.uint8)  # cvtColor keeps uint8; asarray only states it (no copy)
    rgb = np.array(image if image.mode == "RGB" else image.convert("RGB"))  # one copy, then swapped in place
    return np.asarray(cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR, dst=rgb), np.uint8)


WRITABLE_SUFFIXES = {".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff"}


def write_png(path: str | Path, image: NDArray[np.uint8]) -> None:
    """Write (H, W), (H, W, 3) BGR or (H, W, 4) BGRA uint8 as PNG, creating parent folders; raises OSError."""
    _write_encoded(Path(path), image, ".png")


def write_image(path: str | Path, image: NDArray[np.uint8]) -> None:
    """Write `image` in the format `path`'s suffix names (PNG for an unknown or missing suffix)."""
    path = Path(path)
    suffix = path.suffix.lower()
    _write_encoded(path, image, suffix if suffix in WRITABLE_SUFFIXES else ".png")


def _write_encoded(path: Path, image: NDArray[np.uint8], suffix: str) -> None:
    params = [cv2.IMWRITE_JPEG_QUALITY, 95] if suffix in (".jpg", ".jpeg") else []
    ok, encoded = cv2.imencode(suffix, image, params)
    if not ok:
        raise OSError(f"{path}: {suffix[1:].upper()} encoding failed")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encoded.tobytes())
