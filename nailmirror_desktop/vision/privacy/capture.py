"""A capture's image and facts from a still the customer (or staff) consented to keep (issue #26 §2).

`prepare_capture(frame, result, finder)`: the still cropped to the hands (vision/paint/framing.py's box around the
nails and their fingers), every face found in the crop blurred (faces.py) and the crop checked again: a face
still found drops the capture (None, with the reason). The PNG is encoded by OpenCV from pixels, so it carries no
EXIF or other metadata. The facts kept beside it: the landmarks and the model's nail quads (crop pixels), the
model's proposed nail mask (a 0/255 PNG of the crop, base64), the frame's size and the light (mean and spread
of the crop's luma), and how many faces were blurred.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.paint.compositor import coverage_mask
from nailmirror_desktop.vision.paint.framing import Box, painted_hands_box
from nailmirror_desktop.vision.pipeline import TryOnResult
from nailmirror_desktop.vision.privacy.faces import FaceFinder, blur_faces


@dataclass(frozen=True)
class PreparedCapture:
    png: bytes  # (h, w, 3) BGR crop as PNG, faces blurred, no metadata
    facts: dict[str, Any]
    faces_blurred: int


@dataclass(frozen=True)
class Refused:
    reason: str  # no_hands | face_remains


def prepare_capture(frame: NDArray[np.uint8], result: TryOnResult, finder: FaceFinder, *,
                    camera: dict[str, Any] | None = None) -> PreparedCapture | Refused:
    """`frame`: the still ((H, W, 3) uint8 BGR, unpainted); `result`: the still path's result on it (hands,
    quads, masks). Refused when no nail was found (nothing worth keeping) or a face survives the blur."""
    height, width = frame.shape[:2]
    box = painted_hands_box(result.quads, result.hands, (width, height))
    if box is None:
        return Refused("no_hands")
    crop = np.ascontiguousarray(frame[box.top:box.bottom, box.left:box.right])
    faces = finder.find(crop)
    if faces:
        crop = blur_faces(crop, faces)
        if finder.find(crop):
            return Refused("face_remains")
    ok, encoded = cv2.imencode(".png", crop)
    if not ok:
        raise OSError("CAPTURE_ENCODE_FAILED")
    return PreparedCapture(encoded.tobytes(), _facts(frame, result, box, crop, len(faces), camera or {}), len(faces))


def _facts(frame: NDArray[np.uint8], result: TryOnResult, box: Box, crop: NDArray[np.uint8], faces: int,
           camera: dict[str, Any]) -> dict[str, Any]:
    offset = np.array([box.left, box.top], np.float32)
    mask = coverage_mask(result.quads, frame.shape, result.masks)[box.top:box.bottom, box.left:box.right]
    ok, mask_png = cv2.imencode(".png", mask)
    luma = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    return {
        "frame": {"width": int(frame.shape[1]), "height": int(frame.shape[0])},
        "crop": {"left": box.left, "top": box.top, "width": box.width, "height": box.height},
        "hands": [{"handedness": hand.handedness, "score": round(float(hand.score), 3),
                   "landmarks": [[round(float(x) - float(offset[0]), 1), round(float(y) - float(offset[1]), 1)]
                                 for x, y in np.asarray(hand.landmarks, np.float32)[:, :2]]}
                  for hand in result.hands],
        "nails": [{"finger": quad.finger.name.lower(), "hand": quad.hand_index,
                   "opacity": round(float(quad.opacity), 3),
                   "corners": [[round(float(x), 1), round(float(y), 1)]
                               for x, y in np.asarray(quad.corners, np.float32).reshape(4, 2) - offset]}
                  for quad in result.quads],
        "proposed_mask_png_b64": base64.b64encode(mask_png.tobytes()).decode("ascii") if ok else "",
        "light": {"luma_mean": round(float(luma.mean()), 1), "luma_std": round(float(luma.std()), 1)},
        "camera": camera,
        "faces_blurred": faces,
    }
