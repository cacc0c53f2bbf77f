"""A nail's mask resolved at the frame's own pixels from the segmenter's probabilities (ARCHITECTURE.md §3, §11).

The segmenter sees a nail at ROI resolution (64 × 64 for three nail lengths), about 2–4 frame pixels per ROI pixel
on a 1080 px photo. Thresholding there and scaling the 0/1 mask up gives stair-stepped edges and an outline that
sits up to an ROI pixel off the nail's rim. Here instead:

1. the probabilities of the chosen component (its pixels and a one-pixel ring; neighbouring nails are cut away)
   are warped into the frame with cubic interpolation, so the threshold's level line is smooth at frame pixels;
2. the warped probabilities are refined along the image's edges by a guided filter (He et al.) whose guide is
   the crop projected onto this nail's own colour contrast (the mean colour where the model is sure of nail
   against where it is sure of not-nail): the edge moves onto the rim where the photo shows one and stays where
   the model put it where the photo shows none (a low-contrast nail keeps the model's edge);
3. the alpha is the signed distance to the level line (probability over its gradient), one frame pixel of ramp:
   anti-aliased, so the compositor's edge is crisp at the cuticle and free of steps.

numpy and OpenCV's imgproc only (no opencv-contrib's guided filter).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.warp import Roi, frame_box, mask_rectangle
from nailmirror_desktop.vision.types import NailQuad

RAMP_PX = 1.0  # the alpha's ramp across the edge, frame pixels
GUIDE_EPS = 0.04  # the guided filter's regulariser on a guide scaled so nail ≈ 1, surround ≈ 0
MIN_CONTRAST = 12.0  # BGR distance of the sure-nail and sure-surround means below which there is no edge to follow
SURE = 0.25  # probabilities within this of 0 or 1 are "sure" when the colour contrast is sampled


def resolve_mask(prob: NDArray[np.float32], keep: NDArray[np.bool_], quad: NailQuad, to_frame: NDArray[np.float64],
                 image: NDArray[np.uint8], threshold: float, *, refine: bool = True) -> NailMask | None:
    """The NailMask of one nail at frame resolution. prob: (s, s) float32 the model's probabilities on the ROI grid
    `to_frame` (nail_rois.roi_to_frame); keep: (s, s) bool the component chosen as this nail; image: the frame
    ((H, W, 3) uint8 BGR). The mask's quad is keep's bounding rectangle (the texture maps onto it); its alpha is
    ≥ 0.5 where the refined probability is ≥ threshold. None when nothing of it is in the frame."""
    rect = mask_rectangle(keep)
    if rect is None:
        return None
    frame_per_roi = float(np.sqrt(abs(np.linalg.det(to_frame[:2, :2]))))
    corners = cv2.transform(rect[None], to_frame[:2])[0] + 0.5  # NailQuad corners are edge coordinates
    # the level line may lie up to the ring's ROI pixel outside keep's rectangle: one ROI pixel of margin, plus
    # the ramp (a live frame's cost grows with the box's area)
    box = frame_box(corners, image.shape, margin=int(np.ceil(frame_per_roi)) + 2)
    if box is None:
        return None
    ring = cv2.dilate(keep.astype(np.uint8), np.ones((3, 3), np.uint8))
    chosen = np.zeros_like(prob, np.float32)
    cv2.copyTo(np.asarray(prob, np.float32), ring, chosen)  # neighbouring nails cut away
    shift = np.array([[1.0, 0.0, -box.x0], [0.0, 1.0, -box.y0], [0.0, 0.0, 1.0]])
    roi_to_box = (shift @ to_frame)[:2]
    warped = np.asarray(cv2.warpAffine(chosen, roi_to_box, (box.width, box.height), flags=cv2.INTER_CUBIC,
                                       borderMode=cv2.BORDER_CONSTANT, borderValue=0.0), np.float32)
    np.clip(warped, 0.0, 1.0, out=warped)  # cubic overshoots a little at the edge
    if refine:
        warped = refined_probability(warped, image[box.slices], max(1, int(round(frame_per_roi))))
    alpha = level_alpha(warped, threshold)
    if float(alpha.max()) < 0.5:
        return None
    painted = NailQuad(quad.finger, corners.astype(np.float32), quad.hand_index, quad.opacity)
    return NailMask(painted, Roi(box.x0, box.y0, box.x1, box.y1), alpha, refined=True)


def refined_probability(prob: NDArray[np.float32], crop: NDArray[np.uint8], radius: int) -> NDArray[np.float32]:
    """prob ((h, w) float32) filtered by a guided filter of `radius` px guided by `crop` ((h, w, 3) uint8 BGR)
    projected onto the nail's colour contrast; prob itself when the crop shows no contrast to follow."""
    pixels = crop.reshape(-1, 3).astype(np.float32)
    flat = prob.reshape(-1)
    inside, outside = flat >= 1.0 - SURE, flat <= SURE
    if inside.sum() < 4 or outside.sum() < 4:
        return prob
    nail, surround = pixels[inside].mean(axis=0), pixels[outside].mean(axis=0)
    direction = nail - surround
    contrast = float(np.linalg.norm(direction))
    if contrast < MIN_CONTRAST:
        return prob
    guide = ((pixels - surround) @ (direction / (contrast * contrast))).reshape(prob.shape)
    np.clip(guide, -0.5, 1.5, out=guide)
    return guided_filter(guide.astype(np.float32), prob, radius, GUIDE_EPS)


def guided_filter(guide: NDArray[np.float32], source: NDArray[np.float32], radius: int,
                  eps: float) -> NDArray[np.float32]:
    """He, Sun and Tang's guided filter for a one-channel guide: (h, w) float32 in, (h, w) float32 out."""
    size = (2 * radius + 1, 2 * radius + 1)

    def mean(values: np.ndarray) -> np.ndarray:
        return np.asarray(cv2.boxFilter(values, cv2.CV_32F, size, borderType=cv2.BORDER_REFLECT))

    mean_guide, mean_source = mean(guide), mean(source)
    covariance = mean(guide * source) - mean_guide * mean_source
    variance = mean(guide * guide) - mean_guide * mean_guide
    a = covariance / (variance + np.float32(eps))
    b = mean_source - a * mean_guide
    out = mean(a) * guide + mean(b)
    return np.asarray(np.clip(out, 0.0, 1.0), np.float32)


def level_alpha(prob: NDArray[np.float32], threshold: float, ramp_px: float = RAMP_PX) -> NDArray[np.float32]:
    """(h, w) float32 alpha: 0.5 on the level line prob = threshold, a `ramp_px` ramp across it (the signed
    distance to the line is approximated as (prob − threshold) over prob's gradient)."""
    gx = cv2.Sobel(prob, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)  # per pixel (the 3 × 3 Sobel sums 8 of them)
    gy = cv2.Sobel(prob, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    slope = cv2.magnitude(gx, gy)
    np.maximum(slope, np.float32(1e-3), out=slope)
    distance = (prob - np.float32(threshold)) / slope
    distance *= np.float32(1.0 / ramp_px)
    distance += np.float32(0.5)
    return np.asarray(np.clip(distance, 0.0, 1.0, out=distance), np.float32)
