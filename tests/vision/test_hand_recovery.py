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


def _record_looks(recovery: HandRecovery) -> list[tuple[int, View]]:
    """(frame, 0-based; view) of every view `recovery` looks through from now on: its `_look` wrapped, the real
    landmarker still run."""
    looks: list[tuple[int, View]] = []
    real_look = recovery._look

    def spy(image, view, known):  # type: ignore[no-untyped-def]
        looks.append((recovery._frames - 1, view))  # update() counts the frame before it looks
        return real_look(image, view, known)

    recovery._look = spy  # type: ignore[method-assign]
    return looks


def _views_looked(recovery: HandRecovery, frames: int, tracked: list[HandObservation]) -> list[int]:
    """The frames (0-based) on which `recovery` looked through a view on a blank frame."""
    looks = _record_looks(recovery)
    frame = np.zeros((240, 320, 3), np.uint8)
    try:
        for _ in range(frames):
            recovery.update(frame, tracked, max_hands=2)
    finally:
        recovery.close()
    return [index for index, _ in looks]


def test_with_no_hand_tracked_a_view_is_looked_through_on_every_frame():
    # nothing is painted while no hand is tracked: the frame's time is the search's
    assert _views_looked(HandRecovery(search_every=3), 6, []) == [0, 1, 2, 3, 4, 5]


def test_beside_a_tracked_hand_the_second_is_searched_every_search_every_frames():
    tracked = [HandObservation(np.full((21, 3), 5.0, np.float32), "Right", 0.9)]
    assert _views_looked(HandRecovery(search_every=3), 7, tracked) == [0, 3, 6]


def test_the_governors_slower_levels_slow_the_no_hand_search_too():
    assert [HandRecovery(search_every=n).no_hand_every for n in (3, 6, 12)] == [1, 2, 4]
    assert _views_looked(HandRecovery(search_every=6), 6, []) == [0, 2, 4]


def test_a_second_hand_is_searched_for_at_default_thresholds_only():
    tracked = [HandObservation(np.full((21, 3), 5.0, np.float32), "Right", 0.9)]
    recovery = HandRecovery(search_every=1)
    looks = _record_looks(recovery)
    frame = np.zeros((240, 320, 3), np.uint8)
    try:
        for _ in range(len(recovery.views)):
            recovery.update(frame, tracked, max_hands=2)
        for _ in range(len(recovery.views)):
            recovery.update(frame, [], max_hands=2)
    finally:
        recovery.close()
    seen = [view for _, view in looks]
    beside, alone = seen[:len(recovery.views)], seen[len(recovery.views):]
    assert not any(view.low_threshold for view in beside)
    assert len(set(beside)) == 11  # every default-threshold view, each at least twice in 23 frames
    assert any(view.low_threshold for view in alone)  # no hand at all: the whole cascade


def test_an_unchanged_empty_scene_is_searched_through_once_then_not_until_it_changes():
    recovery = HandRecovery(search_every=3)
    views = len(recovery.views)
    looks = _record_looks(recovery)
    counter = np.full((240, 320, 3), 90, np.uint8)
    rng = np.random.default_rng(3)
    try:
        for _ in range(views + 10):  # an empty counter, with a camera's noise
            noisy = np.clip(counter.astype(np.int16) + rng.integers(-3, 4, counter.shape), 0, 255).astype(np.uint8)
            recovery.update(noisy, [], max_hands=2)
        assert [index for index, _ in looks] == list(range(views))  # every view once, then nothing
        counter[60:180, 100:220] = 200  # something comes in
        for _ in range(3):
            recovery.update(counter, [], max_hands=2)
    finally:
        recovery.close()
    assert [index for index, _ in looks[views:]] == [views + 10, views + 11, views + 12]
