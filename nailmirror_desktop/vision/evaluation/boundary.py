"""Boundary F1: how well the painted outline follows the true nail's outline (ARCHITECTURE.md §12).

IoU hardly moves when an edge is stair-stepped or sits a pixel off all round, but a customer zooming in sees it.
Boundary F1 (as in the DAVIS benchmark) counts outline pixels instead: a painted outline pixel is matched when a
true outline pixel lies within the tolerance, and the other way round. The tolerance is TOLERANCE_PX at a
REFERENCE_SIDE_PX image (the long side), scaled to the image's own size, so a photo and a frame of another size
are judged alike. Counts are pooled over images (or frames) before precision and recall are taken, as the
pixel precision is.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

TOLERANCE_PX = 2.0
REFERENCE_SIDE_PX = 1080.0


@dataclass(frozen=True)
class BoundaryCounts:
    """Outline pixels: painted, painted within tolerance of the truth's, true, true within tolerance of paint."""

    painted: int = 0
    painted_matched: int = 0
    true: int = 0
    true_matched: int = 0

    def __add__(self, other: BoundaryCounts) -> BoundaryCounts:
        return BoundaryCounts(self.painted + other.painted, self.painted_matched + other.painted_matched,
                              self.true + other.true, self.true_matched + other.true_matched)

    @property
    def f1(self) -> float:
        """2PR/(P+R); 1.0 when neither side has an outline (nothing to paint, nothing painted)."""
        if self.painted == 0 and self.true == 0:
            return 1.0
        precision = self.painted_matched / self.painted if self.painted else 0.0
        recall = self.true_matched / self.true if self.true else 0.0
        return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def tolerance_for(shape: tuple[int, ...]) -> float:
    """The tolerance in this image's pixels: TOLERANCE_PX at a long side of REFERENCE_SIDE_PX."""
    return TOLERANCE_PX * max(shape[0], shape[1]) / REFERENCE_SIDE_PX


def outline(mask: np.ndarray) -> np.ndarray:
    """(H, W) bool: the mask's pixels with a 4-neighbour outside it (the image's border counts as outside)."""
    on = (mask > 0).astype(np.uint8)
    inner = cv2.erode(on, np.ones((3, 3), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0)
    return np.asarray((on > 0) & (inner == 0))


def boundary_counts(truth: np.ndarray, painted: np.ndarray, tolerance_px: float | None = None) -> BoundaryCounts:
    """truth, painted: (H, W) masks, non-zero = nail / painted. tolerance_px defaults to `tolerance_for`."""
    if truth.shape != painted.shape:
        raise ValueError(f"mask {truth.shape} and painting {painted.shape} differ in size")
    tolerance = tolerance_for(truth.shape) if tolerance_px is None else tolerance_px
    true_edge, painted_edge = outline(truth), outline(painted)
    true_count, painted_count = int(np.count_nonzero(true_edge)), int(np.count_nonzero(painted_edge))
    if true_count == 0 or painted_count == 0:
        return BoundaryCounts(painted_count, 0, true_count, 0)
    return BoundaryCounts(painted_count, _within(painted_edge, true_edge, tolerance),
                          true_count, _within(true_edge, painted_edge, tolerance))


def _within(edge: np.ndarray, other: np.ndarray, tolerance: float) -> int:
    """How many pixels of `edge` lie within `tolerance` (Euclidean) of a pixel of `other`."""
    # distance to the nearest `other` pixel, only inside their joint box grown by the tolerance (a nail, not a frame)
    ys, xs = np.nonzero(edge | other)
    pad = int(np.ceil(tolerance)) + 1
    y0, x0 = max(0, int(ys.min()) - pad), max(0, int(xs.min()) - pad)
    y1, x1 = int(ys.max()) + pad + 1, int(xs.max()) + pad + 1
    window = (slice(y0, y1), slice(x0, x1))
    distance = cv2.distanceTransform(np.where(other[window], 0, 255).astype(np.uint8), cv2.DIST_L2, 5)
    return int(np.count_nonzero(distance[edge[window]] <= tolerance))
