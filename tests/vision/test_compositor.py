"""Compositor: painting textures onto nail quads — bounds, colour, shading, opacity and accents. (The warp's
geometry is in test_warp.py, the nail's alpha shape in test_nail_shape.py.)"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nailmirror_desktop.vision.nails.warp import quad_roi
from nailmirror_desktop.vision.paint.compositor import (
    Compositor,
    coverage_mask,
    paint_nail,
    paint_nails,
    prepare_texture,
)
from nailmirror_desktop.vision.types import Finger, NailQuad
from tests.support.nail_quads import PARALLELOGRAM, TILTED

RED = (0, 0, 255)


def _quad(corners, finger=Finger.INDEX, opacity=1.0) -> NailQuad:
    return NailQuad(finger, np.asarray(corners, np.float32), 0, opacity)


def _nail_scene(seed: int = 0) -> np.ndarray:
    """A 480×640 skin-coloured frame with noise, a brightness gradient and a highlight streak."""
    rng = np.random.default_rng(seed)
    frame = np.zeros((480, 640, 3), np.float32)
    frame[:] = (150, 170, 215)  # BGR skin/nail pink
    ramp = np.linspace(0.6, 1.1, 640, dtype=np.float32)[None, :, None]
    frame *= ramp
    cv2.line(frame, (305, 215), (335, 280), (255, 255, 255), 4)
    frame += rng.normal(0, 6, frame.shape).astype(np.float32)
    return np.clip(frame, 0, 255).astype(np.uint8)


def _circular_mean_hue_deg(bgr_pixels: np.ndarray) -> float:
    hsv = cv2.cvtColor(bgr_pixels.reshape(-1, 1, 3), cv2.COLOR_BGR2HSV_FULL).reshape(-1, 3)
    angles = hsv[:, 0].astype(np.float64) / 256 * 2 * np.pi
    weights = hsv[:, 1].astype(np.float64)
    mean = np.arctan2((np.sin(angles) * weights).sum(), (np.cos(angles) * weights).sum())
    return float(np.degrees(mean))


def test_pixels_outside_every_quad_box_are_bit_exact():
    frame = _nail_scene()
    quads = [_quad(TILTED), _quad(TILTED + [150, -40], Finger.RING, 0.6)]
    result = Compositor(np.full((50, 50, 3), RED, np.uint8)).composite(frame, quads)
    changed = np.any(result.frame != frame, axis=2)
    allowed = np.zeros(frame.shape[:2], bool)
    for quad in quads:
        allowed[quad_roi(quad.corners, frame.shape).slices] = True
    assert changed.any()
    assert not (changed & ~allowed).any()
    assert not np.shares_memory(result.frame, frame)


def test_red_texture_turns_the_nail_red_and_keeps_its_shading():
    frame = _nail_scene()
    quad = _quad(TILTED)
    result = Compositor(np.full((80, 60, 3), RED, np.uint8)).composite(frame, [quad], want_coverage=True)
    painted = result.coverage == 255
    assert painted.sum() > 2000
    hue = _circular_mean_hue_deg(result.frame[painted])
    assert abs(hue) < 20, hue
    before = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)[painted].astype(float)
    after = cv2.cvtColor(result.frame, cv2.COLOR_BGR2GRAY)[painted].astype(float)
    assert np.corrcoef(before, after)[0, 1] > 0.5
    assert after.std() > 0.3 * before.std(), "the painted nail is flat: it would read as a sticker"


def test_red_on_a_real_nail_photo(nails_eval_dir):
    """Fit a quad to a real nail from the masks, paint it red: red hue, not flat, the photo's brightest nail
    pixels (its highlights) stay brighter than the rest, nothing else touched."""
    image_path = sorted((nails_eval_dir / "images").iterdir())[0]
    frame = cv2.imread(str(image_path))
    mask = cv2.imread(str(nails_eval_dir / "masks" / (image_path.stem + ".png")), cv2.IMREAD_GRAYSCALE)
    assert frame is not None and mask is not None
    count, labels, stats, _ = cv2.connectedComponentsWithStats((mask > 127).astype(np.uint8))
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    points = np.argwhere(labels == biggest)[:, ::-1].astype(np.float32)
    corners = cv2.boxPoints(cv2.minAreaRect(points)).astype(np.float32)
    result = Compositor(np.full((64, 48, 3), RED, np.uint8)).composite(frame, [_quad(corners)], want_coverage=True)
    painted = result.coverage == 255
    assert painted.sum() > 200
    assert abs(_circular_mean_hue_deg(result.frame[painted])) < 25
    before = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)[painted].astype(float)
    after = cv2.cvtColor(result.frame, cv2.COLOR_BGR2GRAY)[painted].astype(float)
    assert after.std() > 4, "the painted nail is flat: it would read as a sticker"
    brightest = before >= np.percentile(before, 97)
    assert after[brightest].mean() > np.median(after) + 5
    changed = np.any(result.frame != frame, axis=2)
    assert not (changed & ~(cv2.dilate(result.coverage, np.ones((5, 5), np.uint8)) > 0)).any()


def test_transparent_texture_leaves_the_frame_unchanged():
    frame = _nail_scene()
    clear = np.zeros((64, 64, 4), np.uint8)
    clear[..., 2] = 255  # red, but alpha 0
    result = Compositor(clear).composite(frame, [_quad(TILTED)], want_coverage=True)
    np.testing.assert_array_equal(result.frame, frame)
    assert not result.coverage.any()


def test_texture_alpha_multiplies_the_nail_alpha():
    frame = _nail_scene()
    half = np.zeros((64, 64, 4), np.uint8)
    half[..., 2] = 255
    half[:32, :, 3] = 255  # only the free-edge half is opaque
    result = Compositor(half).composite(frame, [_quad(TILTED)], want_coverage=True)
    full_cover = coverage_mask([_quad(TILTED)], frame.shape)
    assert 0.3 < (result.coverage > 0).sum() / (full_cover > 0).sum() < 0.7
    ys = np.argwhere(result.coverage)[:, 0]
    assert ys.max() < np.argwhere(full_cover)[:, 0].max() - 10  # the cuticle half is not painted


def test_opacity_fades_and_zero_opacity_paints_nothing():
    frame = _nail_scene()
    red = np.full((40, 40, 3), RED, np.uint8)
    compositor = Compositor(red)
    full = compositor.composite(frame, [_quad(TILTED, opacity=1.0)]).frame.astype(int)
    faded = compositor.composite(frame, [_quad(TILTED, opacity=0.4)]).frame.astype(int)
    none = compositor.composite(frame, [_quad(TILTED, opacity=0.0)], want_coverage=True)
    np.testing.assert_array_equal(none.frame, frame)
    assert not none.coverage.any()
    region = coverage_mask([_quad(TILTED)], frame.shape) > 0
    dist_full = np.abs(full - frame)[region].mean()
    dist_faded = np.abs(faded - frame)[region].mean()
    assert 0.2 * dist_full < dist_faded < 0.6 * dist_full


@pytest.mark.parametrize("texture_shape", [(1, 1, 3), (3, 400, 3), (900, 7, 4), (2000, 1500, 3)])
def test_textures_of_any_size_and_aspect(texture_shape):
    texture = np.zeros(texture_shape, np.uint8)
    texture[..., 2] = 255
    if texture_shape[2] == 4:
        texture[..., 3] = 255
    frame = _nail_scene()
    result = Compositor(texture).composite(frame, [_quad(TILTED)], want_coverage=True)
    painted = result.coverage == 255
    np.testing.assert_array_equal(result.coverage, coverage_mask([_quad(TILTED)], frame.shape))
    assert abs(_circular_mean_hue_deg(result.frame[painted])) < 20


def test_quads_partly_or_wholly_outside_the_frame():
    frame = _nail_scene()
    partly = _quad([[-30, -20], [25, -15], [20, 60], [-35, 55]])
    outside = _quad([[700, 500], [760, 500], [760, 580], [700, 580]])
    degenerate = _quad([[100, 100], [100, 100], [100, 100], [100, 100]])
    nan = _quad(np.full((4, 2), np.nan))
    result = Compositor(np.full((10, 10, 3), RED, np.uint8)).composite(
        frame, [partly, outside, degenerate, nan], want_coverage=True
    )
    assert result.coverage[:60, :25].any()
    assert not result.coverage[70:, 40:].any()
    np.testing.assert_array_equal(result.frame[70:, 40:], frame[70:, 40:])


def test_accent_texture_goes_to_its_finger_only():
    frame = _nail_scene()
    blue, green = np.full((8, 8, 3), (255, 0, 0), np.uint8), np.full((8, 8, 3), (0, 255, 0), np.uint8)
    index, ring = _quad(TILTED, Finger.INDEX), _quad(TILTED + [200, 0], Finger.RING)
    result = Compositor(blue, {Finger.RING: green}).composite(frame, [index, ring], want_coverage=True)
    index_px = result.frame[coverage_mask([index], frame.shape) > 0].astype(int)
    ring_px = result.frame[coverage_mask([ring], frame.shape) > 0].astype(int)
    assert index_px[:, 0].mean() > index_px[:, 1].mean() + 40  # blue
    assert ring_px[:, 1].mean() > ring_px[:, 0].mean() + 40  # green


def test_coverage_mask_values_and_shape():
    mask = coverage_mask([_quad(TILTED), _quad(TILTED, opacity=0.0)], (480, 640, 3))
    assert mask.shape == (480, 640) and mask.dtype == np.uint8
    assert set(np.unique(mask)) == {0, 255}
    assert not coverage_mask([_quad(TILTED, opacity=0.0)], (480, 640)).any()
    # the nail fills most of its quad but not the corners
    quad_area = cv2.contourArea(TILTED)
    assert 0.75 * quad_area < (mask > 0).sum() < 0.98 * quad_area


def test_prepare_texture_rejects_wrong_arrays():
    with pytest.raises(ValueError):
        prepare_texture(np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError):
        prepare_texture(np.zeros((10, 10, 3), np.float32))


def test_white_polish_keeps_highlights_instead_of_clipping_flat():
    frame = np.clip(_nail_scene().astype(np.float32) * 1.4, 0, 255).astype(np.uint8)  # a brightly lit nail
    result = Compositor(np.full((40, 30, 3), 250, np.uint8)).composite(frame, [_quad(TILTED)], want_coverage=True)
    painted = result.coverage == 255
    after = cv2.cvtColor(result.frame, cv2.COLOR_BGR2GRAY)[painted].astype(float)
    before = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)[painted].astype(float)
    assert (after >= 254.5).mean() < 0.2, "most of the white nail is clipped flat"
    assert after.std() > 3, "the white nail is flat"
    on_highlight = before >= np.percentile(before, 97)  # the scene's white streak
    assert after[on_highlight].mean() > np.median(after) + 3


def test_polish_on_a_dim_nail_is_darker_than_on_a_bright_one():
    bright = _nail_scene()
    dim = (bright * 0.45).astype(np.uint8)
    compositor = Compositor(np.full((40, 30, 3), (0, 0, 220), np.uint8))
    region = coverage_mask([_quad(TILTED)], bright.shape) > 0
    lit = compositor.composite(bright, [_quad(TILTED)]).frame[region][:, 2].mean()
    shadowed = compositor.composite(dim, [_quad(TILTED)]).frame[region][:, 2].mean()
    assert shadowed < 0.75 * lit


def test_nails_painted_together_equal_nails_painted_one_after_another():
    # overlapping quads: the later nail must see the earlier one already painted, as when painted one by one
    frame = _nail_scene(3)
    quads = [_quad(TILTED), _quad(TILTED + [20, 10], Finger.MIDDLE, 0.7), _quad(PARALLELOGRAM + [120, 30]),
             _quad(TILTED + [-10, 5], Finger.RING)]
    opaque = prepare_texture(np.full((30, 20, 3), (40, 90, 230), np.uint8))
    rng = np.random.default_rng(0)
    translucent = prepare_texture(rng.integers(0, 256, (64, 48, 4), dtype=np.uint8))
    textures = [opaque, translucent, opaque, translucent]
    together, one_by_one = frame.copy(), frame.copy()
    coverage_together, coverage_one_by_one = np.zeros((480, 640), np.uint8), np.zeros((480, 640), np.uint8)
    pairs = list(zip(quads, textures, strict=True))
    paint_nails(together, [(quad, texture, None, None) for quad, texture in pairs], coverage_together)
    for quad, texture in pairs:
        paint_nail(one_by_one, quad, texture, coverage_one_by_one)
    assert (together != frame).any()
    np.testing.assert_array_equal(together, one_by_one)
    np.testing.assert_array_equal(coverage_together, coverage_one_by_one)
