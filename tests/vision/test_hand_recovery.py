"""Re-detection by the still cascade where the video landmarker finds no hand, on a real close-up photo."""

import numpy as np

from nailmirror_desktop.vision.tracking.hand_recovery import HandRecovery, recovery_views
from nailmirror_desktop.vision.tracking.still_detection import View
from nailmirror_desktop.vision.tracking.tracker import HandTracker
from nailmirror_desktop.vision.types import HandObservation
from tests.support.hand_photos import nail_mask, photo, tips_near_nails

# A fingertip close-up: the video landmarker never finds its hand, the cascade's zoom-out does.
CLOSE_UP = "4c472e18-e402-11e8-97db-0242ac1c0002.jpg"


def test_views_skip_the_video_landmarkers_own_and_start_with_upright_zoom_outs():
    views = recovery_views()
    assert View() not in views and len(views) == 23
    assert all(v.rotation == 0 and v.zoom_out > 1 for v in views[:2])


def test_a_close_up_the_video_landmarker_misses_is_found_and_followed(nails_eval_dir):
    image = photo(nails_eval_dir, CLOSE_UP)
    with HandTracker("video") as tracker:
        assert all(not tracker.track(image, 33 * i) for i in range(5))  # the video landmarker alone: nothing
    recovery = HandRecovery(search_every=1)
    try:
        found = [recovery.update(image, [], max_hands=1) for _ in range(12)]
    finally:
        recovery.close()
    first = next(i for i, hands in enumerate(found) if hands)
    assert first < 6  # the upright zoom-outs come first
    assert all(len(hands) == 1 for hands in found[first:])  # followed on every frame after
    assert tips_near_nails(found[-1][0], nail_mask(nails_eval_dir, CLOSE_UP)) >= 3


def test_nothing_is_searched_while_max_hands_are_tracked():
    frame = np.zeros((240, 320, 3), np.uint8)
    tracked = [HandObservation(np.zeros((21, 3), np.float32), "Right", 0.9)]
    recovery = HandRecovery(search_every=1)
    assert recovery.update(frame, tracked, max_hands=1) == tracked
    assert recovery._detector is None  # no landmarker was even opened
