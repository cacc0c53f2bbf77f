"""A nail's mask resolved at the frame's own pixels from the segmenter's coarse probabilities (mask_resolve)."""

import cv2
import numpy as np

from nailmirror_desktop.vision.evaluation.boundary import boundary_counts, outline
from nailmirror_desktop.vision.nails import mask_resolve, nail_rois
from nailmirror_desktop.vision.types import Finger, NailQuad

SHAPE = (600, 800)
SKIN, NAIL = (150, 170, 215), (60, 40, 200)  # BGR: skin and a red polish


def _scene(offset: float = 0.0) -> tuple[np.ndarray, np.ndarray, NailQuad]:
    """A red nail (an ellipse drawn at 1/16 px precision) on skin, its true mask, and its landmark quad, which
    sits `offset` px off the nail's centre across the finger (landmark error)."""
    centre, axes, angle = (400.3, 300.6), (46.0, 30.0), 20.0  # a big nail: ~5 frame px per ROI px
    truth = np.zeros(SHAPE, np.uint8)
    shift = 16
    cv2.ellipse(truth, (round(centre[0] * shift), round(centre[1] * shift)),
                (round(axes[0] / 2 * shift), round(axes[1] / 2 * shift)), angle + 90, 0, 360, 255, -1, cv2.LINE_AA,
                4)
    image = np.empty((*SHAPE, 3), np.uint8)
    image[:] = SKIN
    a = truth.astype(np.float32)[..., None] / 255.0
    image = np.clip(image * (1 - a) + np.array(NAIL, np.float32) * a + 0.5, 0, 255).astype(np.uint8)
    theta = np.radians(angle)
    up = np.array([np.sin(theta), -np.cos(theta)])
    right = np.array([-up[1], up[0]])
    c = np.array(centre) + right * offset
    tip, cut = c + up * axes[0] / 2, c - up * axes[0] / 2
    corners = [tip - right * axes[1] / 2, tip + right * axes[1] / 2, cut + right * axes[1] / 2,
               cut - right * axes[1] / 2]
    return image, truth >= 128, NailQuad(Finger.INDEX, np.array(corners, np.float32), 0)


def _model_probability(truth: np.ndarray, to_frame: np.ndarray) -> np.ndarray:
    """What a segmenter sees at ROI resolution: the truth on the 64 × 64 grid, blurred by a pixel."""
    coarse = nail_rois.crop(truth.astype(np.float32), to_frame, interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.GaussianBlur(coarse, (0, 0), 1.0), np.float32)


def _painted(mask, shape=SHAPE) -> np.ndarray:
    painted = np.zeros(shape, bool)
    painted[mask.roi.slices] = mask.alpha >= 0.5
    return painted


def test_the_resolved_edge_follows_the_nail_at_frame_pixels_where_the_pasted_one_steps():
    image, truth, quad = _scene()
    (roi,) = nail_rois.nail_rois(image, [quad])
    assert roi is not None
    prob = _model_probability(truth, roi.to_frame)
    keep = prob >= 0.5
    pasted = nail_rois.paste_mask(keep, roi, SHAPE)
    resolved = mask_resolve.resolve_mask(prob, keep, quad, roi.to_frame, image, 0.5, refine=False)
    refined = mask_resolve.resolve_mask(prob, keep, quad, roi.to_frame, image, 0.5)
    assert pasted is not None and resolved is not None and refined is not None
    # outline pixels exactly on the true outline (tolerance 0), and pixels painted wrong
    scores = [boundary_counts(truth, _painted(m), 0.0).f1 for m in (pasted, resolved, refined)]
    wrong = [np.count_nonzero(_painted(m) ^ truth) for m in (pasted, resolved, refined)]
    assert scores[0] < scores[1] < scores[2] and scores[2] > 0.9
    assert wrong[0] > wrong[1] > wrong[2] and wrong[2] < wrong[0] / 4
    # anti-aliased: the alpha ramps across the edge within about a pixel
    edge = (refined.alpha > 0.05) & (refined.alpha < 0.95)
    assert edge.any() and np.count_nonzero(edge) < 3.0 * np.count_nonzero(outline(refined.alpha >= 0.5))


def test_a_neighbouring_nail_in_the_probabilities_is_cut_away():
    image, truth, quad = _scene()
    (roi,) = nail_rois.nail_rois(image, [quad])
    assert roi is not None
    prob = _model_probability(truth, roi.to_frame)
    prob[20:44, 0:8] = 1.0  # a neighbour at the ROI's edge, apart from ours
    keep = nail_rois.expected_component(prob >= 0.5, prob, nail_rois.expected_nail(quad))
    mask = mask_resolve.resolve_mask(prob, keep, quad, roi.to_frame, image, 0.5)
    assert mask is not None
    neighbour = np.zeros((64, 64), np.float32)
    neighbour[20:44, 0:8] = 1.0
    neighbour_frame = cv2.warpAffine(neighbour, roi.to_frame[:2], SHAPE[::-1], flags=cv2.INTER_NEAREST) > 0
    assert not (_painted(mask) & neighbour_frame).any()


def test_a_flat_crop_keeps_the_models_edge():
    image, truth, quad = _scene()
    flat = np.full_like(image, 128)
    (roi,) = nail_rois.nail_rois(image, [quad])
    assert roi is not None
    prob = _model_probability(truth, roi.to_frame)
    crop = np.full((40, 50, 3), 128, np.uint8)
    window = prob[10:50, 5:55].copy()
    np.testing.assert_array_equal(mask_resolve.refined_probability(window, crop, 3), window)
    with_flat = mask_resolve.resolve_mask(prob, prob >= 0.5, quad, roi.to_frame, flat, 0.5)
    unrefined = mask_resolve.resolve_mask(prob, prob >= 0.5, quad, roi.to_frame, image, 0.5, refine=False)
    assert with_flat is not None and unrefined is not None
    np.testing.assert_allclose(with_flat.alpha, unrefined.alpha, atol=1e-6)  # (SIMD rounding may differ)


def test_level_alpha_is_half_on_the_level_line_and_ramps_a_pixel():
    ramp = np.tile(np.linspace(0.0, 1.0, 21, dtype=np.float32), (3, 1))  # 0.05 a pixel
    alpha = mask_resolve.level_alpha(ramp, 0.5)
    assert alpha[1, 10] == 0.5
    assert alpha[1, 9] == 0.0 and alpha[1, 11] == 1.0
