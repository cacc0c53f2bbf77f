"""The full-frame model's nails, checked and outlined by the per-nail segmenter (issue #23 point 4).

On its own the full-frame model (full_frame.py) paints nails on things that are no hand: a face, a cat, a cup, a
patterned counter (tools/score_negatives.py). So each of its nails is handed to the ROI segmenter as if a hand had
placed it there (the nail's oriented quad becomes the segmenter's ROI), and is kept only where the two models agree
on its outline: the IoU of their masks at least AGREEMENT. Two models trained apart, one on the whole scene at
96 px and one on a nail's own crop, seldom draw the same outline on a phantom; on a real nail they do. What is
painted is the segmenter's mask, whose edge is the ROI path's, rather than the coarser full-frame outline.
Measured out of sample (the model card's "Full-frame fallback … checked by the segmenter").

Video: a nail painted on the previous frame is kept while the segmenter finds it again where it was (its new mask
at least HELD_OVERLAP on one of the last frame's), so the check's frame-to-frame wobble does not make it blink; a
nail must pass the check once to be painted at all. When the full-frame model does not propose it on a frame (its
map dips under the threshold), the segmenter is asked again at the nail's last quad (`carried_nails`), for at most
CARRY_FRAMES frames in a row: the full-frame model has to see it again for it to stay longer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.nail_rois import painted_overlap
from nailmirror_desktop.vision.types import NailQuad

if TYPE_CHECKING:
    from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter

# Chosen on the close-ups' fold-model proposals and Debian's hand-free images (scikit-image's held out), before
# any clip was scored with it: at 0.5 the check drops 140 of 150 wrong proposals and 225 of 357 right ones keep.
AGREEMENT = 0.5
HELD_OVERLAP = 0.3  # of the new mask's painted pixels on a nail painted the frame before: the same nail
PAINTED = 0.5  # alpha from which a pixel counts as painted (as nail_rois.painted_overlap counts it)
CARRY_FRAMES = 8  # as long as nail_tracks.HOLD_FRAMES holds a hand's nail through a drop-out


@dataclass(frozen=True, eq=False)
class FallbackNail:
    """A nail the check passed on a video frame; unproposed: frames in a row since the full-frame model last
    proposed it (0: it did on that frame)."""

    mask: NailMask
    unproposed: int = 0


def painted_area(mask: NailMask) -> int:
    return int(np.count_nonzero(mask.alpha >= PAINTED))


def agreement(a: NailMask, b: NailMask) -> float:
    """The IoU of two masks' painted pixels (0.0 when neither paints any)."""
    both = painted_overlap(a, b)
    union = painted_area(a) + painted_area(b) - both
    return both / union if union > 0 else 0.0


def checked_nails(image: np.ndarray, quads: Sequence[NailQuad], masks: Sequence[NailMask | None],
                  segmenter: NailSegmenter, *, held: Sequence[NailMask] = (),
                  refine_edges: bool = True) -> tuple[list[NailQuad], list[NailMask | None]]:
    """The full-frame nails (`quads`, `masks` of FullFrameModel.nails on `image`) that `segmenter` agrees with, each
    with the segmenter's mask. held: the nails this check passed on the previous video frame (see the module)."""
    found = segmenter.segment_nails(image, list(quads), refine_edges=refine_edges) if quads else []
    kept_quads: list[NailQuad] = []
    kept_masks: list[NailMask | None] = []
    for quad, proposal, nail in zip(quads, masks, found, strict=True):
        if proposal is None or nail is None:
            continue
        mask = nail.mask
        area = painted_area(mask)
        if area == 0:
            continue
        same_as_before = any(painted_overlap(mask, before) >= HELD_OVERLAP * area for before in held)
        if same_as_before or agreement(proposal, mask) >= AGREEMENT:
            kept_quads.append(quad)
            kept_masks.append(mask)
    return kept_quads, kept_masks


def carried_nails(image: np.ndarray, before: Sequence[FallbackNail], kept: Sequence[NailMask | None],
                  segmenter: NailSegmenter, *, carry_frames: int = CARRY_FRAMES,
                  refine_edges: bool = True) -> list[FallbackNail]:
    """The nails of the last video frame (`before`) that this frame's checked nails (`kept`) do not cover, each asked
    of `segmenter` again at its last quad and kept while its new mask lies on its old one (HELD_OVERLAP), for at most
    `carry_frames` frames in a row with no proposal."""
    painted = [mask for mask in kept if mask is not None]
    wanted = [nail for nail in before if nail.unproposed < carry_frames
              and not any(painted_overlap(nail.mask, other) for other in painted)]
    if not wanted:
        return []
    found = segmenter.segment_nails(image, [nail.mask.quad for nail in wanted], refine_edges=refine_edges)
    carried = []
    for nail, again in zip(wanted, found, strict=True):
        if again is None:
            continue
        area = painted_area(again.mask)
        if area and painted_overlap(again.mask, nail.mask) >= HELD_OVERLAP * area:
            carried.append(FallbackNail(again.mask, nail.unproposed + 1))
    return carried
