"""Nail-aligned square crops ("ROIs") for the learned nail segmenter, and the way back to the frame.

A nail's ROI is a square centred on its quad, turned so that the finger points up (cuticle → free edge runs
towards row 0), with side CONTEXT × max(quad length, quad width) frame pixels, resampled to ROI_SIZE × ROI_SIZE.
`roi_to_frame(quad)` is the (3, 3) affine that maps ROI pixel centres to frame pixel centres; everything else
(the crop, the paste back, the training tools' context crops) is built on it, so the trainer and the product
crop exactly the same pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.nail_shape import signed_distance
from nailmirror_desktop.vision.nails.warp import Roi, frame_box, mask_rectangle
from nailmirror_desktop.vision.types import NailQuad

ROI_SIZE = 64
CONTEXT = 3.0  # ROI side over the quad's longer side
MIN_QUAD_PX = 2.0  # a quad shorter or narrower than this is degenerate
FEATHER_PX = 1.2  # frame pixels of the pasted mask's soft edge
EXPECTED_REACH = 1.5  # how far (in the expected nail's spreads) a kept part may lie from the expected place


@dataclass(frozen=True)
class NailRoi:
    """One nail's crop: image (size, size, 3) uint8 BGR; to_frame (3, 3) maps its pixel centres to the frame's."""

    quad: NailQuad
    image: NDArray[np.uint8]
    to_frame: NDArray[np.float64]


def roi_to_frame(quad: NailQuad, size: int = ROI_SIZE, context: float = CONTEXT) -> NDArray[np.float64] | None:
    """The (3, 3) affine from ROI pixel centres to frame pixel centres, or None for a degenerate quad.

    size and context scale together: `roi_to_frame(q, 2 * s, 2 * c)` is the same pixel grid as `(q, s, c)` with
    s/2 more pixels around it on every side (the training tools' context crop).
    """
    corners = np.asarray(quad.corners, np.float64)
    if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
        return None
    tip, cuticle = 0.5 * (corners[0] + corners[1]), 0.5 * (corners[2] + corners[3])
    along = tip - cuticle
    length = float(np.linalg.norm(along))
    width = 0.5 * float(np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[2] - corners[3]))
    if length < MIN_QUAD_PX or width < MIN_QUAD_PX:
        return None
    up = along / length  # ROI −y in frame coordinates
    right = np.array([-up[1], up[0]])  # ROI +x: 90° clockwise from up, with y down (keeps the image unmirrored)
    scale = context * max(length, width) / size  # frame pixels per ROI pixel
    centre = 0.5 * (tip + cuticle)
    half = 0.5 * (size - 1)  # the ROI's centre in pixel-centre coordinates
    x_axis, y_axis = right * scale, -up * scale
    offset = centre - half * x_axis - half * y_axis
    return np.array([[x_axis[0], y_axis[0], offset[0]], [x_axis[1], y_axis[1], offset[1]], [0.0, 0.0, 1.0]])


def crop(image: np.ndarray, to_frame: NDArray[np.float64], size: int = ROI_SIZE, *,
         interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """The (size, size[, C]) crop of `image` on the grid `to_frame` (borders replicate the edge)."""
    return np.asarray(cv2.warpAffine(image, to_frame[:2], (size, size), flags=interpolation | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE))


def nail_rois(image: NDArray[np.uint8], quads: list[NailQuad]) -> list[NailRoi | None]:
    """One ROI per quad of `image` ((H, W, 3) uint8 BGR); None where the quad is unpainted or degenerate."""
    rois: list[NailRoi | None] = []
    for quad in quads:
        to_frame = roi_to_frame(quad) if quad.opacity > 0 else None
        rois.append(None if to_frame is None else
                    NailRoi(quad, np.asarray(crop(image, to_frame), np.uint8), to_frame))
    return rois


def expected_nail(quad: NailQuad, size: int = ROI_SIZE, context: float = CONTEXT) -> tuple[float, float]:
    """(length, width) of `quad` in ROI pixels (see roi_to_frame): the nail the landmarks expect, centred on the
    ROI, its length along the ROI's columns (tip up)."""
    corners = np.asarray(quad.corners, np.float64)
    length = quad.length
    width = 0.5 * float(np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[2] - corners[3]))
    per_roi = size / (context * max(length, width, 1e-6))
    return length * per_roi, width * per_roi


