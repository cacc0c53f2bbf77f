"""Per-nail refinement for stills (the optional NailRefiner, ARCHITECTURE.md §11): a nail mask from the nail's
own pixels.

A landmark quad is a shape prior that is often off by a good part of a nail (MediaPipe's landmark error is about a
nail width), so the prior's nail shape paints skin beside, beyond or below the real nail. Each nail is looked at
again in a small finger-aligned crop:

1. the crop is the quad's rectangle resampled so the nail is NAIL_WIDTH_PX wide, tip up, with room around it
   (the finger's own skin below the cuticle and beside the nail, the background beyond the tip);
2. GrabCut separates nail from the rest: the prior's eroded core is surely nail, the rest of the prior probably
   nail, a band around it probably not, everything further away (the finger below the cuticle, the surround)
   surely not;
3. the result is regularised as a nail — the blob that overlaps the prior most, holes filled — and
   painted only inside the prior, grown at the cuticle end (where the landmarks are least sure of the nail's
   length): colour decides which of the prior's pixels are nail, the prior bounds where a nail can be; when the
   blob also takes the finger's skin past the cuticle (nail and skin colours alike), only the prior bounds it;
4. a degenerate result (no blob, nothing beyond the seeded core, mostly off the prior, GrabCut failing on a
   flat crop) falls back to the prior.

Measured on nails_eval (still path, see the commit log): precision 0.63 → 0.76, IoU 0.39 → 0.41.

The refined nail comes back as a NailMask: a new quad (the mask's finger-aligned bounding rectangle, which the
texture maps onto) and an alpha in that quad's ROI, which the compositor paints instead of the prior's shape.
Cost: GrabCut on a ~80×120 crop, about 20 ms per nail on this machine (2 busy cores): stills only.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.nails.nail_shape import nail_alpha, signed_distance
from nailmirror_desktop.vision.nails.warp import Roi, frame_box, mask_rectangle
from nailmirror_desktop.vision.types import NailQuad

# The nail's width in the crop. Finer is better up to here (20 → 28 → 36 px measured IoU 0.396 → 0.413 → 0.414,
# precision 0.754 → 0.757 → 0.768 on nails_eval) at ~20 ms per nail on this machine: fine for stills.
NAIL_WIDTH_PX = 36


@dataclass(frozen=True)
class RefinerSettings:
    """Sizes are fractions of the prior nail's width (across) or length (along)."""

    margin_side: float = 0.6  # crop room beside the nail (the finger's sides, neighbours)
    margin_tip: float = 0.5  # beyond the free edge
    margin_base: float = 0.9  # below the cuticle: the finger's own skin, the "surely not nail" sample
    grow: float = 0.35  # GrabCut's uncertain band around the prior, of the nail's width
    core: float = 0.3  # the prior eroded by this much (of the nail's width) is surely nail: it seeds the model
    iterations: int = 2  # 4 measured the same on nails_eval, at twice the cost
    base_zone: float = 0.15  # of the nail's length: the cuticle end, beyond which the mask may grow
    max_band_fill: float = 0.6  # share of the band past the cuticle end the blob may take before it is skin
    core_only: float = 1.1  # a blob no bigger than this times the seeded core: nothing joined it (degenerate)
    min_overlap: float = 0.3  # share of the found blob that must lie on the prior
    feather_px: float = 1.2  # frame pixels


@dataclass(frozen=True, eq=False)
class NailMask:
    """A nail's painted shape: quad is what the texture maps onto; alpha ((roi.height, roi.width) float32 in
    [0, 1]) is where it is painted, in frame pixels of roi; refined tells whether the pixels changed the prior."""

    quad: NailQuad
    roi: Roi
    alpha: np.ndarray
    refined: bool


@dataclass(frozen=True)
class _Crop:
    """A finger-aligned crop: `to_frame` (3, 3) maps crop pixel centres to frame pixel centres."""

    image: NDArray[np.uint8]
    prior: np.ndarray  # (h, w) bool, the prior nail shape
    nail_rect: tuple[int, int, int, int]  # x0, y0, x1, y1 of the prior's rectangle in crop pixels (edges)
    to_frame: np.ndarray


