"""Hands the video landmarker does not find, found by the still cascade and then followed (ARCHITECTURE.md §11).

The VIDEO-mode landmarker only runs its palm detector on the frame as it is, at default thresholds, and on
close-ups with no palm in view it never finds the hand (measured: 17 of the 52 eval clips, where the still
cascade finds it in the same photo). So, while fewer than max_hands hands are tracked, one view of the still cascade
(`StillHandDetector.look`: rotated, zoomed out, low thresholds) is tried on every frame while no hand is tracked and
every `search_every`-th beside a tracked hand (below), cycling through the views; the view that found a hand is then
looked through on every frame (it is the view in which this hand can be seen: an upright crop around the hand,
MediaPipe's own way of tracking, finds nothing on a close-up without a palm, measured), until the hand is lost there
or the video landmarker finds it too (a lost hand's view is kept KEEP_LOOKING frames more: the landmarker misses
single frames).

Cost is bounded: at most one landmarker run on one view per frame (its canvas capped at MAX_CANVAS px, so a 4×
zoom-out costs about a frame's tracking); while searching beside a tracked hand, one every search_every frames;
nothing while max_hands hands are tracked, nor once every view has found nothing in a scene that has not changed
since (`QuietScene`: an empty counter costs the search a 32 × 24 thumbnail a frame until something moves).

The six eval clips that still get no usable hand (traced per frame): 4c46b91a, no cascade view finds a hand on
any sampled frame (nor `StillHandDetector.detect`); 917FB1CC (224 px), the video landmarker finds a hand itself
from frame 7 but its quads miss the nails (IoU 0.04, the still path's 0.05); F6F9B3E6 (224 px), recovered at
frame 9 and followed, seen in about 1 frame of 3, its skeleton a fraction of the close-up hand's size;
34404E67 (258 px), d6072ec6, d61d6de4, only a few late views (low-threshold as-is, 4× turned) find it, each on
1–2 of 4 sampled frames (at one view every 3rd frame a 45-frame clip reached 15 of the 23 views; now all).

While no hand at all is tracked the search looks at a view on every frame (`search_every // SEARCH_EVERY`: the
governor's slower levels still slow it): there is nothing to paint then, so the frame's budget is free for it, and
a hand is found in the first frames it is held up rather than up to 69 frames later. Measured on the 52 eval
clips out of sample (tools/video_cv_eval.py, fold models): iou_frames 0.5876 → 0.6106, nail recall 0.7305 →
0.7532 (hands found 3 frames earlier in most clips, and found again after a drop-out within frames). (With only
13 clips and an earlier tracker this had measured worse, 0.639 → 0.625 recall, and was left out.) With one hand
tracked and room for a second the search stays at one view every `search_every` frames (that frame also
paints), through the default-threshold views only (0.6086 → 0.6120 iou_frames, 0.7552 → 0.7598 recall; every
2nd frame instead: 0.6071 / 0.7558).
The video landmarker never takes a recovered hand over (the Tasks API cannot be seeded with one): the view
follows it, and `nail_tracks` holds its nails through misses.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.tracking.still_detection import (
    FOLLOW_ERROR,
    StillHandDetector,
    View,
    cascade_views,
    same_hand,
)
from nailmirror_desktop.vision.types import HandObservation

SEARCH_EVERY = 3  # frames between cascade views while a hand is missing: ~10 views a second at 30 FPS
MAX_CANVAS = 640
FOLLOW_CANVAS = 640
KEEP_LOOKING = 6  # frames a lost hand's view is still looked through before the search starts again
# An empty counter does not change: once every view has looked at an unchanged scene and found no hand, the search
# waits for the scene to change. Changed: the mean absolute grey-level difference of a THUMB-sized thumbnail from the
# one the unchanged run started with reaches CHANGED_BY (of 255; camera noise on a still scene stays well under it).
THUMB = (32, 24)
CHANGED_BY = 2.0


def recovery_views() -> list[View]:
    """The cascade's views without the one the video landmarker already is (as-is, default thresholds), the
    zoom-outs of the upright image first: they found most of the hands the video landmarker missed."""
    views = [view for view in cascade_views() if view != View()]
    return sorted(views, key=lambda view: (view.rotation != 0 or view.zoom_out == 1.0, views.index(view)))


class HandRecovery:
    """`update(frame, tracked, max_hands)` once per video frame: the tracked hands plus the recovered ones."""

    def __init__(self, search_every: int = SEARCH_EVERY, views: list[View] | None = None) -> None:
        if search_every < 1:
            raise ValueError(f"search_every must be at least 1, not {search_every}")
        self.search_every = search_every
        self.follow_canvas = FOLLOW_CANVAS
        self.views = views if views is not None else recovery_views()
        self._detector: StillHandDetector | None = None
        self._followed: list[HandObservation] = []
        self._sticky: View | None = None
        self._misses = 0
        self._frames = 0
        self._next_view = 0
        self._scene = QuietScene()

    @property
    def no_hand_every(self) -> int:
        """The search's cadence while no hand is tracked: every frame at the usual cadence, slowed as the
        governor slows `search_every` (nothing is painted meanwhile, so the frame's time is the search's)."""
        return max(1, self.search_every // SEARCH_EVERY)

    def close(self) -> None:
        if self._detector is not None:
            self._detector.close()
        self._detector = None
        self.reset()

    def reset(self) -> None:
        self._followed, self._frames, self._next_view = [], 0, 0
        self._sticky = None
        self._scene = QuietScene()

    def update(self, frame: NDArray[np.uint8], tracked: list[HandObservation],
               max_hands: int) -> list[HandObservation]:
        """frame: (H, W, 3) uint8 BGR; tracked: the video landmarker's hands in it."""
        self._frames += 1
        hands = list(tracked)
        room = max_hands - len(hands)
        if room <= 0 or not self.views:
            self._followed, self._sticky = [], None  # all hands are tracked: nothing to do, nothing spent
            return hands
        every = self.search_every if hands else self.no_hand_every
        if self._sticky is not None:  # following: the view that found the hands, every frame
            view = self._sticky
        elif not hands and self._scene.searched_out(frame, len(self.views)):
            return hands  # every view found nothing in this unchanged scene: wait for it to change
        elif self._frames % every == 1 % every:
            # beside a tracked hand only the default-threshold views, as the still path's second hand: low
            # thresholds are where false second hands come from, and half the views reach the hand twice as soon
            pool = [view for view in self.views if not view.low_threshold] if hands else self.views
            pool = pool or self.views
            self._next_view %= len(pool)
            view = pool[self._next_view]
            self._next_view = (self._next_view + 1) % len(pool)
        else:
            return hands
        found = self._look(frame, view, hands)
        if not found and self._sticky is not None and not view.low_threshold:
            found = self._look(frame, replace(view, low_threshold=True), hands)  # the same view, less strict
        followed: list[HandObservation] = []
        for before in self._followed:  # the same hands again first: a view may show two, in either order
            match = same_hand(before, found, FOLLOW_ERROR)
            if match is not None and len(followed) < room:
                found.remove(match)
                # a view's label is noisier than the first sighting's: keep the first
                followed.append(replace(match, handedness=before.handedness))
        followed += found[:room - len(followed)]
        self._followed = followed
        self._scene.looked(bool(followed) or bool(hands))
        if followed:  # follow through the view that sees it
            self._sticky, self._misses = view, 0
        elif self._sticky is not None:
            self._misses += 1
            if self._misses > KEEP_LOOKING:
                self._sticky, self._next_view = None, 0  # lost: search again, likeliest views first
        return hands + followed

    def _look(self, frame: NDArray[np.uint8], view: View, known: list[HandObservation]) -> list[HandObservation]:
        canvas = self.follow_canvas if self._sticky is not None else MAX_CANVAS
        return [hand for hand in self._still().look(frame, view, canvas) if same_hand(hand, known) is None]

    def _still(self) -> StillHandDetector:
        if self._detector is None:
            self._detector = StillHandDetector(refine=False)
        return self._detector


class QuietScene:
    """Whether the no-hand search has looked through every view at a scene that has not changed since (an empty
    counter): then it can wait for a change instead of looking again. `searched_out(frame, views)` before a look,
    `looked(found)` after it."""

    def __init__(self) -> None:
        self._thumb: NDArray[np.float32] | None = None
        self._empty_looks = 0

    def searched_out(self, frame: NDArray[np.uint8], views: int) -> bool:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        thumb = cv2.resize(grey, THUMB, interpolation=cv2.INTER_AREA).astype(np.float32)
        if self._thumb is None or float(np.mean(np.abs(thumb - self._thumb))) >= CHANGED_BY:
            self._thumb, self._empty_looks = thumb, 0  # a new scene (or the first): search it afresh
        return self._empty_looks >= views

    def looked(self, found: bool) -> None:
        self._empty_looks = 0 if found else self._empty_looks + 1
