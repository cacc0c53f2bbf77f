"""The full-frame nail model: the still path's fallback where no hand is found (issue #23 point 4; §3, §11).

A close-up of fingertips with no palm gives the landmarker nothing to hold, so the per-nail ROIs never exist. This
model (models/nail_full_frame.onnx, trained by tools/train_full_frame_model.py; the model card's "Full-frame
fallback") looks at the whole photo instead: letterboxed to SIZE × SIZE (scaled to fit, centred on black), BGR in
[0, 1], input "image" float32 (1, 3, SIZE, SIZE), output "logits" (1, 1, SIZE, SIZE).

Each nail component of its map (at least MIN_AREA grid pixels) becomes a NailMask, its edge resolved at the photo's
own pixels as the ROI path's are (`mask_resolve.resolve_mask`: cubic upsampling, the guided filter along the
photo's edges, an anti-aliased level line), and a NailQuad along the nail's own long axis (its minimum-area
rectangle), so patterns, gloss and cat-eye lie along each nail. Which end is the free edge: the finger goes on
past the cuticle, so the end with more skin past it (or that runs out of the frame, as a finger entering a
close-up does) is the cuticle; a component with no skin past either end is on no finger and is dropped.

Loaded lazily, sha256-checked before onnxruntime opens it (core/model_version.py FULL_FRAME_SHA256), one intra-op
thread; it runs only when the hand search found no hand, so the normal path pays nothing for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.core.model_version import FULL_FRAME_SHA256
from nailmirror_desktop.vision.nails.mask_resolve import resolve_mask
from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.nail_segmenter import sigmoid
from nailmirror_desktop.vision.nails.onnx_files import one_thread_session, verified_file
from nailmirror_desktop.vision.types import NailQuad

MODEL_NAME = "nail_full_frame.onnx"
WHAT = "full-frame nail model"  # how its errors name it
SIZE = 96  # the model's input side (tools/train_full_frame_model.py SIZE)
# The product checks every nail with the ROI segmenter (full_frame_check.py), which drops most wrong components, so
# the map is cut lower than the 0.7 the model alone needed for the precision floor (0.89): on the close-ups,
# out of sample, 263 nails at precision 0.924 against 249 at 0.919 (the model card's "Full-frame fallback")
DEFAULT_THRESHOLD = 0.5
MIN_AREA = 8  # grid pixels: a smaller component is a speck, not a nail at this scale
# The texture needs a finger: a full-frame nail has no hand, so it is painted as a plain (non-accent) finger.
FINGER = Finger.MIDDLE
# a common fixed skin box in YCrCb (Chai and Ngan): enough to tell finger from table past a nail's two ends
SKIN_CR, SKIN_CB = (133, 173), (77, 127)
MIN_FINGER_SKIN = 0.25  # a nail needs at least this share of skin past one of its ends (its finger)
_FIX = ("restore models/nail_full_frame.onnx from git (`git checkout -- models/nail_full_frame.onnx`), or rebuild "
        "it with `.venv-train/bin/python tools/train_full_frame_model.py final` (see models/NAIL_SEGMENTER_CARD.md)")


class FullFrameModelError(RuntimeError):
    """The full-frame nail model is missing, corrupt or not the verified build."""


def default_model_path() -> Path:
    from nailmirror_desktop.core.paths import models_dir

    return models_dir() / MODEL_NAME


def verify_model(path: Path, expected_sha256: str = FULL_FRAME_SHA256) -> Path:
    """Return `path` if it is the verified model, else raise FullFrameModelError naming the fix."""
    return verified_file(path, expected_sha256, what=WHAT, fix=_FIX, error=FullFrameModelError)


def letterbox_transform(shape: tuple[int, ...], size: int = SIZE) -> tuple[int, int, int, int, NDArray[np.float64]]:
    """For an (H, W, …) image letterboxed to size × size: (x0, y0, width, height) of the image on the grid and the
    (3, 3) map from grid pixel centres to frame pixel centres."""
    h, w = shape[:2]
    scale = size / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    x0, y0 = (size - nw) // 2, (size - nh) // 2
    sx, sy = w / nw, h / nh
    to_frame = np.array([[sx, 0.0, (0.5 - x0) * sx - 0.5], [0.0, sy, (0.5 - y0) * sy - 0.5], [0.0, 0.0, 1.0]])
    return x0, y0, nw, nh, to_frame


def letterboxed(image: NDArray[np.uint8], size: int = SIZE) -> NDArray[np.float32]:
    """(H, W, 3) uint8 BGR → the model's (1, 3, size, size) float32 input in [0, 1]."""
    x0, y0, nw, nh, _ = letterbox_transform(image.shape, size)
    canvas = np.zeros((size, size, 3), np.uint8)
    canvas[y0:y0 + nh, x0:x0 + nw] = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA)
    batch = canvas.astype(np.float32) * np.float32(1.0 / 255.0)
    return np.ascontiguousarray(batch.transpose(2, 0, 1)[None])


def _session(path: Path) -> Any:  # onnxruntime.InferenceSession
    return one_thread_session(path, what=WHAT, fix=_FIX, error=FullFrameModelError)