def refine_nails(image: NDArray[np.uint8], quads: list[NailQuad],
                 settings: RefinerSettings = RefinerSettings()) -> list[NailMask | None]:
    """One NailMask per quad (None where the quad is not painted or not in the image)."""
    return [refine_nail(image, quad, settings) if quad.opacity > 0 else None for quad in quads]


def refine_nail(image: NDArray[np.uint8], quad: NailQuad,
                settings: RefinerSettings = RefinerSettings()) -> NailMask | None:
    """The nail's mask from the pixels of `image` ((H, W, 3) uint8 BGR) around `quad`, or the quad's own nail
    shape (refined=False) when the pixels give no plausible nail; None when the quad is degenerate or off-image."""
    crop = _finger_crop(image, quad, settings)
    if crop is None:
        return None
    mask = _refined_mask(crop, settings)
    refined = mask is not None
    if mask is None:
        mask = crop.prior
    return _to_frame(mask, crop, quad, image.shape, refined, settings)


def _finger_crop(image: NDArray[np.uint8], quad: NailQuad, settings: RefinerSettings) -> _Crop | None:
    corners = np.asarray(quad.corners, np.float64)
    width = 0.5 * (np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[2] - corners[3]))
    length = 0.5 * (np.linalg.norm(corners[3] - corners[0]) + np.linalg.norm(corners[2] - corners[1]))
    if not (np.isfinite(width) and np.isfinite(length)) or width < 2 or length < 2:
        return None
    nail_w = NAIL_WIDTH_PX
    nail_h = max(4, int(round(NAIL_WIDTH_PX * length / width)))
    x0 = int(round(settings.margin_side * nail_w))
    y0 = int(round(settings.margin_tip * nail_h))
    crop_w = nail_w + 2 * x0
    crop_h = y0 + nail_h + int(round(settings.margin_base * nail_h))
    rect = np.array([[x0, y0], [x0 + nail_w, y0], [x0 + nail_w, y0 + nail_h], [x0, y0 + nail_h]], np.float32)
    # edge coordinates → pixel centres on both sides (see warp.py)
    to_frame = cv2.getPerspectiveTransform(rect - 0.5, corners.astype(np.float32) - 0.5)
    crop = np.asarray(cv2.warpPerspective(image, to_frame, (crop_w, crop_h),
                                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_REPLICATE), np.uint8)  # uint8 in, uint8 out
    prior = np.zeros((crop_h, crop_w), bool)
    prior[y0:y0 + nail_h, x0:x0 + nail_w] = nail_alpha(nail_w, nail_h, 0.0) >= 0.5
    return _Crop(crop, prior, (x0, y0, x0 + nail_w, y0 + nail_h), to_frame)


def _refined_mask(crop: _Crop, settings: RefinerSettings) -> np.ndarray | None:
    """The nail as GrabCut finds it in the crop, within the prior; None when it is not a plausible nail.

    Labels: the prior's core is surely nail (so the nail model always has the nail's middle to learn from and
    cannot vanish), the rest of the prior probably nail, a band `grow` wide around it probably not, everything
    else (the finger below the cuticle, the surround) surely not. What is painted is the found blob inside the
    prior, grown at the cuticle end only (see `_paintable`): colour decides which of the prior's pixels are nail,
    the prior bounds where a nail can be (the blob beyond its free edge and sides is mostly fingertip or
    neighbouring skin that GrabCut cannot tell from an unpolished nail). A blob that also takes most of the skin
    past the cuticle end could not tell nail from skin: then only the prior bounds it (an ambiguous nail keeps
    the prior, measured on a skin-coloured synthetic nail).
    """
    prior_u8 = crop.prior.astype(np.uint8)
    allowed = cv2.dilate(prior_u8, _disc(settings.grow)) > 0
    labels = np.full(crop.prior.shape, cv2.GC_BGD, np.uint8)
    labels[allowed] = cv2.GC_PR_BGD
    labels[crop.prior] = cv2.GC_PR_FGD
    core = cv2.erode(prior_u8, _disc(settings.core)) > 0
    if not core.any():
        return None
    labels[core] = cv2.GC_FGD
    background, foreground = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(0)  # GrabCut seeds its colour models with k-means: the same photo gives the same nails
    try:
        # rect None: GC_INIT_WITH_MASK takes no rectangle, which the cv2 stubs do not allow for
        cv2.grabCut(crop.image, labels, None, background, foreground,  # type: ignore[call-overload]
                    settings.iterations, cv2.GC_INIT_WITH_MASK)
    except cv2.error:  # e.g. a flat crop: one colour gives GrabCut's GMMs nothing to fit
        return None
    found = ((labels == cv2.GC_FGD) | (labels == cv2.GC_PR_FGD)) & allowed
    blob = _nail_blob(found, crop.prior)
    if blob is None:
        return None
    # the band past the cuticle end is the finger's own skin unless the nail is longer than the prior
    paintable = _paintable(crop, allowed, settings)
    beyond = paintable & ~crop.prior
    if beyond.any() and (blob & beyond).sum() > settings.max_band_fill * beyond.sum():
        paintable = crop.prior
    if (blob & crop.prior).sum() < settings.min_overlap * blob.sum():
        return None
    if float(blob.sum()) <= settings.core_only * float(core.sum()):
        return None  # nothing joined the seed: the colours did not tell nail from skin
    refined: NDArray[np.bool_] = blob & paintable
    return refined


