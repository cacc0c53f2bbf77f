"""The per-nail refiner on synthetic fingers with known nails, and its masks through the compositor."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nailmirror_desktop.vision.nails.nail_refiner import RefinerSettings, refine_nail, refine_nails
from nailmirror_desktop.vision.paint.compositor import Compositor, coverage_mask
from nailmirror_desktop.vision.paint.polish_mask import painted_mask
from nailmirror_desktop.vision.types import Finger, NailQuad

SKIN = (140, 165, 215)  # BGR
BACKGROUND = (60, 60, 60)
POLISH = (40, 30, 200)  # red polish
FRAME = (400, 400)
FINGER_X = (160, 240)  # a vertical finger, tip up at y=80, running down off the frame


def _finger_scene(nail_colour, nail_box, seed=0) -> np.ndarray:
    """A grey background, a skin-coloured finger (rounded tip) and an elliptic nail inside `nail_box`
    (x0, y0, x1, y1); mild noise so the colour models have a spread."""
    frame = np.zeros((*FRAME, 3), np.uint8)
    frame[:] = BACKGROUND
    x0, x1 = FINGER_X
    cv2.rectangle(frame, (x0, 120), (x1, FRAME[0]), SKIN, -1)
    cv2.ellipse(frame, ((x0 + x1) // 2, 120), ((x1 - x0) // 2, 40), 0, 180, 360, SKIN, -1)
    bx0, by0, bx1, by1 = nail_box
    cv2.ellipse(frame, ((bx0 + bx1) // 2, (by0 + by1) // 2), ((bx1 - bx0) // 2, (by1 - by0) // 2), 0, 0, 360,
                nail_colour, -1)
    noise = np.random.default_rng(seed).normal(0, 4, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


def _blob(nail_box) -> np.ndarray:
    mask = np.zeros(FRAME, np.uint8)
    bx0, by0, bx1, by1 = nail_box
    cv2.ellipse(mask, ((bx0 + bx1) // 2, (by0 + by1) // 2), ((bx1 - bx0) // 2, (by1 - by0) // 2), 0, 0, 360, 1, -1)
    return mask > 0


def _quad(x0, y0, x1, y1, opacity=1.0) -> NailQuad:
    """An axis-aligned nail quad, free edge on top (NailQuad order)."""
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    return NailQuad(Finger.INDEX, corners, 0, opacity)


def _painted(mask_result) -> np.ndarray:
    full = np.zeros(FRAME, bool)
    full[mask_result.roi.slices] = mask_result.alpha >= 0.5
    return full


def _prior(quad) -> np.ndarray:
    return coverage_mask([quad], (*FRAME, 3)) > 0


def _iou(a, b) -> float:
    return float((a & b).sum() / max((a | b).sum(), 1))


# the landmark quad is too big and off-centre: the nail is the left-lower part of it
PRIOR = (165, 85, 235, 185)
NAIL = (170, 95, 220, 180)


def test_a_polished_nail_is_found_inside_the_prior():
    image = _finger_scene(POLISH, NAIL)
    quad = _quad(*PRIOR)
    result = refine_nail(image, quad)
    painted, truth, prior = _painted(result), _blob(NAIL), _prior(quad)
    assert result.refined
    assert _iou(painted, truth) > 0.8
    assert _iou(painted, truth) > _iou(prior, truth) + 0.1  # better than the prior it started from
    # never painted beyond a dilated prior
    grown = cv2.dilate(prior.astype(np.uint8), np.ones((31, 31), np.uint8)) > 0
    assert not (painted & ~grown).any()


def test_the_refined_quad_bounds_the_refined_mask():
    image = _finger_scene(POLISH, NAIL)
    result = refine_nail(image, _quad(*PRIOR))
    ys, xs = np.nonzero(_painted(result))
    corners = result.quad.corners
    assert corners[:, 0].min() - 2 <= xs.min() and xs.max() <= corners[:, 0].max() + 2
    assert corners[:, 1].min() - 2 <= ys.min() and ys.max() <= corners[:, 1].max() + 2
    assert result.quad.finger == Finger.INDEX and result.quad.opacity == 1.0


def test_a_nail_the_colour_of_the_skin_keeps_the_prior():
    image = _finger_scene(SKIN, NAIL)  # nothing tells the nail from the finger
    quad = _quad(*PRIOR)
    result = refine_nail(image, quad)
    painted, prior = _painted(result), _prior(quad)
    assert _iou(painted, prior) > 0.95  # neither shrunk to a guess nor grown into the finger


def test_a_flat_image_falls_back_to_the_prior():
    image = np.full((*FRAME, 3), SKIN, np.uint8)
    quad = _quad(*PRIOR)
    result = refine_nail(image, quad)
    assert not result.refined
    assert _iou(_painted(result), _prior(quad)) > 0.9


def test_a_speck_of_colour_is_not_taken_for_the_nail():
    speck = (195, 125, 203, 135)  # a dot of polish far smaller than any nail the prior allows
    image = _finger_scene(POLISH, speck)
    quad = _quad(*PRIOR)
    result = refine_nail(image, quad)
    assert _iou(_painted(result), _prior(quad)) > 0.95


def test_quads_off_the_image_or_not_painted_give_no_mask():
    image = _finger_scene(POLISH, NAIL)
    hidden = _quad(*PRIOR, opacity=0.0)
    outside = _quad(500, 500, 560, 580)
    degenerate = _quad(200, 100, 200.5, 100.5)
    masks = refine_nails(image, [hidden, outside, degenerate, _quad(*PRIOR)])
    assert masks[0] is None and masks[1] is None and masks[2] is None
    assert masks[3] is not None and masks[3].refined


def test_a_nail_at_the_frame_edge_stays_in_the_frame():
    image = _finger_scene(POLISH, NAIL)
    result = refine_nail(image, _quad(-20, 85, 50, 185))
    assert result is not None
    assert result.roi.x0 >= 0 and result.roi.x1 <= FRAME[1]
    assert result.alpha.shape == (result.roi.height, result.roi.width)


def test_compositor_paints_exactly_the_refined_coverage():
    image = _finger_scene(POLISH, NAIL)
    quads = [_quad(*PRIOR), _quad(*PRIOR, opacity=0.0)]
    masks = refine_nails(image, quads)
    blue = np.full((40, 30, 3), (255, 0, 0), np.uint8)
    result = Compositor(blue).composite(image, quads, want_coverage=True, masks=masks)
    expected = coverage_mask(quads, image.shape, masks)
    np.testing.assert_array_equal(result.coverage, expected)
    # what is painted is the mask as the compositor paints it (stretched toward the tip, anti-aliased)
    np.testing.assert_array_equal(expected > 0, _painted(painted_mask(masks[0], image.shape)))
    changed = np.any(result.frame != image, axis=2)
    near = cv2.dilate(expected, np.ones((5, 5), np.uint8)) > 0
    assert not (changed & ~near).any()
    assert changed[expected > 0].mean() > 0.95
    # painted blue where covered: the polish colour replaced
    painted = result.frame[expected > 0].astype(int)
    assert (painted[:, 0] - painted[:, 2]).mean() > 40


def test_masks_must_match_the_quads():
    image = _finger_scene(POLISH, NAIL)
    with pytest.raises(ValueError):
        coverage_mask([_quad(*PRIOR)], image.shape, [])
    with pytest.raises(ValueError):
        Compositor(np.zeros((4, 4, 3), np.uint8)).composite(image, [_quad(*PRIOR)], masks=[None, None])


def test_feathering_does_not_move_the_outline():
    image = _finger_scene(POLISH, NAIL)
    sharp = refine_nail(image, _quad(*PRIOR), RefinerSettings(feather_px=0.3))
    soft = refine_nail(image, _quad(*PRIOR), RefinerSettings(feather_px=3.0))
    assert _iou(_painted(sharp), _painted(soft)) > 0.97
    assert ((soft.alpha > 0) & (soft.alpha < 1)).sum() > ((sharp.alpha > 0) & (sharp.alpha < 1)).sum()
