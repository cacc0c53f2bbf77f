"""Plain data passed between the vision stages. Pixel coordinates are in the frame's own (x right, y down)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.core.fingers import Finger

__all__ = ["FINGER_LANDMARKS", "WRIST", "Finger", "HandObservation", "Landmarks", "NailQuad"]


# MediaPipe hand landmark ids per finger: (MCP, PIP, DIP, TIP); for the thumb (CMC, MCP, IP, TIP).
FINGER_LANDMARKS: dict[Finger, tuple[int, int, int, int]] = {
    Finger.THUMB: (1, 2, 3, 4),
    Finger.INDEX: (5, 6, 7, 8),
    Finger.MIDDLE: (9, 10, 11, 12),
    Finger.RING: (13, 14, 15, 16),
    Finger.PINKY: (17, 18, 19, 20),
}
WRIST = 0

Landmarks = NDArray[np.floating[Any]]
"""(21, 3) hand landmarks in frame pixels (x, y, z): float32 from the tracker, float64 inside the geometry."""


@dataclass(frozen=True, eq=False)
class HandObservation:
    """One hand as the tracker saw it.

    landmarks: (21, 3) float32 — x, y in frame pixels; z in pixels too (MediaPipe's relative depth × frame
    width), smaller is nearer the camera.
    handedness: 'Left' or 'Right' exactly as MediaPipe labels it (see geometry for mirror handling).
    score: handedness/presence confidence in [0, 1].
    """

    landmarks: NDArray[np.float32]
    handedness: str
    score: float


@dataclass(frozen=True, eq=False)
class NailQuad:
    """Where one nail is, as a quad the nail texture maps onto.

    corners: (4, 2) float32 frame pixels in the order the texture's corners map to:
    texture (0,0) top-left → corners[0], (w,0) → corners[1], (w,h) → corners[2], (0,h) → corners[3].
    The texture's top edge is the nail's free edge (tip) and its bottom edge the cuticle.
    opacity: in [0, 1]; 0 means do not paint (palm side, low confidence); in-between fades.
    """

    finger: Finger
    corners: NDArray[np.float32]
    hand_index: int
    opacity: float = 1.0

    @property
    def length(self) -> float:
        """Frame pixels from the cuticle edge's midpoint to the tip edge's."""
        corners = np.asarray(self.corners, np.float64)
        return float(np.linalg.norm(0.5 * (corners[0] + corners[1]) - 0.5 * (corners[2] + corners[3])))