def expected_component(mask: np.ndarray, prob: np.ndarray, expected: tuple[float, float],
                       reach: float = EXPECTED_REACH) -> np.ndarray:
    """The connected part of `mask` ((h, w) bool) that best matches the nail the landmarks expect: the most
    probability (`prob`, (h, w) float32) weighted by a Gaussian of the expected nail's place and size
    (`expected`: its (length, width) in ROI pixels, centred on the ROI, length along the columns). A part none of
    whose pixels comes within `reach` of the expected nail's half-sizes (plus a landmark error) is not ours;
    empty when none is.

    The centre rule this replaces kept the part holding the ROI's centre pixel: when landmark error put the
    centre on a neighbouring nail's edge or on skin beside a nail, the nail itself was dropped or the neighbour
    painted. Weighting by place and size keeps the nail that fills the expected place, wherever its centre is."""
    count, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    if count <= 1:
        return np.zeros(mask.shape, bool)
    h, w = mask.shape
    length, width = expected
    # landmark error is about a nail's width either way: the spread allows it on top of the nail's own half-size
    sigma_along = 0.5 * length + 0.5 * width + 1.0
    sigma_across = 0.5 * width + 0.25 * width + 1.0
    across = ((np.arange(w, dtype=np.float32) - 0.5 * (w - 1)) / sigma_across) ** 2
    along = ((np.arange(h, dtype=np.float32) - 0.5 * (h - 1)) / sigma_along) ** 2
    distance_sq = along[:, None] + across[None, :]  # in spreads, squared
    weight = np.exp(-0.5 * distance_sq) * prob
    scores = np.bincount(labels.ravel(), weights=weight.ravel(), minlength=count)
    reached = np.bincount(labels[distance_sq <= reach * reach], minlength=count) > 0
    scores[0] = 0.0
    scores[~reached] = 0.0
    if not np.any(scores > 0):
        return np.zeros(mask.shape, bool)
    return np.asarray(labels == int(np.argmax(scores)))


