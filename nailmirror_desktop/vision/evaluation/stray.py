"""Painted nails off their fingers, and nails left bare, in one video frame (benchmarks/stray_nails.py, tests).

Judged against reference hands of the same frame (landmarks (21, 3) frame pixels: the benchmark takes a
landmarker that saw every frame, so a skipped frame or a lost hand in the run judged does not move them):

- stray: a painted nail (opacity > 0) whose painted centre (its mask's, else its quad's) lies further than
  OFF_FINGER_LENGTHS of its own length from the distal bone (DIP→TIP, run on TIP_REACH past the tip, where the
  nail's free edge is) of its finger on every reference hand. The landmarks err by about a nail's width, and
  a painted nail sits on its bone, so one length is a margin, and a nail in the air or on the palm is several;
- bare: a reference nail facing the camera (geometry's fade ≥ nail_tracks.ON_AT) with no painted nail of its
  finger within one of its lengths.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.nails.geometry import nail_quads_for_hands
from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.nail_tracks import ON_AT
from nailmirror_desktop.vision.types import FINGER_LANDMARKS, HandObservation, NailQuad

OFF_FINGER_LENGTHS = 1.0
TIP_REACH = 0.3  # of the distal bone's length


@dataclass(frozen=True)
class FrameCheck:
    """One frame: painted nails, how many of them are stray, reference nails facing the camera, how many bare."""

    painted: int
    stray: int
    facing: int
    bare: int


def check_frame(quads: Sequence[NailQuad], masks: Sequence[NailMask | None] | None,
                reference: Sequence[HandObservation], *, mirrored: bool) -> FrameCheck:
    """quads and masks: what the pipeline painted (TryOnResult.quads, .masks); reference: the frame's hands;
    mirrored: as the pipeline's (the reference nails' facing fade depends on it)."""
    masks = masks if masks is not None else [None] * len(quads)
    painted = [(quad, _painted_centre(quad, mask)) for quad, mask in zip(quads, masks, strict=True)
               if quad.opacity > 0]
    stray = sum(1 for quad, centre in painted if off_finger(quad, centre, reference))
    facing = [quad for quad in nail_quads_for_hands(list(reference), mirrored=mirrored) if quad.opacity >= ON_AT]
    bare = 0
    for nail in facing:
        centre, length = _centre(nail), nail.length
        if not any(quad.finger is nail.finger and float(np.linalg.norm(at - centre)) <= length
                   for quad, at in painted):
            bare += 1
    return FrameCheck(len(painted), stray, len(facing), bare)


def off_finger(quad: NailQuad, centre: NDArray[np.float64], reference: Sequence[HandObservation]) -> bool:
    """Whether a nail painted at `centre` (frame pixels) lies off its finger on every reference hand."""
    _, _, dip, tip = FINGER_LANDMARKS[quad.finger]
    limit = OFF_FINGER_LENGTHS * max(quad.length, 1.0)
    for hand in reference:
        start = hand.landmarks[dip, :2].astype(np.float64)
        bone = hand.landmarks[tip, :2].astype(np.float64) - start
        along = float(np.dot(centre - start, bone)) / max(float(np.dot(bone, bone)), 1e-9)
        nearest = start + min(max(along, 0.0), 1.0 + TIP_REACH) * bone
        if float(np.linalg.norm(centre - nearest)) <= limit:
            return False
    return True


def _painted_centre(quad: NailQuad, mask: NailMask | None) -> NDArray[np.float64]:
    if mask is not None:
        rows, cols = np.nonzero(mask.alpha > 0.5)
        if len(cols):
            return np.array([cols.mean() + mask.roi.x0, rows.mean() + mask.roi.y0])
    return _centre(quad)


def _centre(quad: NailQuad) -> NDArray[np.float64]:
    centre: NDArray[np.float64] = np.asarray(quad.corners, np.float64).mean(axis=0)
    return centre


