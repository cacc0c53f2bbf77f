"""The hand tracker (MediaPipe's landmarker in image and video mode) on the real evaluation photos (the nails_eval
fixture)."""

from __future__ import annotations

import numpy as np
import pytest

from nailmirror_desktop.vision.tracking.tracker import HandTracker
from tests.support.hand_photos import nail_mask, photo, tips_near_nails

# Backs of hands the default landmarker finds (the close-ups it misses are in test_still_detection.py).
EASY = ("4c484f8c-e402-11e8-97db-0242ac1c0002.jpg", "d639e532-db67-11e8-9658-0242ac1c0002.jpg")


@pytest.mark.parametrize("name", EASY)
def test_image_mode_finds_hands_in_real_photos(nails_eval_dir, name):
    image = photo(nails_eval_dir, name)
    with HandTracker("image") as tracker:
        hands = tracker.detect(image)
    assert hands
    for hand in hands:
        assert hand.landmarks.shape == (21, 3) and hand.landmarks.dtype == np.float32
        xy = hand.landmarks[:, :2]
        assert np.all(xy >= -5) and np.all(xy[:, 0] <= image.shape[1] + 5) and np.all(xy[:, 1] <= image.shape[0] + 5)
        assert hand.handedness in ("Left", "Right") and 0.5 <= hand.score <= 1.0
        assert tips_near_nails(hand, nail_mask(nails_eval_dir, name)) >= 4


def test_two_hands_are_reported(nails_eval_dir):
    with HandTracker("image") as tracker:
        hands = tracker.detect(photo(nails_eval_dir, EASY[1]))
    assert len(hands) == 2


def test_video_mode_tolerates_repeated_timestamps(nails_eval_dir):
    frame = photo(nails_eval_dir, EASY[0])
    with HandTracker("video") as tracker:
        first = tracker.track(frame, 1000)
        again = tracker.track(frame, 1000)  # a camera clock that repeats must not raise
        later = tracker.track(frame, 1033)
    assert first and again and later
    np.testing.assert_allclose(later[0].landmarks[:, :2], first[0].landmarks[:, :2], atol=0.05 * max(frame.shape))


def test_modes_are_not_mixed(nails_eval_dir):
    frame = photo(nails_eval_dir, EASY[0])
    with HandTracker("image") as tracker, pytest.raises(RuntimeError):
        tracker.track(frame, 0)
    with pytest.raises(RuntimeError):
        HandTracker("image").detect(frame)  # not opened


def test_another_bundle_must_have_the_digest_its_caller_names(tmp_path, nails_eval_dir):
    """tools/compare_hand_models.py runs a bundle it built itself (the lite landmark model): the tracker takes it
    only with the sha256 the tool pinned, and a file that differs is refused with a clear error."""
    import hashlib

    from nailmirror_desktop.vision.tracking.hand_model import HandModelError, default_bundle_path

    bundle = tmp_path / "other.task"
    bundle.write_bytes(default_bundle_path().read_bytes())
    digest = hashlib.sha256(bundle.read_bytes()).hexdigest()
    with HandTracker("image", model_path=bundle, bundle_sha256=digest) as tracker:
        assert tracker.detect(photo(nails_eval_dir, EASY[0]))
    bundle.write_bytes(bundle.read_bytes()[:-10])
    with pytest.raises(HandModelError, match="sha256"):
        HandTracker("image", model_path=bundle, bundle_sha256=digest)


def test_frames_reach_the_landmarker_as_rgb():
    """The BGR→RGB conversion (cv2.cvtColor since it cost 14 ms as a strided numpy copy): channel order kept."""
    from nailmirror_desktop.vision.tracking.tracker import _mp_image

    frame = np.zeros((4, 6, 3), np.uint8)
    frame[..., 0], frame[..., 2] = 10, 200  # blue 10, red 200 in OpenCV's order
    image = _mp_image(frame, rgb=False).numpy_view()
    assert image.shape == (4, 6, 3) and (image[..., 0] == 200).all() and (image[..., 2] == 10).all()
    np.testing.assert_array_equal(_mp_image(frame, rgb=True).numpy_view(), frame)