def component_on(mask: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """The connected part of `mask` ((h, w) bool) that overlaps `prior` ((h, w) bool: where this nail was
    painted a frame ago) most; empty when none overlaps (the caller then takes `expected_component`). On video
    a quad that lands between two nails (landmark noise is about a nail's width) would otherwise hop from one
    nail to the other."""
    count, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    if count <= 1:
        return np.zeros(mask.shape, bool)
    overlap = np.bincount(labels[prior], minlength=count)
    overlap[0] = 0
    if not overlap.any():
        return np.zeros(mask.shape, bool)
    return np.asarray(labels == int(np.argmax(overlap)))


def mask_on_grid(mask: NailMask, to_frame: NDArray[np.float64], size: int = ROI_SIZE) -> np.ndarray:
    """(size, size) bool: a frame-space NailMask resampled onto an ROI grid (see roi_to_frame)."""
    shift = np.array([[1.0, 0.0, -mask.roi.x0], [0.0, 1.0, -mask.roi.y0], [0.0, 0.0, 1.0]])
    grid = (shift @ to_frame)[:2]
    alpha = cv2.warpAffine(mask.alpha, grid, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)
    return np.asarray(alpha >= 0.5)


def shifted_mask(mask: NailMask, shift: NDArray[np.float64], frame_shape: tuple[int, ...]) -> NailMask | None:
    """`mask` moved by `shift` (dx, dy) frame pixels, rounded, clipped to the frame; None when it leaves it.
    The cheap way to carry a mask one or two frames (no resampling): a finger turns little in that time."""
    dx, dy = (int(round(float(v))) for v in shift)
    height, width = frame_shape[:2]
    box = mask.roi
    x0, y0, x1, y1 = box.x0 + dx, box.y0 + dy, box.x1 + dx, box.y1 + dy
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
    if cx1 <= cx0 or cy1 <= cy0:
        return None
    alpha = mask.alpha[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0]
    if not np.any(alpha >= 0.5):
        return None
    corners = mask.quad.corners + np.array([dx, dy], np.float32)
    return NailMask(NailQuad(mask.quad.finger, corners, mask.quad.hand_index, mask.quad.opacity),
                    Roi(cx0, cy0, cx1, cy1), np.ascontiguousarray(alpha), refined=True)


def painted_overlap(mask: NailMask, other: NailMask) -> int:
    """Frame pixels both masks paint (alpha ≥ 0.5)."""
    a, b = mask.roi, other.roi
    x0, y0, x1, y1 = max(a.x0, b.x0), max(a.y0, b.y0), min(a.x1, b.x1), min(a.y1, b.y1)
    if x1 <= x0 or y1 <= y0:
        return 0
    both = ((mask.alpha[y0 - a.y0:y1 - a.y0, x0 - a.x0:x1 - a.x0] >= 0.5)
            & (other.alpha[y0 - b.y0:y1 - b.y0, x0 - b.x0:x1 - b.x0] >= 0.5))
    return int(np.count_nonzero(both))


def painted_share(mask: NailMask, of: NailMask) -> float:
    """The share of `of`'s painted pixels (alpha ≥ 0.5) that `mask` paints too, in [0, 1] (0 when `of` paints
    nothing)."""
    total = int(np.count_nonzero(of.alpha >= 0.5))
    return painted_overlap(mask, of) / total if total else 0.0


def paste_mask(mask: np.ndarray, roi: NailRoi, frame_shape: tuple[int, ...],
               feather_px: float = FEATHER_PX) -> NailMask | None:
    """Map an ROI mask ((size, size) bool) back to the frame as a NailMask: its quad is the mask's bounding
    rectangle in the ROI (so it stays nail-aligned), its alpha a feathered edge whose 0.5 level is the mask's
    outline. None when the mask is empty or falls outside the frame."""
    return paste_mask_on(mask, roi.quad, roi.to_frame, frame_shape, feather_px)


def carry_mask(mask: np.ndarray, quad: NailQuad, frame_shape: tuple[int, ...]) -> NailMask | None:
    """An ROI mask found on an earlier frame, pasted onto `quad` (the same nail, tracked to this frame): the
    mask rides on the nail's ROI grid, so it follows the finger's shift, turn and scale. None as paste_mask,
    or for a degenerate quad."""
    to_frame = roi_to_frame(quad, mask.shape[0])
    return None if to_frame is None else paste_mask_on(mask, quad, to_frame, frame_shape)


def paste_mask_on(mask: np.ndarray, quad: NailQuad, to_frame: NDArray[np.float64], frame_shape: tuple[int, ...],
                  feather_px: float = FEATHER_PX) -> NailMask | None:
    """paste_mask for the ROI grid `to_frame` of `quad` (see roi_to_frame)."""
    rect = mask_rectangle(mask)  # edges in pixel-centre coords
    if rect is None:
        return None
    corners = cv2.transform(rect[None], to_frame[:2])[0] + 0.5  # NailQuad corners are edge coordinates
    box = frame_box(corners, frame_shape)
    if box is None:
        return None
    shift = np.array([[1.0, 0.0, -box.x0], [0.0, 1.0, -box.y0], [0.0, 0.0, 1.0]])
    roi_to_box = (shift @ to_frame)[:2]
    frame_per_roi = float(np.sqrt(abs(np.linalg.det(to_frame[:2, :2]))))
    warped = cv2.warpAffine(signed_distance(mask), roi_to_box, (box.width, box.height), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=-1e3)
    alpha = np.clip(0.5 + warped * frame_per_roi / feather_px, 0.0, 1.0).astype(np.float32)
    if not np.any(alpha >= 0.5):
        return None
    painted = NailQuad(quad.finger, corners.astype(np.float32), quad.hand_index, quad.opacity)
    return NailMask(painted, box, alpha, refined=True)
