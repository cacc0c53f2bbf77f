"""The shape polish is painted in, from a nail's mask: stretched toward the tip and with an anti-aliased edge.

Stretch (as ModiFace renders it, from the team's try-on research notes): a mask of the nail plate
stops where the light free edge begins, and that white rim showing past the polish gives a try-on away. So the
mask is stretched along the nail's axis, away from the cuticle, by TIP_STRETCH of its length: the cuticle stays
where it is (a half-moon stays on it), the tip moves out. The stretched mask is the union of the mask and its
stretch, so nothing the mask painted is lost.

Edge: a mask may be hard (0/1, a segmenter's threshold) or already feathered (the refiner's). A small blur
gives either a one-pixel ramp, so the edge is anti-aliased and follows the mask. Coverage is this alpha ≥ 0.5
wherever it is computed (`compositor.coverage_mask` and the compositor use this module), so what the coverage
says is what is painted.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict

import cv2
import numpy as np

from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.warp import Roi
from nailmirror_desktop.vision.types import NailQuad

TIP_STRETCH = 0.04  # of the nail length; nails_eval: 0.04 gave the best IoU of 0, 0.04, 0.08 (see the commit)
_EDGE_SIGMA_PX = 0.6
_FAINTEST = 0.05  # alpha below this is dropped: it would round back to the frame's pixel anyway


_RECENT: OrderedDict[tuple[int, tuple[int, int], float], tuple[NailMask, NailMask]] = OrderedDict()
_RECENT_LOCK = threading.Lock()
_RECENT_SIZE = 32  # two hands' nails, a few frames: the same mask painted again (coverage and composite of a
# still, a mask carried between segmenter runs in video) is not stretched and blurred again


def painted_mask(mask: NailMask, frame_shape: tuple[int, ...], stretch: float | None = None) -> NailMask:
    """`_painted_mask`, remembered for the last few masks (the same NailMask object: its arrays are not
    modified once made, as everywhere in the pipeline)."""
    stretch = TIP_STRETCH if stretch is None else stretch
    key = (id(mask), (int(frame_shape[0]), int(frame_shape[1])), stretch)
    with _RECENT_LOCK:  # (a worker and a snapshot may paint at once)
        hit = _RECENT.get(key)
    if hit is not None and hit[0] is mask:
        return hit[1]
    painted = _painted_mask(mask, frame_shape, stretch)
    with _RECENT_LOCK:
        _RECENT[key] = (mask, painted)  # holding `mask` keeps its id from being reused while it is here
        while len(_RECENT) > _RECENT_SIZE:
            _RECENT.popitem(last=False)
    return painted


def _painted_mask(mask: NailMask, frame_shape: tuple[int, ...], stretch: float) -> NailMask:
    """The mask polish is painted in: `mask` stretched toward its tip by `stretch` of its length, its ROI grown
    to hold the stretch (clipped to the frame), its alpha anti-aliased; its quad stretched the same way (so the
    texture and the laid-out layers follow). (roi.height, roi.width) float32 alpha in [0, 1]."""
    # plain floats: a nail is four points, and numpy's per-call overhead would dominate (as in warp.py)
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = mask.quad.corners.tolist()
    axis_x, axis_y = (x0 + x1 - x2 - x3) / 2, (y0 + y1 - y2 - y3) / 2
    length = math.hypot(axis_x, axis_y)
    if stretch <= 0 or not 1e-6 < length < math.inf:
        return NailMask(mask.quad, mask.roi, _anti_aliased(mask.alpha), mask.refined)
    shift_x, shift_y = axis_x * stretch, axis_y * stretch
    roi = _grown(mask.roi, shift_x, shift_y, frame_shape)
    top, left = mask.roi.y0 - roi.y0, mask.roi.x0 - roi.x0
    alpha = cv2.copyMakeBorder(np.asarray(mask.alpha, np.float32), top, roi.y1 - mask.roi.y1, left,
                               roi.x1 - mask.roi.x1, cv2.BORDER_CONSTANT, value=0)
    # inverse map of the stretch p' = c + (I + s·n nᵀ)(p − c) about the cuticle's midpoint c, in ROI pixel
    # centres: src = c + (I − k·n nᵀ)(p − c), k = s / (1 + s)
    nx, ny = axis_x / length, axis_y / length
    k = stretch / (1.0 + stretch)
    m00, m01, m11 = 1.0 - k * nx * nx, -k * nx * ny, 1.0 - k * ny * ny
    cx, cy = (x2 + x3) / 2 - roi.x0 - 0.5, (y2 + y3) / 2 - roi.y0 - 0.5
    matrix = np.array(((m00, m01, cx - m00 * cx - m01 * cy), (m01, m11, cy - m01 * cx - m11 * cy)), np.float64)
    stretched = cv2.warpAffine(alpha, matrix, (roi.width, roi.height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    cv2.max(alpha, stretched, dst=alpha)
    corners = np.array(((x0 + shift_x, y0 + shift_y), (x1 + shift_x, y1 + shift_y), (x2, y2), (x3, y3)), np.float32)
    quad = NailQuad(mask.quad.finger, corners, mask.quad.hand_index, mask.quad.opacity)
    return NailMask(quad, roi, _anti_aliased(alpha), mask.refined)


def _grown(roi: Roi, dx: float, dy: float, frame_shape: tuple[int, ...]) -> Roi:
    height, width = frame_shape[:2]
    x0 = max(0, min(roi.x0, math.floor(roi.x0 + dx)))
    y0 = max(0, min(roi.y0, math.floor(roi.y0 + dy)))
    x1 = min(width, max(roi.x1, math.ceil(roi.x1 + dx)))
    y1 = min(height, max(roi.y1, math.ceil(roi.y1 + dy)))
    return Roi(x0, y0, x1, y1)


def _anti_aliased(alpha: np.ndarray) -> np.ndarray:
    smoothed = cv2.GaussianBlur(np.asarray(alpha, np.float32), (3, 3), _EDGE_SIGMA_PX,
                                borderType=cv2.BORDER_CONSTANT)
    # the blur's faint tail would let the top coat's highlight tint pixels a pixel further out than the edge
    cv2.threshold(smoothed, _FAINTEST, 0.0, cv2.THRESH_TOZERO, dst=smoothed)
    return np.asarray(smoothed, np.float32)
