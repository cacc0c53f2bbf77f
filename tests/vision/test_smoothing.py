"""One Euro smoothing: less jitter at rest, bounded lag in motion, the same behaviour at any hand size."""

from __future__ import annotations

import numpy as np

from nailmirror_desktop.vision.tracking.smoothing import HandSmoother, OneEuroFilter, hand_size
from nailmirror_desktop.vision.types import HandObservation

FPS = 30


def _hand(offset=(0.0, 0.0), size=150.0, label="Right") -> np.ndarray:
    """(21, 3) landmarks: a fixed layout of `size` pixels from wrist to middle knuckle, shifted by offset."""
    layout = np.random.default_rng(7).uniform(-1, 1, (21, 3))
    layout[0] = (0, 0.5, 0)
    layout[9] = (0, -0.5, 0)
    return layout * size + (*offset, 0)


def _jitter_and_lag(filter_factory, size: float, seed: int = 0) -> tuple[float, float]:
    """(output std at rest, mean lag in a sweep at 2 hand sizes / s), both in hand sizes; input noise 0.013."""
    rng = np.random.default_rng(seed)
    noise = 0.013 * size
    smooth = filter_factory()
    rest = [smooth(np.array([[100.0, 100.0]]) + rng.normal(0, noise, (1, 2)), 1 / FPS, size)[0] for _ in range(240)]
    jitter = float(np.std(np.array(rest[30:]), axis=0).mean()) / size
    smooth = filter_factory()
    lags = []
    for frame in range(60):
        x = 100.0 + 2.0 * size * frame / FPS
        out = smooth(np.array([[x, 100.0]]) + rng.normal(0, noise, (1, 2)), 1 / FPS, size)[0]
        lags.append(x - out[0])
    return jitter, float(np.mean(lags[30:])) / size


def test_jitter_at_rest_is_reduced():
    jitter, _ = _jitter_and_lag(OneEuroFilter, size=150.0)
    assert jitter < 0.5 * 0.013


def test_lag_in_fast_motion_is_bounded():
    _, lag = _jitter_and_lag(OneEuroFilter, size=150.0)
    assert 0 < lag < 0.1
    # without the speed term (beta = 0) the same sweep lags far behind: beta is what bounds it
    _, slow_lag = _jitter_and_lag(lambda: OneEuroFilter(beta=0.0), size=150.0)
    assert slow_lag > 3 * lag


def test_behaviour_is_the_same_at_any_hand_size():
    near = _jitter_and_lag(OneEuroFilter, size=300.0)
    far = _jitter_and_lag(OneEuroFilter, size=60.0)
    np.testing.assert_allclose(near, far, rtol=0.05)


def test_first_frame_passes_through():
    points = _hand()
    out = HandSmoother().update([HandObservation(points.astype(np.float32), "Right", 0.9)], 0)
    np.testing.assert_allclose(out[0].landmarks, points, atol=1e-3)


def test_two_hands_are_smoothed_independently():
    smoother = HandSmoother()
    left, right = _hand((-400, 0), label="Left"), _hand((400, 0))
    for frame in range(10):
        out = smoother.update([HandObservation(left.astype(np.float32), "Left", 0.9),
                               HandObservation(right.astype(np.float32), "Right", 0.9)], frame * 33)
    # steady inputs stay exactly where they are: nothing from one hand leaks into the other
    np.testing.assert_allclose(out[0].landmarks, left, atol=1e-3)
    np.testing.assert_allclose(out[1].landmarks, right, atol=1e-3)
    assert hand_size(out[0].landmarks) > 100


def test_a_hand_that_comes_back_elsewhere_starts_fresh():
    smoother = HandSmoother()
    here, there = _hand((0, 0)), _hand((900, 0))
    smoother.update([HandObservation(here.astype(np.float32), "Right", 0.9)], 0)
    smoother.update([HandObservation(here.astype(np.float32), "Right", 0.9)], 33)
    # one second later, far away: a new hand, not a smoothed jump from the old place
    out = smoother.update([HandObservation(there.astype(np.float32), "Right", 0.9)], 1033)
    np.testing.assert_allclose(out[0].landmarks, there, atol=1e-3)


def test_a_jump_within_the_track_is_smoothed():
    smoother = HandSmoother()
    here = _hand((0, 0))
    for frame in range(5):
        smoother.update([HandObservation(here.astype(np.float32), "Right", 0.9)], frame * 33)
    moved = here + (20.0, 0.0, 0.0)
    out = smoother.update([HandObservation(moved.astype(np.float32), "Right", 0.9)], 5 * 33)
    shift = out[0].landmarks[:, 0] - here[:, 0]
    assert np.all(shift > 0) and np.all(shift < 20.0)


def test_hands_reported_in_the_other_order_keep_their_own_tracks():
    # the landmarker does not keep an order: the right hand may come first in one frame and second in the next
    smoother = HandSmoother()
    left, right = _hand((-400, 0), label="Left"), _hand((400, 0))
    observe = {"Left": lambda: HandObservation(left.astype(np.float32), "Left", 0.9),
               "Right": lambda: HandObservation(right.astype(np.float32), "Right", 0.9)}
    for frame, order in enumerate((("Right", "Left"), ("Left", "Right"), ("Right", "Left"))):
        out = smoother.update([observe[label]() for label in order], frame * 33)
        for hand, label in zip(out, order, strict=True):
            expected = left if label == "Left" else right
            assert hand.handedness == label
            np.testing.assert_allclose(hand.landmarks, expected, atol=1e-3)
