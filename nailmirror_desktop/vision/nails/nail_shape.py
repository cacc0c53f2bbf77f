"""The shape a painted nail takes inside its texture rectangle.

The rectangle's top edge is the free edge (tip) and its bottom edge the cuticle (see NailQuad). The outline is
a rounded free edge (a superellipse cap), nearly straight sides that taper a little towards the cuticle, and a
shallower rounded cuticle. Alpha is a signed distance to that outline passed through a linear ramp, so the
0.5 level is exactly the outline whatever the feather: coverage (alpha ≥ 0.5) does not depend on feathering.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

DEFAULT_FEATHER_PX = 1.2
# Proportions of the outline, as fractions of the rectangle (why these: real nails photographed from above
# have a free edge about as round as a half-ellipse of the nail's width and a flatter cuticle arc).
_FREE_EDGE_DEPTH = 0.30  # of the height, capped at 0.5 of the width
_CUTICLE_DEPTH = 0.14  # of the height, capped at 0.25 of the width
_CUTICLE_TAPER = 0.90  # half-width at the cuticle arc relative to the widest part
_SUPERELLIPSE_N = 2.4  # >2 is squarer than an ellipse: a filed, "squoval" free edge
_SUPERSAMPLE = 4
_OUTLINE_POINTS = 24  # per cap
_CACHED_MAX_PIXELS = 100 * 100


def nail_alpha(width: int, height: int, feather_px: float = DEFAULT_FEATHER_PX) -> np.ndarray:
    """A nail-shaped alpha filling a `width`×`height` texture rectangle.

    Returns (height, width) float32 in [0, 1]: 1 inside the nail, 0 outside, a linear ramp `feather_px` wide
    (in these pixels) centred on the outline. The returned array is shared (cached); do not modify it.
    """
    width, height = int(width), int(height)
    if width < 1 or height < 1:
        raise ValueError(f"nail_alpha needs a positive size, got {width}x{height}")
    feather_px = round(float(feather_px), 3)
    if width * height > _CACHED_MAX_PIXELS:  # a nail in a big photo: rare sizes, not worth the memory
        return _make_nail_alpha(width, height, feather_px)
    return _nail_alpha_cached(width, height, feather_px)


@lru_cache(maxsize=1024)  # live video nails are a few dozen pixels: ≤ 1024 × ~40 KB
def _nail_alpha_cached(width: int, height: int, feather_px: float) -> np.ndarray:
    return _make_nail_alpha(width, height, feather_px)


def _make_nail_alpha(width: int, height: int, feather_px: float) -> np.ndarray:
    inside = _rasterise_outline(width, height)
    signed = signed_distance(inside)
    if feather_px <= 0:
        alpha = (signed >= 0).astype(np.float32)
    else:
        alpha = np.clip(0.5 + signed / feather_px, 0.0, 1.0).astype(np.float32)
    alpha.setflags(write=False)
    return alpha


def nail_outline(width: float, height: float) -> np.ndarray:
    """The outline as a closed polygon, (N, 2) float32 in rectangle coordinates (edges at 0 and width/height)."""
    half_w = width / 2.0
    free_depth = min(_FREE_EDGE_DEPTH * height, 0.5 * width)
    cuticle_depth = min(_CUTICLE_DEPTH * height, 0.25 * width)
    theta = np.linspace(0.0, np.pi, _OUTLINE_POINTS)
    exponent = 2.0 / _SUPERELLIPSE_N
    cos_part = np.sign(np.cos(theta)) * np.abs(np.cos(theta)) ** exponent
    sin_part = np.abs(np.sin(theta)) ** exponent
    # free edge: right to left along the top cap
    top = np.stack([half_w + half_w * cos_part, free_depth - free_depth * sin_part], axis=1)
    # cuticle: left to right along the bottom cap, slightly narrower
    bottom_half_w = half_w * _CUTICLE_TAPER
    bottom_start = height - cuticle_depth
    bottom = np.stack(
        [half_w - bottom_half_w * cos_part, bottom_start + cuticle_depth * sin_part], axis=1
    )
    return np.concatenate([top, bottom]).astype(np.float32)


def _rasterise_outline(width: int, height: int) -> np.ndarray:
    """Boolean (height, width): pixel centre inside the outline (decided on a supersampled grid)."""
    scale = _SUPERSAMPLE
    big = np.zeros((height * scale, width * scale), np.uint8)
    # polygon vertices in supersampled pixel-centre coordinates, drawn with 4 fractional bits
    outline = nail_outline(width, height) * scale - 0.5
    cv2.fillPoly(big, [np.round(outline * 16).astype(np.int32)], 255, lineType=cv2.LINE_8, shift=4)
    coverage = cv2.resize(big, (width, height), interpolation=cv2.INTER_AREA)
    return coverage >= 128


def signed_distance(inside: np.ndarray) -> np.ndarray:
    """Approximate signed distance (pixels) to the boundary of `inside`: positive in, negative out."""
    inside_u8 = inside.astype(np.uint8)
    padded_in = cv2.copyMakeBorder(inside_u8, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    dist_in = cv2.distanceTransform(padded_in, cv2.DIST_L2, 3)[1:-1, 1:-1]
    padded_out = cv2.copyMakeBorder(1 - inside_u8, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=1)
    dist_out = cv2.distanceTransform(padded_out, cv2.DIST_L2, 3)[1:-1, 1:-1]
    # distances are to the nearest pixel of the other set; the boundary lies half a pixel in between
    return np.where(inside, dist_in - 0.5, 0.5 - dist_out).astype(np.float32)
