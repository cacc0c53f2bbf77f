"""Faces in a capture, found with OpenCV's Haar cascades shipped inside the pinned opencv-python-headless wheel
(cv2/data/, carried into the store bundle by build.spec): nothing is downloaded, and no second model runtime.

Frontal faces use `haarcascade_frontalface_alt2` (6 neighbours), profiles `haarcascade_profileface` both ways
(the image and its mirror: the cascade only knows one side). Both at ≥ 40 px on the image scaled to ≤ 640 px.
alt2 was chosen over `default` because on hand photos `default` finds "faces" in knuckles and nail art (the
commit body gives the counts), and a false face blurs part of a hand; a real face missed is worse, so a kept
capture is blurred at every box found and checked again (capture.py drops it if a face is still found).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

FRONTAL = "haarcascade_frontalface_alt2.xml"
PROFILE = "haarcascade_profileface.xml"
CASCADES = (FRONTAL, PROFILE)
SCAN_SIDE = 640  # px: the longest side a scan works on (faces ≥ 40 px at this scale)
MIN_FACE = 40
FRONTAL_NEIGHBOURS = 6
PROFILE_NEIGHBOURS = 6


class DetectorMissing(RuntimeError):
    """A cascade file is not where the OpenCV wheel (or the store bundle) should have it: no capture is kept."""


def cascade_dir() -> Path:
    return Path(cv2.data.haarcascades)  # type: ignore[attr-defined]


def cascade_paths() -> tuple[Path, ...]:
    return tuple(cascade_dir() / name for name in CASCADES)


@dataclass(frozen=True)
class FaceBox:
    """Image pixels; right and bottom exclusive."""

    left: int
    top: int
    right: int
    bottom: int


class FaceFinder:
    """Loads both cascades once (tens of milliseconds); `find` is a few tens of ms on a 640 px image."""

    def __init__(self) -> None:
        self._frontal = _load(cascade_dir() / FRONTAL)
        self._profile = _load(cascade_dir() / PROFILE)

    def find(self, image: NDArray[np.uint8]) -> list[FaceBox]:
        """Faces in `image` ((H, W, 3) uint8 BGR), in its pixels."""
        height, width = image.shape[:2]
        scale = min(1.0, SCAN_SIDE / max(height, width, 1))
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        if scale < 1.0:
            grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        grey = cv2.equalizeHist(grey)
        found: list[tuple[int, int, int, int]] = []
        found += _boxes(self._frontal, grey, FRONTAL_NEIGHBOURS)
        found += _boxes(self._profile, grey, PROFILE_NEIGHBOURS)
        flipped = cv2.flip(grey, 1)
        found += [(grey.shape[1] - x - w, y, w, h) for x, y, w, h in _boxes(self._profile, flipped,
                                                                              PROFILE_NEIGHBOURS)]
        return [FaceBox(int(x / scale), int(y / scale), min(width, int((x + w) / scale) + 1),
                        min(height, int((y + h) / scale) + 1)) for x, y, w, h in found]


def _load(path: Path) -> cv2.CascadeClassifier:
    if not path.is_file():
        raise DetectorMissing(f"face detector not found: {path}")
    cascade = cv2.CascadeClassifier(str(path))
    if cascade.empty():
        raise DetectorMissing(f"face detector unreadable: {path}")
    return cascade


def _boxes(cascade: cv2.CascadeClassifier, grey: np.ndarray, neighbours: int) -> list[tuple[int, int, int, int]]:
    hits = cascade.detectMultiScale(grey, scaleFactor=1.1, minNeighbors=neighbours, minSize=(MIN_FACE, MIN_FACE))
    return [(int(x), int(y), int(w), int(h)) for x, y, w, h in hits]


def blur_faces(image: NDArray[np.uint8], faces: list[FaceBox], grow: float = 0.25) -> NDArray[np.uint8]:
    """A copy of `image` with each face box (grown by `grow` of its size each way) pixelated to 6×6 blocks and
    then blurred: nothing of a face's features survives, the hands elsewhere are untouched."""
    out = image.copy()
    height, width = image.shape[:2]
    for face in faces:
        pad_x = int((face.right - face.left) * grow)
        pad_y = int((face.bottom - face.top) * grow)
        left, top = max(0, face.left - pad_x), max(0, face.top - pad_y)
        right, bottom = min(width, face.right + pad_x), min(height, face.bottom + pad_y)
        if right <= left or bottom <= top:
            continue
        region = out[top:bottom, left:right]
        small = cv2.resize(region, (6, 6), interpolation=cv2.INTER_AREA)
        blocky = cv2.resize(small, (right - left, bottom - top), interpolation=cv2.INTER_NEAREST)
        size = max(3, (min(right - left, bottom - top) // 4) | 1)
        out[top:bottom, left:right] = cv2.GaussianBlur(blocky, (size, size), 0)
    return out
