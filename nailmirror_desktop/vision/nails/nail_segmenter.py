"""The learned per-nail segmenter: a tiny U-Net (see models/NAIL_SEGMENTER_CARD.md) run by onnxruntime on each
nail's ROI (vision/nails/nail_rois.py). The kiosk ships two builds of one recipe: the live mirror's
(models/nail_segmenter.onnx, 32 × 32 inside, within the 4 ms a hand of a camera frame) and the stills'
(models/nail_segmenter_still.onnx, 64 × 64 inside: cleaner edges and fewer spills for about 4× the time, which a
photo can spend). Same contract, each with its own pinned sha256 and threshold (`LIVE_MODEL`, `STILL_MODEL`).

Input contract: float32 (N, 3, 64, 64), BGR channels, values in [0, 1] (uint8 / 255), the nail-aligned ROI of
nail_rois (tip up). Output: (N, 1, 64, 64) logits of "nail pixel". The ROI is thresholded, only the component that
best matches the nail the quad expects is kept (the crop also shows the neighbouring nails), and its
probabilities are resolved at the frame's own pixels (`mask_resolve.py`) as a NailMask, the same type the GrabCut
refiner returns, so the compositor paints it as it is.

The file is verified by sha256 before onnxruntime opens it, like the hand model (vision/tracking/hand_model.py).
One session runs one intra-op thread with spinning off (the kiosk's cores belong to the video loop), one batch
per hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.core.model_version import SEGMENTER_SHA256, STILL_SEGMENTER_SHA256
from nailmirror_desktop.vision.nails.mask_resolve import resolve_mask
from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.nail_rois import (
    ROI_SIZE,
    NailRoi,
    component_on,
    expected_component,
    expected_nail,
    mask_on_grid,
    nail_rois,
)
from nailmirror_desktop.vision.nails.onnx_files import one_thread_session, verified_file
from nailmirror_desktop.vision.types import NailQuad

MODEL_NAME = "nail_segmenter.onnx"
MODEL_SHA256 = SEGMENTER_SHA256  # core/model_version.py: the name HQ and the captures know it by
# chosen on the 5-fold out-of-fold maps scored as painted (models/NAIL_SEGMENTER_CARD.md): 0.55 keeps the widest
# margin over every photo target at once (IoU 0.644, recall 0.759, precision 0.870; 0.5 left precision at 0.862)
DEFAULT_THRESHOLD = 0.55
WHAT = "nail segmenter model"  # how its errors name it
TRAINING_LIST = "nail_segmenter_training.txt"  # both builds are trained on the same photos


@dataclass(frozen=True)
class BundledModel:
    """A segmenter build the kiosk ships: its file under models/, its pinned sha256, the threshold chosen for it on
    the out-of-fold maps, and the trainer's arguments that rebuild it."""

    file: str
    sha256: str
    threshold: float
    rebuild: str


LIVE_MODEL = BundledModel(MODEL_NAME, MODEL_SHA256, DEFAULT_THRESHOLD, "final")
# 0.65: the out-of-fold maps of the 64-inside recipe (models/NAIL_SEGMENTER_CARD.md, "The still model") keep
# precision at 0.905 from 0.60 up; 0.65 holds a step of margin (0.915) for photos unlike the 52, for IoU 0.713
# against 0.717 and the same recall (0.831)
STILL_MODEL = BundledModel("nail_segmenter_still.onnx", STILL_SEGMENTER_SHA256, 0.65,
                           "final --inner 64 --out models/nail_segmenter_still.onnx")


def _fix(path: Path) -> str:
    model = STILL_MODEL if path.name == STILL_MODEL.file else LIVE_MODEL
    return (f"restore models/{model.file} from git (`git checkout -- models/{model.file}`), or rebuild it with "
            f"`.venv-train/bin/python tools/train_nail_model.py {model.rebuild}` (see models/NAIL_SEGMENTER_CARD.md)")


@dataclass(frozen=True, eq=False)
class SegmentedNail:
    """One nail the model found: mask in the frame, and roi_mask ((64, 64) bool) on its quad's ROI grid."""

    mask: NailMask
    roi_mask: NDArray[np.bool_]


class NailSegmenterError(RuntimeError):
    """The nail segmenter model is missing, corrupt or not the verified build."""


def verify_model(path: Path, expected_sha256: str = MODEL_SHA256) -> Path:
    """Return `path` if it is the verified model, else raise NailSegmenterError naming the fix."""
    return verified_file(path, expected_sha256, what=WHAT, fix=_fix(path), error=NailSegmenterError)


def training_photos() -> set[str]:
    """File names of the photos the committed model was trained on (models/nail_segmenter_training.txt), so
    an evaluation can say which of its figures are in-sample."""
    listing = default_model_path().with_name(TRAINING_LIST)
    try:
        return {line.strip() for line in listing.read_text(encoding="utf-8").splitlines() if line.strip()}
    except OSError:
        return set()


def default_model_path(model: BundledModel = LIVE_MODEL) -> Path:
    from nailmirror_desktop.core.paths import models_dir

    return models_dir() / model.file


def bundled_segmenter(model: BundledModel = LIVE_MODEL) -> NailSegmenter:
    """A shipped build, verified and opened (raises NailSegmenterError naming the fix)."""
    return NailSegmenter(default_model_path(model), threshold=model.threshold, expected_sha256=model.sha256)


