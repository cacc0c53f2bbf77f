"""ROI geometry of the nail segmenter: crops land where the quad is, tip up, and masks survive the round trip."""

import cv2
import numpy as np
import pytest

from nailmirror_desktop.vision.nails import nail_rois
from nailmirror_desktop.vision.types import Finger, NailQuad


def _quad(centre, angle_deg, length, width, *, opacity=1.0, hand=0) -> NailQuad:
    """A quad whose tip edge points at angle_deg (0 = up in the frame, clockwise positive)."""
    a = np.radians(angle_deg)
    up = np.array([np.sin(a), -np.cos(a)])
    right = np.array([-up[1], up[0]])
    c = np.asarray(centre, float)
    tip, cut = c + up * length / 2, c - up * length / 2
    corners = [tip - right * width / 2, tip + right * width / 2, cut + right * width / 2, cut - right * width / 2]
    return NailQuad(Finger.INDEX, np.array(corners, np.float32), hand, opacity)


def _nail_frame(quad: NailQuad, shape=(480, 640)) -> np.ndarray:
    """A frame mask with an ellipse filling the quad."""
    c = quad.corners.astype(float)
    centre = c.mean(0)
    length = np.linalg.norm(0.5 * (c[0] + c[1]) - 0.5 * (c[2] + c[3]))
    width = np.linalg.norm(c[1] - c[0])
    up = 0.5 * (c[0] + c[1]) - 0.5 * (c[2] + c[3])
    angle = np.degrees(np.arctan2(up[1], up[0]))
    mask = np.zeros(shape, np.uint8)
    cv2.ellipse(mask, (tuple(centre), (length, width), angle), 255, -1)
    return mask


def test_roi_centre_is_the_quad_centre_and_the_tip_points_up():
    quad = _quad((300, 200), 40, 30, 20)
    to_frame = nail_rois.roi_to_frame(quad)
    assert to_frame is not None
    half = (nail_rois.ROI_SIZE - 1) / 2
    centre = to_frame @ [half, half, 1]
    np.testing.assert_allclose(centre[:2], quad.corners.mean(0), atol=1e-4)
    up_in_frame = to_frame[:2, :2] @ [0, -1]
    tip_dir = 0.5 * (quad.corners[0] + quad.corners[1]) - quad.corners.mean(0)
    cos = up_in_frame @ tip_dir / np.linalg.norm(up_in_frame) / np.linalg.norm(tip_dir)
    assert cos == pytest.approx(1.0, abs=1e-6)
    # side = CONTEXT × the longer side
    assert np.linalg.norm(up_in_frame) * nail_rois.ROI_SIZE == pytest.approx(nail_rois.CONTEXT * 30, rel=1e-6)


def test_crop_shows_the_tip_at_the_top():
    quad = _quad((320, 240), -70, 40, 24)
    frame = np.zeros((480, 640, 3), np.uint8)
    tip_mid = 0.5 * (quad.corners[0] + quad.corners[1])
    cv2.circle(frame, tuple(int(v) for v in tip_mid), 4, (0, 0, 255), -1)
    (roi,) = nail_rois.nail_rois(frame, [quad])
    assert roi is not None and roi.image.shape == (64, 64, 3) and roi.image.dtype == np.uint8
    ys, xs = np.nonzero(roi.image[..., 2] > 100)
    assert abs(xs.mean() - 31.5) < 1.5 and ys.mean() < 31.5 - 0.4 * 64 / nail_rois.CONTEXT


def test_context_crop_is_the_same_grid_with_a_border():
    quad = _quad((330, 250), 15, 36, 22)
    rng = np.random.default_rng(1)
    frame = cv2.GaussianBlur(rng.integers(0, 255, (480, 640, 3), dtype=np.uint8), (5, 5), 0)
    small = nail_rois.crop(frame, nail_rois.roi_to_frame(quad))
    wide = nail_rois.crop(frame, nail_rois.roi_to_frame(quad, 128, 2 * nail_rois.CONTEXT), 128)
    diff = np.abs(small.astype(int) - wide[32:96, 32:96].astype(int))
    assert diff.max() <= 1


