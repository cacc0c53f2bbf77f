"""The nail segmenter's loader (verified like the hand model) and its inference on ROIs."""

import shutil

import cv2
import numpy as np
import pytest

from nailmirror_desktop.vision.nails import nail_segmenter
from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter, NailSegmenterError
from nailmirror_desktop.vision.types import Finger, NailQuad

MODEL = nail_segmenter.default_model_path()


@pytest.fixture(scope="module")
def segmenter() -> NailSegmenter:
    return NailSegmenter()


def _quad(cx, cy, length=24, width=16, hand=0, opacity=1.0, finger=Finger.INDEX) -> NailQuad:
    corners = np.array([[cx - width / 2, cy - length / 2], [cx + width / 2, cy - length / 2],
                        [cx + width / 2, cy + length / 2], [cx - width / 2, cy + length / 2]], np.float32)
    return NailQuad(finger, corners, hand, opacity)


def _painted_finger(shape=(240, 320)) -> tuple[np.ndarray, np.ndarray, NailQuad]:
    """A finger (skin) with a red-polished nail on it, tip up, and its true nail mask."""
    image = np.full((*shape, 3), (60, 70, 80), np.uint8)
    cx, cy = shape[1] // 2, shape[0] // 2
    cv2.rectangle(image, (cx - 14, cy - 20), (cx + 14, shape[0]), (140, 170, 215), -1)
    cv2.ellipse(image, (cx, cy - 20), (14, 14), 0, 180, 360, (140, 170, 215), -1)
    truth = np.zeros(shape, np.uint8)
    cv2.ellipse(truth, ((cx, cy - 12), (20, 28), 0), 255, -1)
    image[truth > 0] = (40, 30, 190)
    rng = np.random.default_rng(3)
    image = np.clip(image + rng.normal(0, 3, image.shape), 0, 255).astype(np.uint8)
    return image, truth, _quad(cx, cy - 12, 28, 20)


def test_shipped_model_is_the_verified_build():
    assert nail_segmenter.verify_model(MODEL) == MODEL


def test_the_still_build_is_its_own_verified_file_with_its_own_threshold():
    still = nail_segmenter.bundled_segmenter(nail_segmenter.STILL_MODEL)
    assert still.path.name == "nail_segmenter_still.onnx" and still.path != MODEL
    assert still.threshold == nail_segmenter.STILL_MODEL.threshold != nail_segmenter.DEFAULT_THRESHOLD
    with pytest.raises(NailSegmenterError, match="sha256"):  # the live build is not the still one
        NailSegmenter(MODEL, expected_sha256=nail_segmenter.STILL_MODEL.sha256)


def test_the_still_build_finds_the_polished_nail_too():
    image, truth, quad = _painted_finger()
    (mask,) = nail_segmenter.bundled_segmenter(nail_segmenter.STILL_MODEL).segment(image, [quad])
    assert mask is not None
    painted = np.zeros(truth.shape, bool)
    painted[mask.roi.slices] = mask.alpha >= 0.5
    on = truth > 0
    assert np.count_nonzero(on & painted) / np.count_nonzero(on | painted) > 0.5


def test_a_missing_still_build_names_its_own_rebuild(tmp_path):
    with pytest.raises(NailSegmenterError, match=r"not found.*git checkout -- models/nail_segmenter_still.onnx.*"
                                                 r"final --inner 64"):
        NailSegmenter(tmp_path / "nail_segmenter_still.onnx")


def test_missing_model_names_the_fix(tmp_path):
    with pytest.raises(NailSegmenterError, match=r"not found.*git checkout -- models/nail_segmenter.onnx.*"
                                                 r"train_nail_model.py"):
        NailSegmenter(tmp_path / "nail_segmenter.onnx")


def test_corrupt_model_is_refused_before_onnxruntime_sees_it(tmp_path):
    bad = tmp_path / "nail_segmenter.onnx"
    data = MODEL.read_bytes()
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(NailSegmenterError, match=r"corrupt or not the verified build.*train_nail_model.py"):
        NailSegmenter(bad)


