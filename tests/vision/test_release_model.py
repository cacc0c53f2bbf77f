"""A nail model release loaded in a second onnxruntime session and checked before it may run
(vision/nails/release_model.py), with real model files: the bundled model as a release, a truncated file, one
that answers in another shape, one whose file is not the release's; and the pipelines' shared holder
(vision/nails/active_models.py) swapping the segmenter between frames."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

from nailmirror_desktop.core.model_releases.store import ModelReleaseRow
from nailmirror_desktop.core.model_releases.switch import ModelLoadFailed
from nailmirror_desktop.vision.nails import nail_segmenter
from nailmirror_desktop.vision.nails.active_models import ActiveSegmenters
from nailmirror_desktop.vision.nails.release_model import ReleaseLoader, load_release, sample_rois
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from tests.support.onnx_models import conv_model, write_model

BUNDLED = nail_segmenter.default_model_path()
BUNDLED_STILL = nail_segmenter.default_model_path(nail_segmenter.STILL_MODEL)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def row(path: Path, *, digest: str | None = None, threshold: object = None, release: int = 5) -> ModelReleaseRow:
    digest = digest or sha(path)
    manifest: dict[str, object] = {"version": f"nail_segmenter-{digest[:12]}", "sha256": digest}
    if threshold is not None:
        manifest["threshold"] = threshold
    return ModelReleaseRow("live", release, f"nail_segmenter-{digest[:12]}", digest, path.stat().st_size, manifest,
                           str(path), "verified", "", "2026-12-05T02:00:00.000Z")


def test_a_release_file_is_checked_against_its_own_sha256_and_runs_with_its_threshold(tmp_path):
    copy = Path(shutil.copy(BUNDLED, tmp_path / "release.onnx"))
    segmenter = ReleaseLoader().load(row(copy, threshold=0.8))
    assert segmenter.path == copy and segmenter.threshold == 0.8
    assert segmenter.probabilities(list(sample_rois())).shape == (4, 64, 64)
    other = write_model(tmp_path / "other.onnx", conv_model())  # not the bundled build: its own hash is what counts
    assert ReleaseLoader().load(row(other)).threshold == nail_segmenter.DEFAULT_THRESHOLD


def test_a_truncated_file_fails_to_load_in_one_line(tmp_path):
    data = BUNDLED.read_bytes()
    cut = write_model(tmp_path / "cut.onnx", data[: len(data) // 3])
    with pytest.raises(ModelLoadFailed, match=r"^onnxruntime: ") as failed:
        ReleaseLoader().load(row(cut))
    assert "\n" not in str(failed.value)


def test_a_model_answering_in_another_shape_is_refused_by_the_sample_batch(tmp_path):
    two = write_model(tmp_path / "two.onnx", conv_model(channels_out=2))
    with pytest.raises(ModelLoadFailed, match=r"answers \[4, 2, 64, 64\] to a \[4, 3, 64, 64\] batch"):
        ReleaseLoader().load(row(two))


def test_a_model_answering_nan_is_refused(tmp_path):
    nan = write_model(tmp_path / "nan.onnx", conv_model(bias=float("nan")))
    with pytest.raises(ModelLoadFailed, match="not finite"):
        ReleaseLoader().load(row(nan))


def test_a_file_that_is_not_the_release_or_is_gone_is_refused(tmp_path):
    copy = Path(shutil.copy(BUNDLED, tmp_path / "release.onnx"))
    with pytest.raises(ModelLoadFailed, match=r"sha256"):
        ReleaseLoader().load(row(copy, digest="ab" * 32))
    with pytest.raises(ModelLoadFailed, match="threshold"):
        ReleaseLoader().load(row(copy, threshold=3))
    with pytest.raises(ModelLoadFailed, match="file missing"):
        load_release(tmp_path / "gone.onnx", "ab" * 32)


def test_the_pipelines_run_the_installed_release_and_the_bundled_one_again_when_it_goes(tmp_path):
    blind = ReleaseLoader().load(row(write_model(tmp_path / "blind.onnx", conv_model(bias=-8.0))))
    active = ActiveSegmenters()
    with TryOnPipeline(Compositor(), active=active) as pipeline:
        bundled = pipeline.segmenter()
        bundled_still = pipeline.still_segmenter()
        assert bundled.path == BUNDLED and bundled_still.path == BUNDLED_STILL
        active.live = blind  # the switch: one assignment
        # a live release does not replace the stills' larger bundled build
        assert pipeline.segmenter() is blind and pipeline.still_segmenter() is bundled_still
        still = ReleaseLoader().load(row(Path(shutil.copy(BUNDLED, tmp_path / "still.onnx")), release=6))
        active.still = still
        assert pipeline.segmenter() is blind and pipeline.still_segmenter() is still
        active.live = active.still = None
        assert pipeline.segmenter() is bundled and pipeline.still_segmenter() is bundled_still
    assert np.all(blind.probabilities(list(sample_rois())) < 0.01)  # the blind model sees no nail anywhere
