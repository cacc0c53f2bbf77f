"""The try-on pipeline: hand tracking → (smoothing, video only) → nail geometry → (refinement, stills only) →
compositing.

`TryOnPipeline.process_still(image)` uses the robust still-image detector (a cascade of views; slower, for
photos) and refines each nail from its pixels (`nail_refiner`, a few tens of ms per nail); `process_video_frame(
frame, timestamp_ms)` uses one VIDEO-mode landmarker and a One Euro filter per hand, and paints the landmark
quads as they are (the live loop has no time for refinement). Every result carries per-stage timings in
milliseconds, which the benchmark reads. `place_nails` is the still path's geometry and refinement on their own,
shared with the evaluation so it scores exactly what is painted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.compositor import Compositor
from nailmirror_desktop.vision.geometry import nail_quads_for_hands
from nailmirror_desktop.vision.nail_refiner import NailMask
from nailmirror_desktop.vision.types import HandObservation, NailQuad

if TYPE_CHECKING:  # imported when first used: the landmarkers load MediaPipe
    from nailmirror_desktop.vision.smoothing import HandSmoother
    from nailmirror_desktop.vision.still_detection import StillHandDetector
    from nailmirror_desktop.vision.tracker import HandTracker, TrackerSettings

STAGES = ("track", "smooth", "geometry", "refine", "composite")
STILL_MIN_OPACITY = 0.5  # see place_nails


@dataclass(frozen=True)
class StageTimings:
    """Milliseconds spent in each stage of one frame; `total` covers the whole call."""

    track: float = 0.0
    smooth: float = 0.0
    geometry: float = 0.0
    refine: float = 0.0
    composite: float = 0.0
    total: float = 0.0


@dataclass(frozen=True, eq=False)
class TryOnResult:
    """frame: (H, W, 3) uint8 BGR, painted; coverage: (H, W) uint8 0/255 or None; hands and quads as used;
    masks: the refined nail masks, one per quad (None where a quad kept its own shape), or None when the frame
    was not refined (video). `coverage_mask(quads, shape, masks)` reproduces the coverage."""

    frame: NDArray[np.uint8]
    coverage: NDArray[np.uint8] | None
    hands: list[HandObservation]
    quads: list[NailQuad]
    timings: StageTimings = field(default_factory=StageTimings)
    masks: list[NailMask | None] | None = None


class TryOnPipeline:
    """Owns the landmarkers (opened lazily; close with `close()` or a `with` block) and a Compositor.

    mirrored: frames are shown mirrored (a selfie camera), which flips MediaPipe's handedness.
    max_hands: hands tracked in video (each one costs ~10 ms more of palm detection).
    refine_stills: refine each nail of a still from its pixels (see nail_refiner).
    """

    def __init__(self, compositor: Compositor, *, mirrored: bool = False, max_hands: int = 2,
                 smoothing: bool = True, refine_stills: bool = True) -> None:
        self.compositor = compositor
        self.mirrored = mirrored
        self.max_hands = max_hands
        self.smoothing = smoothing
        self.refine_stills = refine_stills
        self._still_detector: StillHandDetector | None = None
        self._video_tracker: HandTracker | None = None
        self._smoother: HandSmoother | None = None

    def __enter__(self) -> TryOnPipeline:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for resource in (self._still_detector, self._video_tracker):
            if resource is not None:
                resource.close()
        self._still_detector = self._video_tracker = self._smoother = None

    def process_still(self, image: NDArray[np.uint8], *, want_coverage: bool = True) -> TryOnResult:
        """Find hands in a photo ((H, W, 3) uint8 BGR) and paint their nails."""
        start = time.perf_counter()
        hands = self._still().detect(image)
        tracked = time.perf_counter()
        return self._finish(image, hands, want_coverage, start, tracked, tracked, in_place=False,
                            refine=self.refine_stills)

    def process_video_frame(self, frame: NDArray[np.uint8], timestamp_ms: int, *, want_coverage: bool = False,
                            in_place: bool = False) -> TryOnResult:
        """Track hands in one video frame ((H, W, 3) uint8 BGR; timestamps increasing) and paint their nails.

        in_place=True paints into `frame` itself and saves a full-frame copy (the live loop owns its frames).
        """
        start = time.perf_counter()
        hands = self._video().track(frame, timestamp_ms)
        tracked = time.perf_counter()
        if self.smoothing:
            hands = self._smoothing().update(hands, timestamp_ms)
        smoothed = time.perf_counter()
        return self._finish(frame, hands, want_coverage, start, tracked, smoothed, in_place=in_place)

    def reset_tracking(self) -> None:
        """Forget smoothing state (call when the video jumps, e.g. a looping demo restarts)."""
        self._smoother = None

    def _finish(self, frame: NDArray[np.uint8], hands: list[HandObservation], want_coverage: bool,
                start: float, tracked: float, smoothed: float, *, in_place: bool,
                refine: bool = False) -> TryOnResult:
        quads, masks, placed = place_nails(frame, hands, mirrored=self.mirrored, refine=refine)
        refined = placed if masks is None else time.perf_counter()
        composite = self.compositor.composite(frame, quads, want_coverage=want_coverage, in_place=in_place,
                                              masks=masks)
        done = time.perf_counter()
        timings = StageTimings(
            track=_ms(start, tracked), smooth=_ms(tracked, smoothed), geometry=_ms(smoothed, placed),
            refine=_ms(placed, refined), composite=_ms(refined, done), total=_ms(start, done),
        )
        return TryOnResult(composite.frame, composite.coverage, hands, quads, timings, masks)

    def _still(self) -> StillHandDetector:
        if self._still_detector is None:
            from nailmirror_desktop.vision.still_detection import StillHandDetector

            self._still_detector = StillHandDetector()
        return self._still_detector

    def _video(self) -> HandTracker:
        if self._video_tracker is None:
            from nailmirror_desktop.vision.tracker import HandTracker

            self._video_tracker = tracker = HandTracker("video", video_tracker_settings(self.max_hands))
            tracker.open()
        return self._video_tracker

    def _smoothing(self) -> HandSmoother:
        if self._smoother is None:
            from nailmirror_desktop.vision.smoothing import HandSmoother

            self._smoother = HandSmoother()
        return self._smoother


def place_nails(image: NDArray[np.uint8], hands: list[HandObservation], *, mirrored: bool = False,
                refine: bool = False) -> tuple[list[NailQuad], list[NailMask | None] | None, float]:
    """Nail quads for `hands` in `image` ((H, W, 3) uint8 BGR) and, with refine (the still path), their refined
    masks (one per quad, None where nothing is painted); the third value is time.perf_counter() after the geometry.

    On the still path a nail is painted fully or not at all: the geometry's fade (opacity between 0 and 1 while a
    finger turns away) exists so that video does not pop; a photo has no next frame, so a nail that faces the
    camera less than half (opacity < 0.5) is left bare and the others are painted at full strength.
    """
    quads = nail_quads_for_hands(hands, mirrored=mirrored)
    placed = time.perf_counter()
    if not refine:
        return quads, None, placed
    from nailmirror_desktop.vision.nail_refiner import refine_nails

    quads = [replace(quad, opacity=1.0 if quad.opacity >= STILL_MIN_OPACITY else 0.0) for quad in quads]
    return quads, refine_nails(image, quads), placed


def video_tracker_settings(max_hands: int) -> TrackerSettings:
    """The landmarker settings for live video (shared with the benchmark's landmarker-only run)."""
    from nailmirror_desktop.vision.tracker import TrackerSettings

    return TrackerSettings(max_hands=max_hands)


def _ms(begin: float, end: float) -> float:
    return (end - begin) * 1000.0
