"""A nail model release loaded beside the running one and checked before it may run (issue #27 §7).

`ReleaseLoader.load(row)` (core/model_releases/switch.py's ModelLoader port, on a worker, never the camera's
thread): the release's file is checked against the release's own sha256 (not the bundled MODEL_SHA256), opened in
a second onnxruntime session with the manifest's threshold when it names one, and run once on `sample_rois()`:
the answer must be (N, 1, 64, 64) and finite. Whatever fails is one line (ModelLoadFailed) and the running model
is untouched.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.core.model_releases.store import ModelReleaseRow
from nailmirror_desktop.core.model_releases.switch import ModelLoadFailed
from nailmirror_desktop.vision.nails.nail_rois import ROI_SIZE
from nailmirror_desktop.vision.nails.nail_segmenter import (
    DEFAULT_THRESHOLD,
    NailSegmenter,
    NailSegmenterError,
    to_batch,
)

SAMPLE_COUNT = 4  # a batch, not one ROI: a graph with a fixed batch of 1 must fail here, not on a two-nail hand


def sample_rois() -> NDArray[np.uint8]:
    """(SAMPLE_COUNT, 64, 64, 3) uint8 BGR: the same every time, a nail (polished, bare, dark, light) on skin, tip
    up, as nail_rois crops them. Only the answer's shape and finiteness are checked, not what it finds."""
    yy, xx = np.mgrid[0:ROI_SIZE, 0:ROI_SIZE].astype(np.float32)
    nail = ((xx - 32) / 14) ** 2 + ((yy - 28) / 20) ** 2 <= 1.0
    skins = [(140, 170, 215), (120, 150, 200), (70, 95, 140), (170, 195, 235)]
    polishes = [(40, 30, 190), (150, 175, 225), (30, 30, 40), (230, 230, 240)]
    batch = np.empty((SAMPLE_COUNT, ROI_SIZE, ROI_SIZE, 3), np.uint8)
    for i, (skin, polish) in enumerate(zip(skins, polishes, strict=True)):
        batch[i] = skin
        batch[i][nail] = polish
    return batch


def load_release(path: Path, sha256: str, threshold: float | None = None) -> NailSegmenter:
    """The release's segmenter, loaded and checked (raises ModelLoadFailed with one line)."""
    if not path.is_file():
        raise ModelLoadFailed(f"file missing: {path.name}")
    try:
        segmenter = NailSegmenter(path, threshold=DEFAULT_THRESHOLD if threshold is None else threshold,
                                  expected_sha256=sha256)
    except NailSegmenterError as error:
        cause = error.__cause__
        raise ModelLoadFailed("not the file its release names (sha256)" if cause is None
                              else f"onnxruntime: {_first_line(cause)}") from error
    check_answer(segmenter)
    return segmenter


def check_answer(segmenter: NailSegmenter) -> None:
    """Run the sample batch once: (N, 1, 64, 64) finite logits, else ModelLoadFailed."""
    batch = to_batch(list(sample_rois()))
    try:
        answer = np.asarray(segmenter.session.run(None, {segmenter.input_name: batch})[0])
    except Exception as error:  # onnxruntime raises its own types for a graph that cannot take the batch
        raise ModelLoadFailed(f"sample batch: {_first_line(error)}") from error
    expected = (SAMPLE_COUNT, 1, ROI_SIZE, ROI_SIZE)
    if answer.shape != expected:
        raise ModelLoadFailed(f"answers {list(answer.shape)} to a {list(batch.shape)} batch, not {list(expected)}")
    if not np.isfinite(answer).all():
        raise ModelLoadFailed("answers with values that are not finite")


class ReleaseLoader:
    """core/model_releases/switch.py's ModelLoader, with this module's loading and check."""

    def load(self, release: ModelReleaseRow) -> NailSegmenter:
        if release.path is None:
            raise ModelLoadFailed("no verified file")
        threshold = release.manifest.get("threshold")
        if threshold is not None and not (isinstance(threshold, int | float) and 0.0 < float(threshold) < 1.0):
            raise ModelLoadFailed(f"threshold {threshold!r} is not between 0 and 1")
        return load_release(Path(release.path), release.sha256, None if threshold is None else float(threshold))


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return (text.splitlines()[0] if text else type(error).__name__)[:160]
