"""Check that a provider's bytes are a real, complete PNG/JPEG/WebP image of sane size.

The checks are the asset store's own (adapters/pillow_probe.py: magic bytes, header size against a pixel limit
before any decode so a decompression bomb costs nothing, container completeness, full decode); here their
refusals become provider errors. An unusable answer is INVALID_REQUEST: asking again for the same provider
task returns the same bytes.
"""

from __future__ import annotations

import numpy as np

from nailmirror_desktop.core.catalog.assets import ImageInfo
from nailmirror_desktop.core.catalog.errors import ImageRejected
from nailmirror_desktop.core.generation.provider_port import ProviderError
from nailmirror_desktop.core.generation.provider_port import ProviderErrorClass as C

MAX_PIXELS = 40_000_000  # 6k × 6k; provider results are 1–4 MP
MAX_BYTES = 50_000_000

_CODES = {
    "IMAGE_EMPTY": "result_empty",
    "IMAGE_TOO_LARGE": "result_too_large",
    "IMAGE_FORMAT_NOT_ALLOWED": "result_not_image",
    "IMAGE_TOO_MANY_PIXELS": "result_too_many_pixels",
    "IMAGE_TRUNCATED": "result_truncated",
    "IMAGE_CORRUPT": "result_undecodable",
}


def inspect_image(data: bytes, *, max_pixels: int = MAX_PIXELS) -> ImageInfo:
    """Format ("PNG", "JPEG" or "WEBP") and size after a full check; raises ProviderError result_* if unusable."""
    from nailmirror_desktop.adapters.pillow_probe import PillowImageProbe

    try:
        return PillowImageProbe(max_bytes=MAX_BYTES, max_pixels=max_pixels).probe(data)
    except ImageRejected as exc:
        raise ProviderError(_CODES.get(exc.code, "result_undecodable"), exc.detail or exc.code,
                            C.INVALID_REQUEST) from exc


def decode_bgr(data: bytes) -> np.ndarray:
    """(H, W, 3) uint8 BGR of checked bytes; raises ProviderError result_undecodable if OpenCV cannot read it."""
    import cv2  # adapters may use OpenCV; imported here so the module loads cheaply

    pixels = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if pixels is None or pixels.size == 0:
        raise ProviderError("result_undecodable", "image does not decode", C.INVALID_REQUEST)
    return pixels
