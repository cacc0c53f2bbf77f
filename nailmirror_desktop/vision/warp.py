"""Homographies from a texture rectangle onto a nail quad, and warps into the quad's ROI only.

Coordinates: NailQuad corners are in frame pixels with the image's edges at 0 and W (MediaPipe's normalised
coordinates times the size), so pixel i covers [i, i+1). OpenCV samples at pixel centres (pixel i at i), so the
warps shift by half a pixel on both sides. Warping the full frame costs ~40 ms per nail at 1280×720; into the
quad's bounding rectangle it costs ~0.2 ms (reference/feasibility.md §6).
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


def texture_corners(width: float, height: float) -> np.ndarray:
    """(4, 2) float32 rectangle corners in NailQuad order: top-left, top-right, bottom-right, bottom-left."""
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)


def texture_to_quad(width: float, height: float, corners: np.ndarray) -> np.ndarray:
    """(3, 3) float64 homography taking texture (edge) coordinates onto the quad's frame (edge) coordinates."""
    return cv2.getPerspectiveTransform(texture_corners(width, height), np.asarray(corners, np.float32))


# Bilinear sampling spreads a texture's edge up to one texel past the quad; nail alphas are sized so a texel
# is about a frame pixel, so two pixels of margin hold all of it, even on a foreshortened side.
ROI_MARGIN_PX = 2


def quad_roi(corners: np.ndarray, frame_shape: tuple[int, ...]) -> Roi | None:
    """The quad's bounding rectangle plus ROI_MARGIN_PX, clipped to the frame; None if nothing is inside."""
    corners = np.asarray(corners, np.float64)
    if not np.all(np.isfinite(corners)):
        return None
    height, width = frame_shape[:2]
    x0 = max(0, math.floor(corners[:, 0].min()) - ROI_MARGIN_PX)
    y0 = max(0, math.floor(corners[:, 1].min()) - ROI_MARGIN_PX)
    x1 = min(width, math.ceil(corners[:, 0].max()) + ROI_MARGIN_PX)
    y1 = min(height, math.ceil(corners[:, 1].max()) + ROI_MARGIN_PX)
    if x1 <= x0 or y1 <= y0:
        return None
    return Roi(x0, y0, x1, y1)


def quad_size(corners: np.ndarray) -> tuple[int, int]:
    """The quad's width and height in frame pixels (mean of opposite edges), each at least 2."""
    c = np.asarray(corners, np.float64)
    width = (np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3])) / 2
    height = (np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1])) / 2
    return max(2, math.ceil(width)), max(2, math.ceil(height))


def roi_homography(texture_size: tuple[int, int], corners: np.ndarray, roi: Roi) -> np.ndarray:
    """(3, 3) homography from texture pixel centres to ROI pixel centres (what cv2.warpPerspective wants)."""
    tex_w, tex_h = texture_size
    edge_h = texture_to_quad(tex_w, tex_h, corners)
    to_edges = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]], np.float64)
    to_roi_centres = np.array([[1, 0, -roi.x0 - 0.5], [0, 1, -roi.y0 - 0.5], [0, 0, 1]], np.float64)
    return to_roi_centres @ edge_h @ to_edges


def warp_into_roi(
    image: np.ndarray,
    corners: np.ndarray,
    roi: Roi,
    *,
    border: int = cv2.BORDER_CONSTANT,
    interpolation: int = cv2.INTER_LINEAR,
) -> np.ndarray:
    """Warp `image` ((h, w) or (h, w, C)) so its rectangle lands on `corners`; return the ROI-sized result.

    Outside the rectangle the result is 0 with BORDER_CONSTANT, or the nearest edge pixel with
    BORDER_REPLICATE (use that for colour, so only the alpha decides where the edge is).
    """
    height, width = image.shape[:2]
    matrix = roi_homography((width, height), corners, roi)
    return cv2.warpPerspective(
        image, matrix, (roi.width, roi.height), flags=interpolation, borderMode=border, borderValue=0
    )
