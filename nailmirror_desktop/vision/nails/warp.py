"""Homographies from a texture rectangle onto a nail quad, and warps into the quad's ROI only.

Coordinates: NailQuad corners are in frame pixels with the image's edges at 0 and W (MediaPipe's normalised
coordinates times the size), so pixel i covers [i, i+1). OpenCV samples at pixel centres (pixel i at i), so the
warps shift by half a pixel on both sides. Warping the full frame costs ~40 ms per nail at 1280×720; into the
quad's bounding rectangle it costs ~0.2 ms (ARCHITECTURE.md §11).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Roi:
    """A frame region: columns [x0, x1), rows [y0, y1)."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0

    @property
    def slices(self) -> tuple[slice, slice]:
        return slice(self.y0, self.y1), slice(self.x0, self.x1)


def mask_rectangle(mask: np.ndarray) -> np.ndarray | None:
    """The bounding rectangle of a (h, w) mask's set pixels as (4, 2) float64 corners in pixel-centre
    coordinates (NailQuad order), ready to be mapped to the frame; None for an empty mask."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return None
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64) - 0.5


def frame_box(corners: np.ndarray, frame_shape: tuple[int, ...], margin: int = 2) -> Roi | None:
    """The frame region around (4, 2) corners in edge coordinates, `margin` px wider on each side (the feathered
    edge needs it), clipped to the frame; None when nothing of it is inside."""
    height, width = frame_shape[:2]
    fx0 = max(0, int(np.floor(corners[:, 0].min())) - margin)
    fy0 = max(0, int(np.floor(corners[:, 1].min())) - margin)
    fx1 = min(width, int(np.ceil(corners[:, 0].max())) + margin)
    fy1 = min(height, int(np.ceil(corners[:, 1].max())) + margin)
    if fx1 <= fx0 or fy1 <= fy0:
        return None
    return Roi(fx0, fy0, fx1, fy1)


def texture_corners(width: float, height: float) -> np.ndarray:
    """(4, 2) float32 rectangle corners in NailQuad order: top-left, top-right, bottom-right, bottom-left."""
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)


def texture_to_quad(width: float, height: float, corners: np.ndarray) -> np.ndarray:
    """(3, 3) float64 homography taking texture (edge) coordinates onto the quad's frame (edge) coordinates."""
    return cv2.getPerspectiveTransform(texture_corners(width, height), np.asarray(corners, np.float32))


# Bilinear sampling spreads a texture's edge up to one texel past the quad; nail alphas are sized so a texel
# is about a frame pixel, so two pixels of margin hold all of it, even on a foreshortened side.
ROI_MARGIN_PX = 2
MIN_QUAD_AREA_PX = 1.0
# Float32 corners of a rectangle leave perspective terms ~1e-8; a divisor off by 1e-5 moves a pixel a few
# hundred pixels from the ROI origin by under 0.01 px.
_AFFINE_TOLERANCE = 1e-5
_UNIT_SQUARE = texture_corners(1.0, 1.0)