@pytest.mark.parametrize("angle", [0, 33, 90, 160, -120])
@pytest.mark.parametrize("length", [14, 40, 90])
def test_mask_crop_and_paste_round_trip(angle, length):
    quad = _quad((310, 230), angle, length, 0.65 * length)
    truth = _nail_frame(quad)
    (roi,) = nail_rois.nail_rois(np.zeros((480, 640, 3), np.uint8), [quad])
    assert roi is not None
    roi_mask = nail_rois.crop(truth.astype(np.float32) / 255, roi.to_frame) >= 0.5
    pasted = nail_rois.paste_mask(roi_mask, roi, truth.shape)
    assert pasted is not None and pasted.refined
    painted = np.zeros(truth.shape, bool)
    painted[pasted.roi.slices] = pasted.alpha >= 0.5
    on = truth > 0
    iou = np.count_nonzero(on & painted) / np.count_nonzero(on | painted)
    # one ROI pixel is CONTEXT·length/64 frame pixels: the outline moves by at most about half of one
    assert iou > (0.93 if length >= 40 else 0.85)
    # the pasted quad is the mask's nail-aligned bounding rectangle: same tip direction, same centre
    assert pasted.quad.finger is quad.finger and pasted.quad.hand_index == quad.hand_index
    np.testing.assert_allclose(pasted.quad.corners.mean(0), quad.corners.mean(0), atol=0.05 * length + 0.5)
    tip_dir = 0.5 * (pasted.quad.corners[0] + pasted.quad.corners[1]) - pasted.quad.corners.mean(0)
    want = 0.5 * (quad.corners[0] + quad.corners[1]) - quad.corners.mean(0)
    assert tip_dir @ want / np.linalg.norm(tip_dir) / np.linalg.norm(want) > 0.999


def test_paste_is_clipped_to_the_frame_and_empty_or_offframe_gives_none():
    quad = _quad((5, 5), 0, 40, 26)
    (roi,) = nail_rois.nail_rois(np.zeros((100, 100, 3), np.uint8), [quad])
    assert roi is not None
    full = np.ones((64, 64), bool)
    pasted = nail_rois.paste_mask(full, roi, (100, 100))
    assert pasted is not None
    assert pasted.roi.x0 == 0 and pasted.roi.y0 == 0 and pasted.alpha.shape == (pasted.roi.height, pasted.roi.width)
    assert nail_rois.paste_mask(np.zeros((64, 64), bool), roi, (100, 100)) is None
    far = _quad((-500, -500), 0, 40, 26)
    (far_roi,) = nail_rois.nail_rois(np.zeros((100, 100, 3), np.uint8), [far])
    assert far_roi is not None and nail_rois.paste_mask(full, far_roi, (100, 100)) is None


def test_degenerate_or_unpainted_quads_have_no_roi():
    frame = np.zeros((100, 100, 3), np.uint8)
    flat = NailQuad(Finger.THUMB, np.array([[10, 10], [11, 10], [11, 10], [10, 10]], np.float32), 0)
    nan = NailQuad(Finger.THUMB, np.full((4, 2), np.nan, np.float32), 0)
    hidden = _quad((50, 50), 0, 20, 12, opacity=0.0)
    assert nail_rois.nail_rois(frame, [flat, nan, hidden]) == [None, None, None]


def test_expected_component_keeps_our_nail_not_the_neighbours():
    expected = (24.0, 16.0)

    def kept(mask: np.ndarray) -> np.ndarray:
        return nail_rois.expected_component(mask, mask.astype(np.float32), expected)

    mask = np.zeros((64, 64), bool)
    mask[20:44, 24:40] = True  # ours
    mask[20:44, 2:12] = True  # a neighbour
    ours = kept(mask)
    assert ours[32, 32] and not ours[:, :12].any()
    ring = np.zeros((64, 64), bool)
    ring[34:40, 30:34] = True  # just off the centre
    assert kept(ring).sum() == ring.sum()
    off = np.zeros((64, 64), bool)
    off[0:6, 0:6] = True  # only a far corner: not ours
    assert not kept(off).any()
    assert not kept(np.zeros((64, 64), bool)).any()


def test_a_carried_mask_follows_its_nail_to_the_next_frame():
    """A mask found on one frame, carried onto the same nail's quad one frame later (moved, turned, grown)."""
    before = _quad((300, 220), 10, 40, 26)
    after = _quad((330, 205), 25, 46, 30)
    (roi,) = nail_rois.nail_rois(np.zeros((480, 640, 3), np.uint8), [before])
    assert roi is not None
    roi_mask = nail_rois.crop(_nail_frame(before).astype(np.float32) / 255, roi.to_frame) >= 0.5
    same = nail_rois.carry_mask(roi_mask, before, (480, 640))
    pasted = nail_rois.paste_mask(roi_mask, roi, (480, 640))
    assert same is not None and pasted is not None
    np.testing.assert_array_equal(same.alpha, pasted.alpha)  # on its own quad: exactly the paste
    carried = nail_rois.carry_mask(roi_mask, after, (480, 640))
    assert carried is not None
    painted = np.zeros((480, 640), bool)
    painted[carried.roi.slices] = carried.alpha >= 0.5
    truth = _nail_frame(after) > 0
    assert np.count_nonzero(truth & painted) / np.count_nonzero(truth | painted) > 0.9
    assert nail_rois.carry_mask(roi_mask, _quad((300, 220), 0, 1, 1), (480, 640)) is None  # degenerate


