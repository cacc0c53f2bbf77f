"""The still-image cascade (StillHandDetector over rotated and zoomed-out views) on the real evaluation photos (the
nails_eval fixture) and hand-free images."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from nailmirror_desktop.vision.tracking.hand_search import UNEXPLAINED_SKIN, duplicates, unexplained_skin
from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector, cascade_views, view_transform
from nailmirror_desktop.vision.tracking.tracker import HandTracker
from tests.support.hand_photos import nail_mask, photo, tips_near_nails

# Close-ups the default landmarker misses that the cascade must find.
HARD = ("1eecab90-1a92-43a7-b952-0204384e1fae.jpg", "7e9f5818-4425-4d8a-808a-4673d96fa250.jpg")


@pytest.mark.slow
@pytest.mark.parametrize("name", HARD)
def test_cascade_finds_close_ups_the_default_misses(nails_eval_dir, name):
    image = photo(nails_eval_dir, name)
    with HandTracker("image") as tracker:
        assert tracker.detect(image) == []
    with StillHandDetector() as detector:
        hands = detector.detect(image)
    assert hands
    assert tips_near_nails(hands[0], nail_mask(nails_eval_dir, name)) >= 3


def _hand_free_images(nails_eval_dir) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    yy, xx = np.mgrid[0:360, 0:480]
    images = {
        "grey": np.full((360, 480, 3), 128, np.uint8),
        "noise": rng.integers(0, 256, (360, 480, 3), dtype=np.uint8),
        "stripes": np.dstack([(127 + 100 * np.sin(xx / 9 + np.sin(yy / 40) * 3)).astype(np.uint8)] * 3),
        "checker": np.repeat(((((xx // 40) + (yy // 40)) % 2) * 255).astype(np.uint8)[..., None], 3, axis=2),
    }
    blobs = np.full((360, 480, 3), (60, 90, 40), np.uint8)
    for _ in range(6):  # skin-coloured ellipses: the colour of a hand without its shape
        centre = (int(rng.integers(80, 400)), int(rng.integers(80, 280)))
        axes = (int(rng.integers(20, 100)), int(rng.integers(15, 45)))
        cv2.ellipse(blobs, centre, axes, float(rng.integers(0, 180)), 0, 360, (140, 170, 220), -1)
    images["skin blobs"] = cv2.GaussianBlur(blobs, (0, 0), 3)
    # a real photo's background: the dark fabric above the hand
    images["fabric"] = photo(nails_eval_dir, "4c484f8c-e402-11e8-97db-0242ac1c0002.jpg")[:128, :96]
    # a portrait: at low thresholds the landmarker once found a "hand" on the tie
    import matplotlib

    portrait = Path(matplotlib.__file__).parent / "mpl-data" / "sample_data" / "grace_hopper.jpg"
    images["portrait"] = cv2.imread(str(portrait))
    assert images["portrait"] is not None
    return images


@pytest.mark.slow
def test_cascade_invents_no_hands(nails_eval_dir):
    with StillHandDetector() as detector:
        found = {name: len(detector.detect(image)) for name, image in _hand_free_images(nails_eval_dir).items()}
    assert found == {name: 0 for name in found}


def test_views_map_back_exactly():
    shape = (300, 200, 3)
    point = np.array([37.0, 211.0])
    for view in cascade_views():
        matrix, (width, height) = view_transform(shape, view.rotation, view.zoom_out, view.top_anchored)
        shown = matrix[:, :2] @ point + matrix[:, 2]
        assert 0 <= shown[0] < width and 0 <= shown[1] < height  # the whole image stays in view
        back = cv2.invertAffineTransform(matrix)
        np.testing.assert_allclose(back[:, :2] @ shown + back[:, 2], point, atol=1e-6)


@pytest.mark.slow  # the cascade on a real photo, twice: about 1.2 s
def test_a_second_hand_is_looked_for_past_the_view_that_found_the_first(nails_eval_dir):
    name = "5CBCC5AC-B638-4DFA-AA7B-2464FADFF2F7.jpg"  # two hands; the first view that finds one finds only it
    image, mask = photo(nails_eval_dir, name), nail_mask(nails_eval_dir, name)
    with StillHandDetector(refine=False, second_hand=False) as first_only, StillHandDetector(refine=False) as both:
        assert len(first_only.detect(image)) == 1
        hands = both.detect(image)
    assert len(hands) == 2
    assert all(tips_near_nails(hand, mask) >= 3 for hand in hands)  # both on real nails, not one hand twice


@pytest.mark.slow
def test_crossed_hands_get_both_by_looking_again_where_the_first_is_not(nails_eval_dir):
    name = "2C29D473-CCB4-458C-926B-99D0042161E6.jpg"  # one hand lying across the other
    image, mask = photo(nails_eval_dir, name), nail_mask(nails_eval_dir, name)
    with StillHandDetector(search_again=False) as before:
        assert len(before.detect(image)) == 1
    with StillHandDetector() as detector:
        traced = detector.detect_traced(image)
    assert [how for _, how in traced] == ["cascade", "other half"]
    assert all(tips_near_nails(hand, mask) >= 3 for hand, _ in traced)
    assert not duplicates(traced[1][0], [traced[0][0]])  # the lower hand, not the upper one read again


@pytest.mark.slow
def test_a_pale_close_up_the_cascade_misses_is_found_normalised(nails_eval_dir):
    name = "d60153c0-db67-11e8-9658-0242ac1c0002.jpg"  # fingertips on blue fabric, washed out
    image, mask = photo(nails_eval_dir, name), nail_mask(nails_eval_dir, name)
    with StillHandDetector(search_again=False) as before:
        assert before.detect(image) == []
    with StillHandDetector() as detector:
        traced = detector.detect_traced(image)
    assert [how for _, how in traced] == ["normalised"]
    assert tips_near_nails(traced[0][0], mask) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("name", ["F6F9B3E6-FA7B-4DAC-B08C-1AD19BC43A76.jpg",  # French nails, much bare skin
                                  "54108996-6DA8-48F9-93DF-7ABB92F64E03.jpg",
                                  "917FB1CC-E132-497F-A463-46C61A84BB40.jpg"])  # fingers filling the frame
def test_one_hand_with_much_skin_gets_no_phantom_second_hand(nails_eval_dir, name):
    image = photo(nails_eval_dir, name)
    with StillHandDetector(refine=False) as detector:
        hands = detector.detect(image)
        assert len(hands) == 1
        # the second look did run: skin the hand does not explain is over the gate
        assert unexplained_skin(image, hands[0]) >= UNEXPLAINED_SKIN