def _paintable(crop: _Crop, allowed: np.ndarray, settings: RefinerSettings) -> np.ndarray:
    """Where a refined nail may be painted: the prior, extended towards the cuticle within the uncertain band.

    The TIP landmark sits on the nail, so the free edge and the sides are where the prior is surest; where the
    nail ends towards the cuticle is least sure (its length runs 0.54–0.9 of |TIP−DIP|). GrabCut's blob beyond
    the free edge or the sides is mostly fingertip or neighbouring skin; beyond the cuticle end it is mostly nail.
    """
    x0, y0, x1, y1 = crop.nail_rect
    start = int(round(y1 - settings.base_zone * (y1 - y0)))
    paintable = crop.prior.copy()
    paintable[start:, x0:x1] |= allowed[start:, x0:x1]
    return paintable


def _disc(fraction: float) -> np.ndarray:
    """An elliptic structuring element of radius `fraction` of the crop's nail width (at least 1 px)."""
    radius = max(1, int(round(fraction * NAIL_WIDTH_PX)))
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


def _nail_blob(found: np.ndarray, prior: np.ndarray) -> np.ndarray | None:
    """The connected blob of `found` overlapping `prior` most, its holes filled (a highlight inside the nail is
    still nail). Not its convex hull: measured, the hull puts back the skin GrabCut cut off at a corner."""
    count, labels = cv2.connectedComponents(found.astype(np.uint8), connectivity=8)
    if count < 2:
        return None
    overlap = np.bincount(labels[prior], minlength=count)
    overlap[0] = 0
    best = int(overlap.argmax())
    if overlap[best] == 0:
        return None
    contours, _ = cv2.findContours((labels == best).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    mask = np.zeros(found.shape, np.uint8)
    cv2.drawContours(mask, contours, -1, 1, thickness=cv2.FILLED)
    return mask > 0


def _to_frame(mask: np.ndarray, crop: _Crop, quad: NailQuad, frame_shape: tuple[int, ...], refined: bool,
              settings: RefinerSettings) -> NailMask | None:
    """Map a crop mask back to the frame: its bounding rectangle as the new quad, its alpha in that quad's ROI."""
    rect = mask_rectangle(mask)
    if rect is None:
        return None
    corners = cv2.perspectiveTransform(rect[None], crop.to_frame)[0] + 0.5
    roi = frame_box(corners, frame_shape)
    if roi is None:
        return None
    shift = np.array([[1, 0, -roi.x0], [0, 1, -roi.y0], [0, 0, 1]], np.float64)
    crop_to_roi = shift @ crop.to_frame
    # a signed distance in crop pixels, resampled to the frame, gives a feathered alpha whose 0.5 level is the
    # mask's outline at any scale
    signed = signed_distance(mask)
    frame_per_crop = float(np.sqrt(abs(np.linalg.det(crop.to_frame[:2, :2]))))
    warped = cv2.warpPerspective(signed, crop_to_roi, (roi.width, roi.height), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=-1e3)
    alpha = np.clip(0.5 + warped * frame_per_crop / settings.feather_px, 0.0, 1.0).astype(np.float32)
    new_quad = NailQuad(quad.finger, corners.astype(np.float32), quad.hand_index, quad.opacity)
    return NailMask(new_quad, roi, alpha, refined)
