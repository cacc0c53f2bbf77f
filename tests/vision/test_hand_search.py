"""The still path's further looks for hands (vision/tracking/hand_search.py): exact mapping back from crops and
rotated views, the duplicate test, the normalisation, on synthetic data; StillHandDetector's use of them on the real
evaluation photos is in test_still_detection.py."""

from __future__ import annotations

import cv2
import numpy as np

from nailmirror_desktop.vision.tracking.hand_search import (
    Region,
    box_iou,
    crop,
    duplicates,
    from_region,
    halves,
    hand_mask,
    masked_out,
    normalised,
    other_halves,
    unexplained_skin,
)
from nailmirror_desktop.vision.tracking.still_detection import ROTATIONS, _transformed, view_transform
from nailmirror_desktop.vision.types import HandObservation


def _hand(dx: float = 0.0, dy: float = 0.0, scale: float = 1.0) -> HandObservation:
    """An upright right hand, fingers up, wrist at (100, 200), palm about 80 px."""
    points = [(100, 200)]
    for base_x, spread in ((60, -40), (80, -10), (100, 0), (120, 10), (140, 20)):  # thumb … pinky
        for joint in range(4):
            points.append((base_x + spread * joint / 8, 150 - 25 * joint))
    xy = np.array(points, np.float64) * scale + (dx, dy)
    z = np.linspace(0, -0.1, 21)[:, None]
    return HandObservation(np.hstack([xy, z]).astype(np.float32), "Right", 0.9)


def test_landmarks_from_a_cropped_rotated_zoomed_view_map_back_exactly():
    image_shape = (600, 800, 3)
    hand = _hand(dx=420.0, dy=250.0)
    for region in [*halves(image_shape), Region(37, 11, 733, 590)]:
        crop_shape = (region.y1 - region.y0, region.x1 - region.x0, 3)
        for rotation in ROTATIONS:
            for zoom, top in ((1.0, False), (2.0, False), (4.0, True)):
                matrix, _ = view_transform(crop_shape, rotation, zoom, top)
                # the landmarker's answer in the view's pixels, made from the true landmarks
                in_crop = hand.landmarks[:, :2].astype(np.float64) - (region.x0, region.y0)
                shown = in_crop @ matrix[:, :2].T + matrix[:, 2]
                answer = HandObservation(np.hstack([shown, hand.landmarks[:, 2:]]).astype(np.float32), "Right", 0.9)
                back = from_region(_transformed(answer, cv2.invertAffineTransform(matrix)), region)
                np.testing.assert_allclose(back.landmarks[:, :2], hand.landmarks[:, :2], atol=2e-3)


def test_crop_is_the_region_and_halves_cover_the_image_with_overlap():
    image = np.arange(60 * 80 * 3, dtype=np.uint32).reshape(60, 80, 3).astype(np.uint8)
    left, right, top, bottom = halves(image.shape)
    assert (left.x0, left.x1, right.x0, right.x1) == (0, 50, 30, 80)
    assert (top.y0, top.y1, bottom.y0, bottom.y1) == (0, 38, 22, 60)
    part = crop(image, right)
    assert part.flags["C_CONTIGUOUS"] and part.shape == (60, 50, 3)
    np.testing.assert_array_equal(part, image[:, 30:])


def test_the_other_half_is_across_from_the_hand():
    hand_on_left = _hand(dx=-20.0, dy=150.0)  # centre near x 110 of 800, y 300 of 600
    across, along = other_halves((600, 800, 3), hand_on_left)
    assert across == halves((600, 800, 3))[1]  # the right half first
    assert along in halves((600, 800, 3))[2:]


def test_duplicates_same_hand_shifted_hand_and_a_second_hand():
    first = _hand(dx=200.0, dy=100.0)
    assert duplicates(_hand(dx=205.0, dy=103.0), [first])  # the same hand, a little noise
    # a misreading of the same hand: fingers in another order, the palm placed lower; its fingertips on the same
    # nails, its box and its landmarks by index elsewhere
    misread = first.landmarks.copy()
    misread[:, 1] += 150.0
    misread[[4, 8, 12, 16, 20]] = first.landmarks[[4, 16, 20, 8, 12]]
    assert box_iou(HandObservation(misread, "Right", 0.9), first) < 0.7
    assert duplicates(HandObservation(misread, "Right", 0.9), [first])
    beside = _hand(dx=380.0, dy=100.0)  # a second hand beside the first
    assert box_iou(beside, first) == 0.0
    assert not duplicates(beside, [first])
    crossed = _hand(dx=200.0, dy=145.0)  # boxes overlapping by half (crossed hands), fingertips elsewhere
    assert 0.4 < box_iou(crossed, first) < 0.7
    assert not duplicates(crossed, [first])


def test_masking_out_paints_the_hand_in_the_background_colour():
    image = np.full((400, 500, 3), (40, 90, 30), np.uint8)
    hand = _hand(dx=150.0, dy=100.0)
    mask = hand_mask(image.shape, hand)
    image[mask > 0] = (140, 170, 220)  # a skin-coloured hand on green
    assert unexplained_skin(image, hand) == 0.0
    out = masked_out(image, hand)
    assert np.all(out == (40, 90, 30))
    # a second skin region as large as the hand is unexplained skin
    image[20:120, 380:480] = (140, 170, 220)
    assert unexplained_skin(image, hand) > 0.5


def test_normalisation_evens_out_exposure_and_colour_cast_and_keeps_geometry():
    rng = np.random.default_rng(5)
    scene = rng.integers(60, 200, (120, 160, 3)).astype(np.uint8)
    scene = cv2.GaussianBlur(scene, (0, 0), 3)
    pale = np.clip(scene.astype(np.float32) * (0.6, 0.9, 1.4) + 60, 0, 255).astype(np.uint8)  # warm, overexposed
    even = normalised(pale)
    assert even.shape == pale.shape and even.dtype == np.uint8
    means = even.reshape(-1, 3).mean(axis=0)
    assert np.ptp(means) < 0.5 * np.ptp(pale.reshape(-1, 3).mean(axis=0))  # the colour cast is mostly gone
    grey_before = cv2.cvtColor(pale, cv2.COLOR_BGR2GRAY).mean()
    assert abs(cv2.cvtColor(even, cv2.COLOR_BGR2GRAY).mean() - 128) < abs(grey_before - 128)  # toward mid-grey
    # the geometry is untouched: an edge stays where it was
    edges_before = cv2.Canny(cv2.cvtColor(pale, cv2.COLOR_BGR2GRAY), 20, 60) > 0
    edges_after = cv2.Canny(cv2.cvtColor(even, cv2.COLOR_BGR2GRAY), 20, 60) > 0
    assert np.count_nonzero(edges_before & cv2.dilate(edges_after.astype(np.uint8), np.ones((3, 3))).astype(bool)) \
        >= 0.8 * np.count_nonzero(edges_before)
