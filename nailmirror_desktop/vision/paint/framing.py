"""Framing the painted hands for a picture to keep (the take-home card, the phone's share image): a box around
the painted nails and the fingers they sit on, with a margin, then widened to the shape of the panel it fills.

Pure functions over the pipeline's result (TryOnResult.quads and .hands), in frame pixels. A whole 1280×720
frame shrunk onto a phone shows each nail a few millimetres wide; the box keeps the hands and drops the room.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nailmirror_desktop.vision.types import FINGER_LANDMARKS, HandObservation, NailQuad

MARGIN_NAILS = 1.0  # around the painted nails and their fingers, in nail lengths: the fingertips keep some air


@dataclass(frozen=True)
class Box:
    """A rectangle of frame pixels; `right` and `bottom` exclusive (numpy's image[top:bottom, left:right])."""

    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top

    @property
    def aspect(self) -> float:
        return self.width / max(1, self.height)

    def as_tuple(self) -> tuple[int, int, int, int]:
        return self.left, self.top, self.right, self.bottom

    @classmethod
    def from_tuple(cls, values: Sequence[int]) -> Box:
        left, top, right, bottom = (int(v) for v in values)
        return cls(left, top, right, bottom)


def painted_hands_box(quads: Sequence[NailQuad], hands: Sequence[HandObservation], frame_size: tuple[int, int],
                      margin: float = MARGIN_NAILS) -> Box | None:
    """The painted nails (opacity > 0), the fingers they sit on (knuckle to tip) and `margin` nail lengths
    around them, inside the frame (`frame_size`: width, height); None when no nail is painted."""
    painted = [q for q in quads if q.opacity > 0]
    width, height = frame_size
    if not painted or width <= 0 or height <= 0:
        return None
    points = [np.asarray(q.corners, np.float32).reshape(4, 2) for q in painted]
    for quad in painted:
        if 0 <= quad.hand_index < len(hands):
            joints = list(FINGER_LANDMARKS[quad.finger])
            points.append(np.asarray(hands[quad.hand_index].landmarks, np.float32)[joints, :2])
    every = np.concatenate(points)
    pad = margin * float(np.median([_nail_length(q) for q in painted]))
    left = int(np.floor(max(0.0, float(every[:, 0].min()) - pad)))
    top = int(np.floor(max(0.0, float(every[:, 1].min()) - pad)))
    right = int(np.ceil(min(float(width), float(every[:, 0].max()) + pad)))
    bottom = int(np.ceil(min(float(height), float(every[:, 1].max()) + pad)))
    if right <= left or bottom <= top:  # every point outside the frame
        return None
    return Box(left, top, right, bottom)


def fit_aspect(box: Box, aspect: float, frame_size: tuple[int, int], min_height: int = 0) -> Box:
    """`box` grown (never shrunk) about its centre to `aspect` (width / height) and at least `min_height` tall
    (how far a panel may enlarge the frame), moved to stay inside the frame. Where the frame is too small for
    that shape the box stops at its edges, so the panel shows it whole with a border instead of cutting a nail."""
    frame_w, frame_h = frame_size
    width, height = float(box.width), max(float(box.height), float(min_height))
    width = max(width, height * aspect)
    height = max(height, width / aspect)
    width, height = min(width, float(frame_w)), min(height, float(frame_h))
    centre_x, centre_y = (box.left + box.right) / 2, (box.top + box.bottom) / 2
    left = min(max(centre_x - width / 2, 0.0), frame_w - width)
    top = min(max(centre_y - height / 2, 0.0), frame_h - height)
    return Box(round(left), round(top), round(left + width), round(top + height))


def _nail_length(quad: NailQuad) -> float:
    """From the middle of the free edge (corners 0, 1) to the middle of the cuticle (corners 2, 3)."""
    corners = np.asarray(quad.corners, np.float32).reshape(4, 2)
    return float(np.hypot(*((corners[0] + corners[1]) / 2 - (corners[2] + corners[3]) / 2)))