def _session(path: Path) -> Any:  # onnxruntime.InferenceSession
    return one_thread_session(path, what=WHAT, fix=_fix(path), error=NailSegmenterError)


def to_batch(images: list[NDArray[np.uint8]]) -> NDArray[np.float32]:
    """(N, 64, 64, 3) uint8 BGR ROIs → the model's (N, 3, 64, 64) float32 input in [0, 1]."""
    batch = np.stack(images).astype(np.float32) * np.float32(1.0 / 255.0)
    return np.ascontiguousarray(batch.transpose(0, 3, 1, 2))


def sigmoid(logits: np.ndarray) -> NDArray[np.float32]:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * logits.astype(np.float32))), np.float32)


def masks_from_probabilities(probs: np.ndarray, rois: list[NailRoi], image: NDArray[np.uint8],
                             threshold: float = DEFAULT_THRESHOLD) -> list[NailMask | None]:
    """probs: (N, 64, 64) nail probabilities for `rois` of `image` ((H, W, 3) uint8 BGR) → one NailMask per ROI,
    as the product makes it (None: the model saw no nail there, so nothing should be painted)."""
    if len(probs) != len(rois):
        raise ValueError(f"{len(probs)} probability maps for {len(rois)} ROIs")
    out: list[NailMask | None] = []
    for prob, roi in zip(probs, rois, strict=True):
        found = nail_from_probability(np.asarray(prob, np.float32), roi, image, threshold)
        out.append(None if found is None else found.mask)
    return out


def nail_from_probability(prob: NDArray[np.float32], roi: NailRoi, image: NDArray[np.uint8], threshold: float,
                          prior: NailMask | None = None, *, refine_edges: bool = True) -> SegmentedNail | None:
    """One ROI's (64, 64) probabilities → the nail it shows, at the frame's own pixels (`mask_resolve`; its edge
    refined along the photo's edges when `refine_edges`), or None. The component kept is the one that best
    matches the nail the quad expects (`nail_rois.expected_component`), or (video) the one on where the nail was
    painted before."""
    found = prob >= threshold
    roi_mask = None if prior is None else component_on(found, mask_on_grid(prior, roi.to_frame))
    if roi_mask is None or not roi_mask.any():
        roi_mask = expected_component(found, prob, expected_nail(roi.quad))
    mask = resolve_mask(prob, roi_mask, roi.quad, roi.to_frame, image, threshold, refine=refine_edges)
    return None if mask is None else SegmentedNail(mask, roi_mask)


class NailSegmenter:
    """Loads and verifies the ONNX model at construction (raises NailSegmenterError naming the fix)."""

    def __init__(self, path: Path | None = None, *, threshold: float = DEFAULT_THRESHOLD,
                 expected_sha256: str = MODEL_SHA256) -> None:
        self.path = verify_model(default_model_path() if path is None else path, expected_sha256)
        self.threshold = threshold
        self._session = _session(self.path)
        self._input = self._session.get_inputs()[0].name

    @property
    def session(self) -> Any:  # onnxruntime.InferenceSession: a release's check runs its sample batch on it
        return self._session

    @property
    def input_name(self) -> str:
        return str(self._input)

    def probabilities(self, images: list[NDArray[np.uint8]]) -> NDArray[np.float32]:
        """(N, 64, 64) nail probabilities for N ROIs ((64, 64, 3) uint8 BGR), as one batch."""
        if not images:
            return np.zeros((0, ROI_SIZE, ROI_SIZE), np.float32)
        logits = self._session.run(None, {self._input: to_batch(images)})[0]
        return sigmoid(np.asarray(logits)[:, 0])

    def segment(self, image: NDArray[np.uint8], quads: list[NailQuad]) -> list[NailMask | None]:
        """One entry per quad of `image` ((H, W, 3) uint8 BGR): its NailMask, or None where the quad is unpainted
        (opacity 0), degenerate, or the model finds no nail at its centre. Each hand's ROIs run as one batch."""
        return [None if found is None else found.mask for found in self.segment_nails(image, quads)]

    def segment_nails(self, image: NDArray[np.uint8], quads: list[NailQuad],
                      priors: list[NailMask | None] | None = None, *,
                      refine_edges: bool = True) -> list[SegmentedNail | None]:
        """As `segment`, keeping each nail's ROI-space mask too (video carries it to the next frames). priors:
        per quad, where that nail was painted on the previous frame (video): the part of the model's mask on
        it is kept rather than the one at the expected place (`nail_rois.component_on`). refine_edges: move
        each edge onto the photo's own (`mask_resolve.refined_probability`, ~0.4 ms a nail): stills; video,
        within its budget a hand, takes the smoothly resolved edge without it."""
        rois = nail_rois(image, quads)
        out: list[SegmentedNail | None] = [None] * len(quads)
        for hand in sorted({q.hand_index for q in quads}):
            rows = [i for i, (q, roi) in enumerate(zip(quads, rois, strict=True))
                    if q.hand_index == hand and roi is not None]
            chosen = [roi for i in rows if (roi := rois[i]) is not None]
            if not chosen:
                continue
            probs = self.probabilities([roi.image for roi in chosen])
            for i, prob, roi in zip(rows, probs, chosen, strict=True):
                out[i] = nail_from_probability(prob, roi, image, self.threshold,
                                               None if priors is None else priors[i], refine_edges=refine_edges)
        return out