@dataclass(frozen=True, eq=False)
class Placement:
    """Everything the warps of one quad share, computed once per nail per frame.

    roi: where the quad lands (clipped); size: the quad's (width, height) in frame pixels, each ≥ 2;
    to_roi: the homography from the unit square (edge coordinates) to ROI pixel centres, as nine floats in
    row order (plain floats: a nail's few matrix products cost less in Python than numpy's per-call overhead).
    """

    roi: Roi
    size: tuple[int, int]
    to_roi: tuple[float, ...]

    @property
    def unit_to_roi(self) -> np.ndarray:
        """(3, 3) float64 homography from the unit square (edge coordinates) to ROI pixel centres."""
        return np.array(self.to_roi, np.float64).reshape(3, 3)

    def homography_for(self, width: int, height: int) -> np.ndarray:
        """(3, 3) homography from a width×height texture's pixel centres to ROI pixel centres."""
        return np.array(self._texture_to_roi(width, height), np.float64).reshape(3, 3)

    def _texture_to_roi(self, width: int, height: int) -> tuple[float, ...]:
        # unit_to_roi @ [[1/w, 0, 0.5/w], [0, 1/h, 0.5/h], [0, 0, 1]], written out
        sx, sy = 1.0 / width, 1.0 / height
        hx, hy = 0.5 / width, 0.5 / height
        a, b, c, d, e, f, g, h, i = self.to_roi
        return (a * sx, b * sy, a * hx + b * hy + c,
                d * sx, e * sy, d * hx + e * hy + f,
                g * sx, h * sy, g * hx + h * hy + i)

    def warp(self, image: np.ndarray, *, border: int = cv2.BORDER_CONSTANT,
             interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
        """Warp `image` ((h, w) or (h, w, C)) so its rectangle lands on the quad; the ROI-sized result.

        Outside the rectangle the result is 0 with BORDER_CONSTANT, or the nearest edge pixel with
        BORDER_REPLICATE (use that for colour, so only the alpha decides where the edge is).
        """
        rows, columns = image.shape[:2]
        m = self._texture_to_roi(columns, rows)
        size = (self.roi.x1 - self.roi.x0, self.roi.y1 - self.roi.y0)
        # the perspective divisor varies by less than _AFFINE_TOLERANCE over the texture: treat it as affine
        if abs(m[6]) * columns + abs(m[7]) * rows < _AFFINE_TOLERANCE * abs(m[8]):
            # a parallelogram quad (what the geometry makes): the homography is affine, and warpAffine is the
            # same mapping at about two thirds of the cost
            k = m[8]
            affine = np.array(((m[0] / k, m[1] / k, m[2] / k), (m[3] / k, m[4] / k, m[5] / k)), np.float64)
            return cv2.warpAffine(image, affine, size, flags=interpolation, borderMode=border, borderValue=0)
        matrix = np.array(m, np.float64).reshape(3, 3)
        return cv2.warpPerspective(image, matrix, size, flags=interpolation, borderMode=border, borderValue=0)


def place_quad(corners: np.ndarray, frame_shape: tuple[int, ...], roi: Roi | None = None) -> Placement | None:
    """The Placement of `corners` ((4, 2) frame pixels) in a frame, or None if nothing of it is inside.

    `roi` overrides the region warped into (e.g. the whole frame, to check that nothing falls outside)."""
    points = _points(corners)
    if roi is None:
        roi = _roi(points, frame_shape)
        if roi is None:
            return None
    if _area(points) < MIN_QUAD_AREA_PX:
        return None  # degenerate (or not finite): no homography maps a rectangle onto it
    # the homography is taken between float32 corners (what NailQuad holds)
    corners32 = corners if _is_float32_quad(corners) else np.asarray(points, np.float32)
    a, b, c, d, e, f, g, h, i = _unit_square_to(corners32)
    x, y = roi.x0 + 0.5, roi.y0 + 0.5  # [[1, 0, -x], [0, 1, -y], [0, 0, 1]] @ unit_to_quad, written out
    to_roi = (a - x * g, b - x * h, c - x * i, d - y * g, e - y * h, f - y * i, g, h, i)
    return Placement(roi, _size(points), to_roi)


def _is_float32_quad(corners: object) -> bool:
    return isinstance(corners, np.ndarray) and corners.dtype == np.float32 and corners.shape == (4, 2)


def _unit_square_to(corners32: np.ndarray) -> tuple[float, ...]:
    """The homography (nine floats, row order, last 1) taking the unit square's corners onto `corners32`
    ((4, 2) float32, NailQuad order), in closed form (Heckbert's square-to-quad)."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = corners32[:4, :2].tolist()
    sum_x, sum_y = x0 - x1 + x2 - x3, y0 - y1 + y2 - y3
    dx1, dx2, dy1, dy2 = x1 - x2, x3 - x2, y1 - y2, y3 - y2
    den = dx1 * dy2 - dx2 * dy1
    if den == 0.0 or not math.isfinite(den):
        matrix = cv2.getPerspectiveTransform(_UNIT_SQUARE, np.ascontiguousarray(corners32[:4, :2]))
        return tuple(matrix.ravel().tolist())
    g = (sum_x * dy2 - dx2 * sum_y) / den
    h = (dx1 * sum_y - sum_x * dy1) / den
    return (x1 - x0 + g * x1, x3 - x0 + h * x3, x0,
            y1 - y0 + g * y1, y3 - y0 + h * y3, y0,
            g, h, 1.0)


def quad_roi(corners: np.ndarray, frame_shape: tuple[int, ...]) -> Roi | None:
    """The quad's bounding rectangle plus ROI_MARGIN_PX, clipped to the frame; None if nothing is inside."""
    return _roi(_points(corners), frame_shape)


def quad_area(corners: np.ndarray) -> float:
    """Absolute area of the quad (shoelace formula), in square frame pixels."""
    return _area(_points(corners))


def quad_size(corners: np.ndarray) -> tuple[int, int]:
    """The quad's width and height in frame pixels (mean of opposite edges), each at least 2."""
    return _size(_points(corners))


# Plain-float versions: a nail is four points, and numpy's per-call overhead would dominate.
Points = list[list[float]]


def _points(corners: np.ndarray) -> Points:
    # float32 to Python float is exact, as through float64
    points: Points = corners.tolist() if _is_float32_quad(corners) else np.asarray(corners, np.float64)[:4, :2].tolist()
    return points


def _roi(points: Points, frame_shape: tuple[int, ...]) -> Roi | None:
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = points
    # a sum of finite values is finite unless it overflows; only then is each value checked
    if not math.isfinite(ax + ay + bx + by + cx + cy + dx + dy) and not all(
            math.isfinite(v) for v in (ax, ay, bx, by, cx, cy, dx, dy)):
        return None
    height, width = frame_shape[:2]
    x0 = max(0, math.floor(min(ax, bx, cx, dx)) - ROI_MARGIN_PX)
    y0 = max(0, math.floor(min(ay, by, cy, dy)) - ROI_MARGIN_PX)
    x1 = min(width, math.ceil(max(ax, bx, cx, dx)) + ROI_MARGIN_PX)
    y1 = min(height, math.ceil(max(ay, by, cy, dy)) + ROI_MARGIN_PX)
    if x1 <= x0 or y1 <= y0:
        return None
    return Roi(x0, y0, x1, y1)


def _area(points: Points) -> float:
    twice = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True))
    return abs(twice) / 2 if math.isfinite(twice) else 0.0