def test_a_shifted_mask_moves_by_whole_pixels_and_is_clipped_at_the_frame():
    quad = _quad((100, 80), 0, 30, 20)
    (roi,) = nail_rois.nail_rois(np.zeros((160, 200, 3), np.uint8), [quad])
    assert roi is not None
    mask = nail_rois.paste_mask(nail_rois.crop(_nail_frame(quad, (160, 200)).astype(np.float32) / 255,
                                               roi.to_frame) >= 0.5, roi, (160, 200))
    assert mask is not None
    moved = nail_rois.shifted_mask(mask, np.array([5.4, -3.6]), (160, 200))
    assert moved is not None
    assert (moved.roi.x0, moved.roi.y0) == (mask.roi.x0 + 5, mask.roi.y0 - 4)
    np.testing.assert_array_equal(moved.alpha, mask.alpha)
    np.testing.assert_allclose(moved.quad.corners, mask.quad.corners + [5, -4])
    clipped = nail_rois.shifted_mask(mask, np.array([0.0, -mask.roi.y0 - 10.0]), (160, 200))
    assert clipped is not None and clipped.roi.y0 == 0 and clipped.alpha.shape[0] < mask.alpha.shape[0]
    assert nail_rois.shifted_mask(mask, np.array([500.0, 0.0]), (160, 200)) is None


def test_the_component_on_last_frames_nail_wins_over_the_centre():
    found = np.zeros((64, 64), bool)
    found[20:44, 28:36] = True  # the nail at the centre
    found[20:44, 44:52] = True  # its neighbour, painted a frame ago
    prior = np.zeros((64, 64), bool)
    prior[22:40, 42:50] = True
    chosen = nail_rois.component_on(found, prior)
    assert chosen[30, 48] and not chosen[30, 32]
    assert not nail_rois.component_on(found, np.zeros((64, 64), bool)).any()  # no overlap: none (the caller
    # then takes the expected place's)


def test_the_expected_component_keeps_the_nail_where_the_old_centre_rule_kept_a_speck_or_nothing():
    expected = (20.0, 14.0)  # the quad's nail in ROI pixels: 20 long, 14 wide, centred
    prob = np.zeros((64, 64), np.float32)
    prob[14:30, 26:40] = 0.9  # the nail, its centre 10 px above the ROI's (the landmarks' length error)
    prob[31:34, 31:34] = 0.7  # a speck of glare on the skin at the ROI's centre
    found = prob >= 0.5  # (the old centre rule kept the speck: it holds the centre pixel)
    kept = nail_rois.expected_component(found, prob, expected)
    assert kept[20, 30] and not kept[32, 32]
    # the nail alone, just past the centre rule's gap: dropped by that rule, kept by the expected place
    alone = np.zeros((64, 64), bool)
    alone[8:22, 26:40] = True  # (10 px from the centre: the old rule's gap was 8)
    assert nail_rois.expected_component(alone, alone.astype(np.float32), expected).sum() == alone.sum()
    # a neighbour beside the finger, off the expected place: not ours
    beside = np.zeros((64, 64), bool)
    beside[24:40, 0:8] = True
    assert not nail_rois.expected_component(beside, beside.astype(np.float32), expected).any()
    assert not nail_rois.expected_component(np.zeros((64, 64), bool), prob, expected).any()


def test_expected_nail_is_the_quad_in_roi_pixels():
    length, width = nail_rois.expected_nail(_quad((300, 200), 30, 30, 20))
    assert length == pytest.approx(64 / 3) and width == pytest.approx(64 / 3 * 20 / 30)


def test_painted_share_is_the_part_of_the_other_masks_paint_this_one_covers():
    from nailmirror_desktop.vision.nails.nail_refiner import NailMask
    from nailmirror_desktop.vision.nails.warp import Roi

    quad = _quad((100, 80), 0, 30, 20)
    alpha = np.zeros((30, 20), np.float32)
    alpha[5:25, 5:15] = 1.0  # 200 painted pixels
    mask = NailMask(quad, Roi(90, 65, 110, 95), alpha, refined=True)
    assert nail_rois.painted_share(mask, mask) == 1.0
    moved = nail_rois.shifted_mask(mask, np.array([5.0, 0.0]), (160, 200))
    assert moved is not None and nail_rois.painted_share(moved, mask) == pytest.approx(0.5)  # 5 of 10 columns
    beside = nail_rois.shifted_mask(mask, np.array([12.0, 0.0]), (160, 200))
    assert beside is not None and nail_rois.painted_share(beside, mask) == 0.0  # the neighbouring nail
    far = nail_rois.shifted_mask(mask, np.array([60.0, 0.0]), (160, 200))
    assert far is not None and nail_rois.painted_share(far, mask) == 0.0  # boxes apart
    nothing = NailMask(quad, Roi(90, 65, 110, 95), np.zeros((30, 20), np.float32), refined=True)
    assert nail_rois.painted_share(mask, nothing) == 0.0
