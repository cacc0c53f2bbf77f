"""The hand tracker and the still-image cascade on the real evaluation photos (the nails_eval fixture) and
hand-free images."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from nailmirror_desktop.vision.still_detection import StillHandDetector, cascade_views, view_transform
from nailmirror_desktop.vision.tracker import HandTracker

# Backs of hands the default landmarker finds, and close-ups it misses that the cascade must find.
EASY = ("4c484f8c-e402-11e8-97db-0242ac1c0002.jpg", "d639e532-db67-11e8-9658-0242ac1c0002.jpg")
HARD = ("1eecab90-1a92-43a7-b952-0204384e1fae.jpg", "7e9f5818-4425-4d8a-808a-4673d96fa250.jpg")


def _photo(nails_eval_dir, name):
    image = cv2.imread(str(nails_eval_dir / "images" / name))
    assert image is not None
    return image


def _nail_mask(nails_eval_dir, name):
    return cv2.imread(str(nails_eval_dir / "masks" / (name.rsplit(".", 1)[0] + ".png")), cv2.IMREAD_GRAYSCALE)


def _tips_near_nails(hand, mask) -> int:
    """How many fingertip landmarks lie within 10% of the image size of a true nail pixel."""
    distance = cv2.distanceTransform((mask == 0).astype(np.uint8), cv2.DIST_L2, 5)
    limit = 0.1 * max(mask.shape)
    count = 0
    for tip in (4, 8, 12, 16, 20):
        x, y = hand.landmarks[tip, :2]
        if 0 <= x < mask.shape[1] and 0 <= y < mask.shape[0] and distance[int(y), int(x)] < limit:
            count += 1
    return count


@pytest.mark.parametrize("name", EASY)
def test_image_mode_finds_hands_in_real_photos(nails_eval_dir, name):
    image = _photo(nails_eval_dir, name)
    with HandTracker("image") as tracker:
        hands = tracker.detect(image)
    assert hands
    for hand in hands:
        assert hand.landmarks.shape == (21, 3) and hand.landmarks.dtype == np.float32
        xy = hand.landmarks[:, :2]
        assert np.all(xy >= -5) and np.all(xy[:, 0] <= image.shape[1] + 5) and np.all(xy[:, 1] <= image.shape[0] + 5)
        assert hand.handedness in ("Left", "Right") and 0.5 <= hand.score <= 1.0
        assert _tips_near_nails(hand, _nail_mask(nails_eval_dir, name)) >= 4


def test_two_hands_are_reported(nails_eval_dir):
    with HandTracker("image") as tracker:
        hands = tracker.detect(_photo(nails_eval_dir, EASY[1]))
    assert len(hands) == 2


def test_video_mode_tolerates_repeated_timestamps(nails_eval_dir):
    frame = _photo(nails_eval_dir, EASY[0])
    with HandTracker("video") as tracker:
        first = tracker.track(frame, 1000)
        again = tracker.track(frame, 1000)  # a camera clock that repeats must not raise
        later = tracker.track(frame, 1033)
    assert first and again and later
    np.testing.assert_allclose(later[0].landmarks[:, :2], first[0].landmarks[:, :2], atol=0.05 * max(frame.shape))


def test_modes_are_not_mixed(nails_eval_dir):
    frame = _photo(nails_eval_dir, EASY[0])
    with HandTracker("image") as tracker, pytest.raises(RuntimeError):
        tracker.track(frame, 0)
    with pytest.raises(RuntimeError):
        HandTracker("image").detect(frame)  # not opened


@pytest.mark.slow
@pytest.mark.parametrize("name", HARD)
def test_cascade_finds_close_ups_the_default_misses(nails_eval_dir, name):
    image = _photo(nails_eval_dir, name)
    with HandTracker("image") as tracker:
        assert tracker.detect(image) == []
    with StillHandDetector() as detector:
        hands = detector.detect(image)
    assert hands
    assert _tips_near_nails(hands[0], _nail_mask(nails_eval_dir, name)) >= 3


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
    images["fabric"] = _photo(nails_eval_dir, "4c484f8c-e402-11e8-97db-0242ac1c0002.jpg")[:128, :96]
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
