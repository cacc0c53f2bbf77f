"""Each nail followed across video frames: whether it is painted, and where it is while it briefly drops out.

Video painted frame by frame blinks: a nail whose finger-facing score hovers at the fade's edge pops on and off,
and a nail whose hand the landmarker loses for a frame or two vanishes. So, per nail:

- hysteresis on the fade (geometry's opacity, from how much the nail faces the camera): an unpainted nail is
  painted once its opacity reaches ON_AT, and a painted one stops only when the fade is fully out (opacity
  ≤ OFF_AT: the finger faces away). A palm never reaches ON_AT, so a palm is never painted; a nail that was
  painted is dropped the first frame its finger is seen facing away.
- a grace on the way out: the fade comes from landmark depths, and their jitter puts a facing nail's fade fully
  out for a frame or two. For FADE_GRACE frames after its fade goes out a painted nail is `fading`: unpainted
  here, but the model is asked, and it stays painted where the segmenter still finds it on the nail it painted
  (`pipeline.TryOnPipeline._video_masks`). A palm shows the model no nail, so a hand that turns over is bare at
  once all the same; a fading nail is held only if the model found it in its last frame.
- a hold: a painted nail that is not seen (its hand dropped, its quad degenerate) is painted for up to
  HOLD_FRAMES frames more where its motion was taking it (constant velocity: each new step averaged into the
  last estimate, VELOCITY_KEEP, because landmark jitter is not motion: a nail held at the velocity of one
  jittered step flies off its nail, and takes its carried mask along), then dropped; not held where
  a nail that does not face the camera enough to be painted (raw opacity < HELD_BESIDE_AT) is seen within
  NEAR_LENGTHS nail lengths (its hand is there, turned: the hold never paints a palm; a thumb's low fade does
  not count, since a thumb faces ~90° from the other nails even on a hand that shows them). Beside nails of its
  hand that still face the camera it is held: only its own quad was lost (eval clips: blink_rate 0.0185 →
  0.0147 from this alone).
- the segmenter's last mask, so a frame without a fresh mask (a cadence, a model miss) paints it carried
  (`nail_rois.shifted_mask`) for up to HOLD_FRAMES frames, moved by the nail's averaged motion since the mask
  was found, not by its quad's jitter (its landmarks err by about a nail's width; the nail itself moves
  smoothly). On the 52 eval clips: (see ARCHITECTURE.md §12).

Nails are matched to tracks by finger and nearest centre (within MATCH_LENGTHS nail lengths per frame of the
source's rate elapsed since the last painted frame), not by the landmarker's hand order, which may swap between
frames. A busy mirror skips frames (it paints the newest one when a stage is free), and a finger moves further
between two painted frames: matched within one nail length whatever the gap, it started a new track while its
old one was held beside it, flying on at its last velocity off the finger, then took the finger back while the
new one was held, so a finger carried a ghost nail beyond any hold (`benchmarks/stray_nails.py`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.nail_rois import roi_to_frame
from nailmirror_desktop.vision.types import Finger, NailQuad

ON_AT = 0.5
OFF_AT = 0.0
FADE_GRACE = 2  # frames a painted nail whose fade is out is still looked for by the model (`fading`)
# 267 ms at 30 FPS: a re-detected hand's drop-outs. Measured on the 52 eval clips out of sample, with the search on
# every frame while no hand is tracked: 6 frames, blink 0.0054 (33 of 51 blinks a hold that ended, most coming
# back 1–4 frames later); 7: 0.0049; 8: 0.0035, iou_frames 0.6106 → 0.6086 (a held nail drifts), recall +0.002
HOLD_FRAMES = 8
MATCH_LENGTHS = 1.0  # per frame elapsed at the source's rate (update's `frames`)
NEAR_LENGTHS = 2.0  # a held nail with a nail seen this close not facing the camera is not held: the hand turned
VELOCITY_KEEP = 0.5  # a held nail's velocity: this share of the last estimate, the rest the latest step
HELD_BESIDE_AT = ON_AT  # ... while beside nails that face the camera enough to be painted it is held


@dataclass(frozen=True, eq=False)
class TrackedNail:
    """One nail of this frame. quad: where it is, opacity 1.0 painted / 0.0 not; seen: observed this frame
    (False: held); roi_mask: the segmenter's last (64, 64) bool mask on the nail's ROI grid, found mask_age
    frames ago (0: this frame), or None."""

    track_id: int
    quad: NailQuad
    seen: bool
    roi_mask: NDArray[np.bool_] | None
    mask_age: int
    last_mask: NailMask | None = None  # the frame-space mask painted with roi_mask (None when not fresh enough)
    moved: NDArray[np.float64] | None = None  # (dx, dy) the nail's centre moved since last_mask was found
    fading: bool = False  # unpainted (opacity 0) in the grace after its fade went out: painted if the model finds it
    quad_moved: NDArray[np.float64] | None = None  # (dx, dy) its quad's centre moved since last_mask was found


@dataclass(eq=False)
class _Track:
    track_id: int
    finger: Finger
    hand_index: int
    corners: NDArray[np.float64]  # (4, 2)
    velocity: NDArray[np.float64]  # (4, 2) pixels per frame
    on: bool
    missing: int = 0
    out: int = 0  # consecutive frames its fade has been out while on (the grace: FADE_GRACE)
    painted: bool = False  # painted in its last frame: on and its fade in, or fading and the model found it
    steps: int = 0  # motion steps measured into velocity
    roi_mask: NDArray[np.bool_] | None = None
    mask_age: int = 0
    last_mask: NailMask | None = None
    mask_moved: NDArray[np.float64] | None = None  # (dx, dy) of smoothed motion since last_mask was found
    mask_centre: NDArray[np.float64] | None = None  # its quad's centre when last_mask was found


class NailTracks:
    """`update(quads)` once per frame (the geometry's quads, raw fade opacities) → the frame's TrackedNails;
    `remember(track_id, roi_mask)` stores a fresh segmenter mask for a nail of that frame."""

    def __init__(self, hold_frames: int = HOLD_FRAMES) -> None:
        self.hold_frames = hold_frames
        self._tracks: list[_Track] = []
        self._ids = itertools.count()

    def reset(self) -> None:
        self._tracks = []

    def update(self, quads: list[NailQuad], frames: float = 1.0) -> list[TrackedNail]:
        """frames: source frames elapsed since the last update (more than 1 where the mirror skipped some)."""
        for track in self._tracks:
            track.mask_age += 1
        seen = [q for q in quads if roi_to_frame(q) is not None]
        matched = self._match(seen, MATCH_LENGTHS * max(1.0, frames))
        out: list[TrackedNail] = []
        for quad in seen:
            corners = np.asarray(quad.corners, np.float64)
            found = matched.get(id(quad))
            if found is None:
                track = _Track(next(self._ids), quad.finger, quad.hand_index, corners, np.zeros((4, 2)),
                               on=quad.opacity >= ON_AT)
                self._tracks.append(track)
            else:
                track = found
                step = (corners - track.corners) / (track.missing + 1)
                # the first step as it is, then averaged: landmark jitter is not motion (a held nail moved by
                # one frame's jitter flies off its nail and takes its carried mask along)
                keep = VELOCITY_KEEP if track.steps else 0.0
                track.velocity = keep * track.velocity + (1.0 - keep) * step
                track.steps += 1
                if track.mask_moved is not None:  # one frame of the motion (a hold added its own frames)
                    track.mask_moved = track.mask_moved + track.velocity.mean(axis=0)
                track.corners, track.hand_index, track.missing = corners, quad.hand_index, 0
                if track.on:
                    track.out = 0 if quad.opacity > OFF_AT else track.out + 1
                    track.on = track.out <= FADE_GRACE
                else:
                    track.on, track.out = quad.opacity >= ON_AT, 0
            painted = track.on and track.out == 0
            track.painted = painted  # a fading nail's: `remember` says whether the model found it
            out.append(self._nail(track, replace(quad, opacity=1.0 if painted else 0.0), seen=True,
                                  fading=track.on and not painted))
        shown = {nail.track_id for nail in out}
        kept = []
        for track in self._tracks:
            if track.track_id in shown:
                kept.append(track)
                continue
            track.missing += 1
            if not track.painted or track.missing > self.hold_frames:
                continue  # gone (an unpainted nail, or a fading one the model did not find, has nothing to hold)
            track.corners = track.corners + track.velocity
            if track.mask_moved is not None:
                track.mask_moved = track.mask_moved + track.velocity.mean(axis=0)
            # its hand is seen there turned away (e.g. over): no ghost on a palm. Not a thumb's word: its nail faces
            # ~90° from the others, so its fade runs low on a hand that shows its nails (a turned hand's other
            # fingers say so)
            turned = [q for q in seen if q.opacity < HELD_BESIDE_AT and q.finger is not Finger.THUMB]
            if _near_any(track.corners, turned):
                continue
            kept.append(track)
            held = NailQuad(track.finger, track.corners.astype(np.float32), track.hand_index, 1.0)
            out.append(self._nail(track, held, seen=False))
        self._tracks = kept
        return out

    def remember(self, track_id: int, roi_mask: NDArray[np.bool_], mask: NailMask | None = None) -> None:
        for track in self._tracks:
            if track.track_id == track_id:
                track.roi_mask, track.mask_age, track.last_mask = roi_mask, 0, mask
                track.painted = track.on  # (the pipeline remembers a fading nail's mask only when it paints it)
                track.mask_moved = np.zeros(2)
                track.mask_centre = track.corners.mean(axis=0)

    def _match(self, quads: list[NailQuad], lengths: float) -> dict[int, _Track]:
        """id(quad) → its track: greedily the closest pairs of the same finger first, within `lengths` nail
        lengths."""
        pairs = []
        for quad in quads:
            centre, length = _centre_and_length(np.asarray(quad.corners, np.float64))
            for track in self._tracks:
                if track.finger != quad.finger:
                    continue
                distance = float(np.linalg.norm(_centre_and_length(track.corners)[0] - centre))
                if distance <= lengths * length:
                    pairs.append((distance, id(quad), track))
        matched: dict[int, _Track] = {}
        taken: set[int] = set()
        for _, quad_id, track in sorted(pairs, key=lambda pair: pair[0]):
            if quad_id in matched or track.track_id in taken:
                continue
            matched[quad_id] = track
            taken.add(track.track_id)
        return matched

    def _nail(self, track: _Track, quad: NailQuad, *, seen: bool, fading: bool = False) -> TrackedNail:
        fresh_enough = track.roi_mask is not None and track.mask_age <= self.hold_frames
        moved = track.mask_moved if fresh_enough else None
        quad_moved = None if not fresh_enough or track.mask_centre is None else \
            np.asarray(quad.corners, np.float64).mean(axis=0) - track.mask_centre
        return TrackedNail(track.track_id, quad, seen, track.roi_mask if fresh_enough else None, track.mask_age,
                           track.last_mask if fresh_enough else None, moved, fading, quad_moved)


def _near_any(corners: NDArray[np.float64], quads: list[NailQuad]) -> bool:
    centre, length = _centre_and_length(corners)
    for quad in quads:
        other, other_length = _centre_and_length(np.asarray(quad.corners, np.float64))
        if float(np.linalg.norm(other - centre)) <= NEAR_LENGTHS * max(length, other_length):
            return True
    return False


def _centre_and_length(corners: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
    tip, cuticle = 0.5 * (corners[0] + corners[1]), 0.5 * (corners[2] + corners[3])
    return 0.5 * (tip + cuticle), float(np.linalg.norm(tip - cuticle))