def test_wrong_checksum_is_refused(tmp_path):
    other = tmp_path / "nail_segmenter.onnx"
    shutil.copy(MODEL, other)
    with pytest.raises(NailSegmenterError, match="sha256"):
        NailSegmenter(other, expected_sha256="0" * 64)


def test_a_file_that_is_not_onnx_gets_the_same_clear_error(tmp_path):
    import hashlib

    junk = tmp_path / "nail_segmenter.onnx"
    junk.write_bytes(b"this is not an onnx graph")
    digest = hashlib.sha256(junk.read_bytes()).hexdigest()
    with pytest.raises(NailSegmenterError, match="cannot be loaded.*git checkout"):
        NailSegmenter(junk, expected_sha256=digest)


def test_session_runs_one_thread_without_spinning(segmenter):
    options = segmenter._session.get_session_options()
    assert options.intra_op_num_threads == 1 and options.inter_op_num_threads == 1
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_probabilities_are_per_roi_and_batch_independent(segmenter):
    rng = np.random.default_rng(0)
    images = [rng.integers(0, 255, (64, 64, 3), dtype=np.uint8) for _ in range(5)]
    batch = segmenter.probabilities(images)
    assert batch.shape == (5, 64, 64) and batch.dtype == np.float32
    assert np.all((batch >= 0) & (batch <= 1))
    single = segmenter.probabilities(images[2:3])
    np.testing.assert_allclose(single[0], batch[2], atol=1e-5)
    assert segmenter.probabilities([]).shape == (0, 64, 64)


def test_segment_finds_a_polished_nail_where_the_quad_is(segmenter):
    image, truth, quad = _painted_finger()
    (mask,) = segmenter.segment(image, [quad])
    assert mask is not None and mask.refined and mask.quad.finger is Finger.INDEX
    painted = np.zeros(truth.shape, bool)
    painted[mask.roi.slices] = mask.alpha >= 0.5
    on = truth > 0
    assert np.count_nonzero(on & painted) / np.count_nonzero(on | painted) > 0.5


def test_segment_gives_one_entry_per_quad_in_order(segmenter):
    image, _, quad = _painted_finger()
    hidden = _quad(40, 40, opacity=0.0)
    flat = NailQuad(Finger.PINKY, np.zeros((4, 2), np.float32), 1)
    other_hand = NailQuad(quad.finger, quad.corners, 1)
    masks = segmenter.segment(image, [hidden, quad, flat, other_hand])
    assert len(masks) == 4 and masks[0] is None and masks[2] is None
    assert masks[1] is not None and masks[3] is not None and masks[3].quad.hand_index == 1
    np.testing.assert_allclose(masks[1].alpha, masks[3].alpha)


def test_model_card_names_the_shipped_checksums():
    card = (MODEL.parent / "NAIL_SEGMENTER_CARD.md").read_text(encoding="utf-8")
    assert nail_segmenter.MODEL_SHA256 in card and nail_segmenter.STILL_MODEL.sha256 in card


def test_a_prior_on_no_part_falls_back_to_the_expected_place_not_to_nothing():
    from nailmirror_desktop.vision.nails import nail_rois

    image = np.full((240, 320, 3), 128, np.uint8)
    quad = _quad(160, 120, length=40, width=28)
    (roi,) = nail_rois.nail_rois(image, [quad])
    assert roi is not None
    prob = np.zeros((64, 64), np.float32)
    prob[8:22, 26:38] = 0.9  # the nail, a landmark error up from the quad's centre (past the old centre rule)
    far = nail_rois.paste_mask(np.pad(np.ones((6, 6), bool), ((0, 58), (0, 58))), roi, image.shape)
    assert far is not None  # a prior in the ROI's corner, on no part of the model's mask
    found = nail_segmenter.nail_from_probability(prob, roi, image, 0.5, far)
    assert found is not None and found.roi_mask[15, 32] and found.roi_mask.sum() == 14 * 12