def _size(points: Points) -> tuple[int, int]:
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = points
    width = (math.hypot(bx - ax, by - ay) + math.hypot(cx - dx, cy - dy)) / 2
    height = (math.hypot(dx - ax, dy - ay) + math.hypot(cx - bx, cy - by)) / 2
    return max(2, math.ceil(width)), max(2, math.ceil(height))


def roi_homography(texture_size: tuple[int, int], corners: np.ndarray, roi: Roi) -> np.ndarray:
    """(3, 3) homography from texture pixel centres to ROI pixel centres (what cv2.warpPerspective wants)."""
    return _placed_in(corners, roi).homography_for(*texture_size)


def warp_into_roi(image: np.ndarray, corners: np.ndarray, roi: Roi, *, border: int = cv2.BORDER_CONSTANT,
                  interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """Warp `image` so its rectangle lands on `corners`, into `roi` (see Placement.warp)."""
    return _placed_in(corners, roi).warp(image, border=border, interpolation=interpolation)


def _placed_in(corners: np.ndarray, roi: Roi) -> Placement:
    placement = place_quad(corners, (roi.y1, roi.x1), roi)
    if placement is None:
        raise ValueError(f"a degenerate quad (area under {MIN_QUAD_AREA_PX} px²) has no homography")
    return placement
