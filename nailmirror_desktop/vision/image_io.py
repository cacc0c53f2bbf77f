"""Reading images from disk safely: size limits before decoding, full decode checks, one-line errors.

Order: the file's byte size (empty, too big), then the header's width × height against a pixel limit before any
pixel is decoded (a tiny file can declare 100 000 × 100 000 pixels), then a full decode that refuses truncated
data (decoders otherwise pad a cut-off JPEG with grey and only warn). EXIF orientation is applied, as
cv2.imread does, so outputs line up with what a photo viewer shows.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError

MAX_FILE_BYTES = 100 * 1024 * 1024
MAX_PIXELS = 50_000_000  # ~ 8660 × 5770: bigger than any phone photo, far below a decompression bomb


class ImageReadError(ValueError):
    """An image that cannot be used. `code` is stable (for the UI); str() is one line naming the file."""

    def __init__(self, path: Path | str, code: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.path = Path(path)
        self.code = code
        self.detail = detail


def read_image(path: str | Path, *, keep_alpha: bool = False, max_pixels: int = MAX_PIXELS,
               max_bytes: int = MAX_FILE_BYTES) -> NDArray[np.uint8]:
    """Decode `path` to (H, W, 3) uint8 BGR, or (H, W, 4) BGRA when `keep_alpha` and the image has alpha.

    Raises ImageReadError (codes: NOT_FOUND, NOT_A_FILE, EMPTY, TOO_LARGE, UNREADABLE, TOO_MANY_PIXELS,
    NOT_AN_IMAGE, TRUNCATED, CORRUPT).
    """
    path = Path(path)
    data = _read_bytes(path, max_bytes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
                if width <= 0 or height <= 0:
                    raise ImageReadError(path, "CORRUPT", f"image declares {width}x{height} pixels")
                if width * height > max_pixels:
                    raise ImageReadError(
                        path, "TOO_MANY_PIXELS", f"image has too many pixels: {width}x{height} (limit {max_pixels:,})"
                    )
                if ImageFile.LOAD_TRUNCATED_IMAGES:  # a global Pillow switch; never read damaged files
                    raise ImageReadError(path, "CORRUPT", "Pillow is set to accept truncated images")
                image.load()
                return _to_array(ImageOps.exif_transpose(image), keep_alpha)
    except ImageReadError:
        raise
    except UnidentifiedImageError:
        raise ImageReadError(path, "NOT_AN_IMAGE", "not a readable image format") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageReadError(path, "TOO_MANY_PIXELS", f"image has too many pixels ({exc})") from None
    except OSError as exc:
        code = "TRUNCATED" if "truncated" in str(exc).lower() else "CORRUPT"
        raise ImageReadError(path, code, f"{'truncated' if code == 'TRUNCATED' else 'corrupt'} image ({exc})") from None
    except (SyntaxError, ValueError, EOFError, MemoryError) as exc:  # Pillow's plugins raise all of these
        raise ImageReadError(path, "CORRUPT", f"corrupt image ({type(exc).__name__}: {exc})") from None


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    if not path.exists():
        raise ImageReadError(path, "NOT_FOUND", "no such file")
    if not path.is_file():
        raise ImageReadError(path, "NOT_A_FILE", "not a regular file")
    size = path.stat().st_size
    if size == 0:
        raise ImageReadError(path, "EMPTY", "empty file (0 bytes)")
    if size > max_bytes:
        raise ImageReadError(path, "TOO_LARGE", f"file is {size:,} bytes (limit {max_bytes:,})")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ImageReadError(path, "UNREADABLE", f"cannot read file ({exc.strerror or exc})") from None


def _to_array(image: Image.Image, keep_alpha: bool) -> NDArray[np.uint8]:
    has_alpha = image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)
    if keep_alpha and has_alpha:
        bgra = cv2.cvtColor(np.asarray(image.convert("RGBA")), cv2.COLOR_RGBA2BGRA)
        return np.asarray(bgra, np.uint8)  # cvtColor keeps uint8; asarray only states it (no copy)
    return np.asarray(cv2.cvtColor(np.asarray(image.convert("RGB")), cv2.COLOR_RGB2BGR), np.uint8)


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
