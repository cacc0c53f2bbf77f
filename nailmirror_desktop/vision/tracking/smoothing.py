"""Temporal smoothing of hand landmarks on video: a One Euro filter per tracked hand (ARCHITECTURE.md §11).

The Tasks landmarker does not smooth, and its landmarks flicker by a few pixels at rest. The One Euro filter
(Casiez et al., CHI 2012) is a low-pass whose cutoff rises with speed: strong smoothing at rest, little lag in
fast motion. Speeds are measured in hand sizes per second, not pixels, so the same tuning holds for a hand near
the camera and one far away.

Tuning, as the method prescribes: with beta = 0, the minimum cutoff was lowered until a hand at rest stopped
visibly jittering (1 Hz); then beta was raised until a hand sweeping across the frame at ~2 hand sizes per
second lagged by less than a tenth of its size: 0.8 lags 0.072 of it (the test's sweep). A larger beta (4.0 was
used, lag 0.026) passes the re-detected hands' landmark noise through as if it were motion: on the 52 eval
clips blink_rate 0.0127 at 4.0, 0.0114 at 1.5, 0.0099 at 0.8, iou_frames and nail_recall unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from nailmirror_desktop.vision.types import WRIST, HandObservation, Landmarks

MIN_CUTOFF_HZ = 1.0
BETA = 0.8  # cutoff gain per (hand size / s) of speed
DERIVATIVE_CUTOFF_HZ = 1.0
DEFAULT_FRAME_S = 1.0 / 30.0
MATCH_DISTANCE = 1.0  # in hand sizes: a new observation further than this from every track starts a new one
FORGET_AFTER_S = 0.5  # a track unseen this long is dropped (the hand left; a new one starts fresh)


def _alpha(cutoff_hz: np.ndarray | float, dt_s: float) -> np.ndarray | float:
    """Exponential smoothing factor of a first-order low-pass at `cutoff_hz` sampled every `dt_s`."""
    tau = 1.0 / (2.0 * math.pi * cutoff_hz)  # an array stays an array; a float stays a (cheap) float
    return 1.0 / (1.0 + tau / dt_s)


_SIZE_FROM, _SIZE_TO = np.array([9, 5]), np.array([WRIST, 17])


def hand_size(landmarks: Landmarks) -> float:
    """Pixels per hand size: wrist to middle-finger knuckle, or knuckle spread if larger (2D)."""
    spans = landmarks[_SIZE_FROM, :2] - landmarks[_SIZE_TO, :2]
    wrist_to_middle, index_to_pinky = np.sqrt(np.vecdot(spans, spans))  # the dot np.linalg.norm takes
    return float(max(wrist_to_middle, index_to_pinky, 1.0))


@dataclass
class OneEuroFilter:
    """One Euro filter over an array of points ((N, D) float, pixels). `scale` (pixels per hand size) turns
    pixel speeds into hand sizes per second before they raise the cutoff."""

    min_cutoff_hz: float = MIN_CUTOFF_HZ
    beta: float = BETA
    derivative_cutoff_hz: float = DERIVATIVE_CUTOFF_HZ
    _value: np.ndarray | None = field(default=None, init=False, repr=False)
    _derivative: np.ndarray | None = field(default=None, init=False, repr=False)

    def __call__(self, points: np.ndarray, dt_s: float, scale: float = 1.0) -> np.ndarray:
        points = np.asarray(points, dtype=np.float64)
        if self._value is None or self._value.shape != points.shape:
            self._value, self._derivative = points.copy(), np.zeros_like(points)
            return points.copy()
        dt_s = dt_s if dt_s > 0 else DEFAULT_FRAME_S
        change = points - self._value
        raw_derivative = change / dt_s
        raw_derivative -= self._derivative
        raw_derivative *= _alpha(self.derivative_cutoff_hz, dt_s)
        self._derivative += raw_derivative
        # np.linalg.norm(axis=-1, keepdims=True), as it computes it, without its per-call overhead
        speed = np.sqrt(np.add.reduce(self._derivative * self._derivative, axis=-1, keepdims=True))
        speed /= max(scale, 1e-6)
        speed *= self.beta
        speed += self.min_cutoff_hz  # the cutoff
        change *= _alpha(speed, dt_s)
        self._value += change
        return self._value.copy()


@dataclass(eq=False)  # tracks are compared by identity (list.remove); field-wise == would compare arrays
class _Track:
    filter: OneEuroFilter
    last_seen_ms: int
    wrist: np.ndarray
    size: float
    label: str


class HandSmoother:
    """Smooths each tracked hand's landmarks across video frames.

    update(hands, timestamp_ms) takes one frame's observations (landmarks (21, 3) pixels) and returns them
    smoothed, in the same order. Hands are matched to tracks by handedness label and wrist position.
    """

    def __init__(self, min_cutoff_hz: float = MIN_CUTOFF_HZ, beta: float = BETA) -> None:
        self.min_cutoff_hz = min_cutoff_hz
        self.beta = beta
        self._tracks: list[_Track] = []
        self._last_ms: int | None = None

    def update(self, hands: list[HandObservation], timestamp_ms: int) -> list[HandObservation]:
        dt_s = DEFAULT_FRAME_S if self._last_ms is None else (timestamp_ms - self._last_ms) / 1000.0
        self._last_ms = timestamp_ms
        self._tracks = [t for t in self._tracks if (timestamp_ms - t.last_seen_ms) / 1000.0 <= FORGET_AFTER_S]
        free = list(self._tracks)
        smoothed = []
        for hand in hands:
            track = self._match(hand, free)
            size = hand_size(hand.landmarks)
            if track is None:
                track = _Track(OneEuroFilter(self.min_cutoff_hz, self.beta), timestamp_ms,
                               hand.landmarks[WRIST, :2].copy(), size, hand.handedness)
                self._tracks.append(track)
                track_dt = DEFAULT_FRAME_S
            else:
                free.remove(track)
                track_dt = (timestamp_ms - track.last_seen_ms) / 1000.0 or dt_s
            points = track.filter(hand.landmarks, track_dt, size)
            track.last_seen_ms, track.wrist, track.size = timestamp_ms, points[WRIST, :2].copy(), size
            smoothed.append(HandObservation(points.astype(np.float32), hand.handedness, hand.score))
        return smoothed

    def _match(self, hand: HandObservation, tracks: list[_Track]) -> _Track | None:
        wrist = hand.landmarks[WRIST, :2]
        best, best_distance = None, math.inf
        for track in tracks:
            if track.label != hand.handedness:
                continue
            offset = wrist - track.wrist
            distance = math.sqrt(offset.dot(offset)) / max(track.size, 1.0)  # np.linalg.norm's own arithmetic
            if distance < best_distance:
                best, best_distance = track, distance
        return best if best_distance <= MATCH_DISTANCE else None