class FullFrameModel:
    """Loads and verifies the ONNX model at construction (raises FullFrameModelError naming the fix)."""

    def __init__(self, path: Path | None = None, *, threshold: float = DEFAULT_THRESHOLD,
                 expected_sha256: str = FULL_FRAME_SHA256) -> None:
        self.path = verify_model(default_model_path() if path is None else path, expected_sha256)
        self.threshold = threshold
        self._session = _session(self.path)
        self._input = self._session.get_inputs()[0].name
        self.size = int(self._session.get_inputs()[0].shape[-1])

    def probabilities(self, image: NDArray[np.uint8]) -> NDArray[np.float32]:
        """(size, size) nail probabilities of `image` ((H, W, 3) uint8 BGR) letterboxed."""
        logits = self._session.run(None, {self._input: letterboxed(image, self.size)})[0]
        return sigmoid(np.asarray(logits)[0, 0])

    def nails(self, image: NDArray[np.uint8]) -> tuple[list[NailQuad], list[NailMask | None]]:
        """The nails of `image` ((H, W, 3) uint8 BGR): one oriented NailQuad and its NailMask each, as the still
        path paints them (hand_index 0, full opacity)."""
        return nails_from_probability(self.probabilities(image), image, self.threshold)


def nails_from_probability(prob: NDArray[np.float32], image: NDArray[np.uint8],
                           threshold: float) -> tuple[list[NailQuad], list[NailMask | None]]:
    """The full-frame model's (s, s) letterboxed map → (quads, masks) at `image`'s own pixels."""
    _, _, _, _, to_frame = letterbox_transform(image.shape, prob.shape[0])
    count, labels, stats, _ = cv2.connectedComponentsWithStats((prob >= threshold).astype(np.uint8), connectivity=8)
    quads: list[NailQuad] = []
    masks: list[NailMask | None] = []
    for label in range(1, count):
        if stats[label, cv2.CC_STAT_AREA] < MIN_AREA:
            continue
        keep = labels == label
        placeholder = NailQuad(FINGER, np.zeros((4, 2), np.float32), 0, 1.0)
        resolved = resolve_mask(prob, keep, placeholder, to_frame, image, threshold)
        if resolved is None:
            continue
        quad = oriented_quad(resolved, image)
        if quad is None:
            continue
        quads.append(quad)
        masks.append(NailMask(quad, resolved.roi, resolved.alpha, resolved.refined))
    return quads, masks


def oriented_quad(mask: NailMask, image: NDArray[np.uint8]) -> NailQuad | None:
    """The nail's minimum-area rectangle as a NailQuad (tip edge first: corners[0], corners[1]), long side along
    the finger; None for a mask with fewer than three painted pixels."""
    inside = (mask.alpha >= 0.5).astype(np.uint8)
    if np.count_nonzero(inside) < 3:
        return None
    # the outline's points give the same rectangle as all the pixels, for a fraction of them on a large photo
    contours, _ = cv2.findContours(inside, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    points = np.concatenate(contours).reshape(-1, 2) + np.array([mask.roi.x0, mask.roi.y0])
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(points.astype(np.float32))
    theta = np.radians(angle)
    u = np.array([np.cos(theta), np.sin(theta)])  # along the rectangle's width side
    v = np.array([-np.sin(theta), np.cos(theta)])
    if rw >= rh:
        along, length, across, width = u, rw + 1.0, v, rh + 1.0
    else:
        along, length, across, width = v, rh + 1.0, u, rw + 1.0
    centre = np.array([cx, cy]) + 0.5  # pixel centres → edge coordinates (NailQuad's)
    skin_plus, skin_minus = _end_skin(image, centre, along, length, width)
    if max(skin_plus, skin_minus) < MIN_FINGER_SKIN:
        return None  # no finger past either end: polish-like colour on something else (a cup, a bottle)
    if skin_plus > skin_minus:
        along = -along  # the cuticle is at the +along end: `along` now points from the cuticle to the tip
    across = np.array([-along[1], along[0]])
    tip, base = centre + along * length / 2, centre - along * length / 2
    half = across * width / 2
    corners = np.array([tip - half, tip + half, base + half, base - half], np.float32)
    return NailQuad(FINGER, corners, 0, 1.0)


def _end_skin(image: NDArray[np.uint8], centre: np.ndarray, along: np.ndarray, length: float,
              width: float) -> tuple[float, float]:
    """The skin share past the +along and the −along end of a nail: the finger goes on past the cuticle (a patch
    out of the frame counts as finger: fingers enter a close-up from its edge)."""
    radius = max(1.0, 0.35 * width)
    plus, minus = (_skin_share(image, centre + s * along * (0.5 * length + 0.5 * width), radius) for s in (1, -1))
    return plus, minus


def _skin_share(image: NDArray[np.uint8], point: np.ndarray, radius: float) -> float:
    """The share of skin-coloured pixels (a fixed YCrCb box) in the square of `radius` around `point`; 1.0 when
    `point` is out of the frame."""
    h, w = image.shape[:2]
    x, y, r = int(round(point[0])), int(round(point[1])), int(np.ceil(radius))
    if not (0 <= x < w and 0 <= y < h):
        return 1.0
    patch = image[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1]
    ycrcb = cv2.cvtColor(np.ascontiguousarray(patch), cv2.COLOR_BGR2YCrCb).reshape(-1, 3)
    cr, cb = ycrcb[:, 1].astype(np.int16), ycrcb[:, 2].astype(np.int16)
    return float(np.mean((cr >= SKIN_CR[0]) & (cr <= SKIN_CR[1]) & (cb >= SKIN_CB[0]) & (cb <= SKIN_CB[1])))
