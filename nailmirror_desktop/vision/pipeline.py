"""The try-on pipeline: hand tracking → (smoothing, video only) → nail geometry → per-nail masks → compositing.

`TryOnPipeline.process_still(image)` uses the robust still-image detector (a cascade of views; slower, for
photos) and paints each nail with its still mask (`STILL_MASKS`: the learned segmenter's by default, or the
GrabCut refiner's); where it finds no hand (a fingertip close-up with no palm), the full-frame model's nails
(vision/nails/full_frame.py); `process_video_frame(frame, timestamp_ms)` uses one VIDEO-mode landmarker, a One Euro
filter per hand and the per-nail tracks of `nail_tracks` (hysteresis on the fade, a hold through drop-outs),
and paints the segmenter's mask of every painted nail, run every `segment_every` frames with the masks carried
by the tracked nails in between (shifted as each nail moved). A nail the segmenter finds no nail at (and has no
carried mask for) is not painted: what is painted is what the coverage says. Every result carries per-stage
timings in milliseconds, which the benchmark reads.

A video frame is two stages with no state in common, so the live mirror overlaps them (ARCHITECTURE.md §3):
`track_video_frame` (the landmarkers) → `TrackedFrame` → `paint_video_frame` (smoothing, geometry, nail tracks,
segmenter, compositor). One track and one paint may run at the same time on two threads — frame N+1 tracked
while frame N is painted — as long as each stage takes its frames one at a time and in order.
`place_nails` is the still path's geometry and masks on their
own, shared with the evaluation so it scores exactly what is painted.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.core.nail_form import NATURAL, NailForm
from nailmirror_desktop.vision.cadence import LEVELS as CADENCE_LEVELS
from nailmirror_desktop.vision.cadence import CadenceGovernor, CadenceLevel
from nailmirror_desktop.vision.nails.extension import NailExtension, extend_nails
from nailmirror_desktop.vision.nails.full_frame_check import FallbackNail, carried_nails, checked_nails
from nailmirror_desktop.vision.nails.geometry import nail_quads_for_hands
from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.nail_rois import carry_mask, painted_overlap, painted_share, shifted_mask
from nailmirror_desktop.vision.nails.nail_tracks import NailTracks, TrackedNail
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.types import HandObservation, NailQuad

if TYPE_CHECKING:  # imported when first used: the landmarkers load MediaPipe, the segmenter onnxruntime
    from collections.abc import Callable
    from concurrent.futures import Future
    from pathlib import Path

    from nailmirror_desktop.vision.nails.active_models import ActiveSegmenters
    from nailmirror_desktop.vision.nails.full_frame import FullFrameModel
    from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter
    from nailmirror_desktop.vision.tracking.hand_recovery import HandRecovery
    from nailmirror_desktop.vision.tracking.model_preload import VideoModels
    from nailmirror_desktop.vision.tracking.smoothing import HandSmoother
    from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector
    from nailmirror_desktop.vision.tracking.tracker import HandTracker, TrackerSettings

log = logging.getLogger(__name__)

STAGES = ("track", "smooth", "geometry", "refine", "segment", "composite")
STILL_MIN_OPACITY = 0.5  # see place_nails (the GrabCut refiner's masks)
# With the model's masks every finger whose fade is not fully out is looked at, and the model decides whether a
# nail is there: the fade is a guess from the landmarks (a thumb faces ~90° from the others, a curled finger's
# nail still shows). Thumbs first (nails_eval, in-sample: IoU 0.680 → 0.686, nail recall 0.772 → 0.783), then
# every finger (in-sample, with the expected-place component: IoU 0.663 → 0.671, recall 0.797 → 0.807, precision
# 0.856 → 0.857).
STILL_MIN_OPACITY_MODEL = 1e-6
StillMasks = Literal["model", "grabcut", "quads"]
# Measured with `nailmirror eval` on nails_eval (52 photos): the GrabCut refiner IoU 0.414 (misses 0), recall
# 0.517, precision 0.768; the model's mask 0.680 / 0.772 / 0.912 in-sample (with the second-hand search) and
# 0.618 / 0.738 / 0.861 by 5-fold cross-validation (models/NAIL_SEGMENTER_CARD.md): the model's mask, even out of
# sample.
STILL_MASKS: StillMasks = "model"
# Video runs the segmenter on every frame: with the mirror's two stages overlapped (benchmarks/pipeline.py `ratio`,
# quiet 2-core machine) it costs 3.6 ms per hand (budget 4) at a whole/landmarker ratio of 1.11 (target 1.25), and
# on the eval clips it paints better than every 2nd frame with masks carried between: iou_frames 0.586 vs 0.572,
# nail_recall 0.735 vs 0.734 (ARCHITECTURE.md §12). segment_every=2 is the cheaper cadence for slower PCs
# (1.8 ms per hand; the serial ratio was 1.30-1.33 on every frame vs 1.19-1.24 at 2, under load).
SEGMENT_EVERY = 1
# A found hand painting fewer nails than this has some unpainted, as has a lost hand holding fewer: the full-frame
# model looks for them (on fresh frames only, so a slower PC's cadence lowers its cost too). On the clips, out of
# sample, painting its checked nails beside the hands' lifted iou_frames 0.649 → 0.660, nail_recall 0.790 → 0.806
# and cut blinks 0.0048 → 0.0044 (models/NAIL_SEGMENTER_CARD.md), at the same pixel precision (0.783), where
# looking on every hand frame cost precision (0.759).
FINGERS = 5
# A frame at the rate the live path is built for (two hands at 30 FPS): the nail tracks match a finger within a
# nail length per such frame elapsed, so a mirror that skipped frames still follows a moving finger.
SOURCE_FRAME_MS = 1000.0 / 30.0
# A fresh mask that paints under this share of where its nail was painted (the prior: the last fresh mask, moved
# with the nail) has left that nail: the model's probability on it dipped for a frame and another part of the crop
# (a neighbouring nail, a fold of skin) won. For up to SWAP_CARRY_FRAMES frames since the last mask it agreed
# with, the nail is painted with that mask carried instead; a nail that really is somewhere else gets the fresh
# mask after that. Only while the prior has kept up with the nail's quad (the two moved alike, within SWAP_NEAR
# of its length, since the prior's mask was found): the prior moves with the nail's averaged motion, and a finger
# that moved further between two painted frames (a busy mirror skips frames) left it behind off the finger
# (benchmarks/stray_nails.py), where the fresh mask is right.
SWAP_BELOW = 0.2
SWAP_CARRY_FRAMES = 2
SWAP_NEAR = 0.5


@dataclass(frozen=True)
class StageTimings:
    """Milliseconds spent in each stage of one frame; `total` covers the whole call."""

    track: float = 0.0
    smooth: float = 0.0
    geometry: float = 0.0
    refine: float = 0.0
    segment: float = 0.0
    composite: float = 0.0
    total: float = 0.0


@dataclass(frozen=True, eq=False)
class TryOnResult:
    """frame: (H, W, 3) uint8 BGR, painted; coverage: (H, W) uint8 0/255 or None; hands and quads as used;
    masks: the nail masks, one per quad (None where a quad kept its own shape), or None when no masks were
    made (still_masks="quads"). `coverage_mask(quads, shape, masks)` reproduces the coverage. held: painted
    nails not seen in this frame (video: held through a drop-out where their motion was taking them).
    extensions: each quad's extension (None where none), or None at natural length; never in the coverage."""

    frame: NDArray[np.uint8]
    coverage: NDArray[np.uint8] | None
    hands: list[HandObservation]
    quads: list[NailQuad]
    timings: StageTimings = field(default_factory=StageTimings)
    masks: list[NailMask | None] | None = None
    held: int = 0
    extensions: list[NailExtension | None] | None = None


@dataclass(frozen=True, eq=False)
class TrackedFrame:
    """A video frame between the two stages: the frame ((H, W, 3) uint8 BGR, not yet painted), its timestamp,
    the hands found in it (raw landmarks, before smoothing), the track stage's milliseconds, and whether the
    video restarted here (see `TryOnPipeline.track_video_frame`)."""

    frame: NDArray[np.uint8]
    timestamp_ms: int
    hands: list[HandObservation]
    track_ms: float
    restart: bool = False


class TryOnPipeline:
    """Owns the landmarkers (opened lazily; close with `close()` or a `with` block) and a Compositor.

    mirrored: frames are shown mirrored (a selfie camera), which flips MediaPipe's handedness.
    max_hands: hands tracked in video (each one costs ~10 ms more of palm detection).
    still_masks: how a still's nails are shaped (see STILL_MASKS); segment_every: video runs the segmenter on
    every n-th frame and carries the masks in between; segmenter: a loaded live NailSegmenter to share (else the
    bundled live build is loaded on first use); still_segmenter: the same for stills (else the bundled still
    build, nail_segmenter.STILL_MODEL); preloaded: the video models being loaded meanwhile
    (vision/tracking/model_preload.py), taken on the first video frame; recover_every: while fewer than max_hands
    hands are tracked, try one view of the still cascade every n-th frame and follow what it finds
    (vision/tracking/hand_recovery.py); 0 turns that off.
    video_tracker: a VIDEO-mode HandTracker to use (tools/compare_hand_models.py's other model), else one is made.
    adapt_cadence: the live mirror's; while painted frames come further apart than the source's (a slower PC), the
    segmenter and the re-detection run less often (vision/cadence.py) rather than frames being dropped.
    active: the kiosk's release holder (vision/nails/active_models.py): while it holds a release, video runs its
    live segmenter and stills its still one, instead of the bundled builds (kept as the fallback).
    full_frame: a still where no hand is found is painted with the full-frame model's nails (with the model's masks
    only; vision/nails/full_frame.py), loaded on the first such image (from `full_frame_path`, else the bundled
    models/nail_full_frame.onnx), unless `full_frame_model` is a loaded one to use (the tools' fold models).
    Each full-frame nail is checked and outlined by the segmenter before it is painted
    (vision/nails/full_frame_check.py: the full-frame model alone paints nails on faces, cups and counters).
    video_full_frame: so is a video frame with no hand tracked and no nail held (with the live segmenter as the
    check, a nail it passed on the frame before staying while it is found there again), and a frame whose hands
    paint fewer than FINGERS nails a hand gets the checked nails that touch none of theirs. On in the product;
    tools/video_cv_eval.py measures it on the clips, tools/score_negatives.py --video-frames at an empty counter.
    Video: `process_video_frame`, or its two stages `track_video_frame` / `paint_video_frame` (see the module).
    """

    def __init__(self, compositor: Compositor, *, mirrored: bool = False, max_hands: int = 2,
                 smoothing: bool = True, still_masks: StillMasks = STILL_MASKS, segment_every: int = SEGMENT_EVERY,
                 segmenter: NailSegmenter | None = None, still_segmenter: NailSegmenter | None = None,
                 recover_every: int = 3,
                 preloaded: Future[VideoModels] | None = None,
                 video_tracker: HandTracker | None = None, adapt_cadence: bool = False,
                 active: ActiveSegmenters | None = None, full_frame: bool = True,
                 full_frame_path: Path | None = None, full_frame_model: FullFrameModel | None = None,
                 video_full_frame: bool = True) -> None:
        if segment_every < 1:
            raise ValueError(f"segment_every must be at least 1, not {segment_every}")
        self.compositor = compositor
        # the customer's shape and length (§3): swapped in one assignment, read once per frame
        self.nail_form: NailForm = NATURAL
        self.mirrored = mirrored
        self.max_hands = max_hands
        self.smoothing = smoothing
        self.still_masks = still_masks
        self.segment_every = segment_every
        self._segmenter = segmenter
        self._still_segmenter = still_segmenter
        self._active = active
        self.full_frame = full_frame
        self._full_frame_path = full_frame_path
        self._full_frame = full_frame_model  # else loaded on the first image with no hand
        self.video_full_frame = video_full_frame
        self._video_full_frame_failed = False
        self._fallback_painted: list[FallbackNail] = []  # the video fallback's nails on the last frame
        self._still_detector: StillHandDetector | None = None
        self._video_tracker: HandTracker | None = video_tracker  # opened on first use; closed with the pipeline
        self._smoother: HandSmoother | None = None
        self._nails = NailTracks()
        self._last_paint_ms: int | None = None  # the last painted frame's timestamp (nail_tracks' frames)
        self._video_frames = 0
        self.recover_every = recover_every
        self._recovery: HandRecovery | None = None
        # the live mirror's: segmenter and re-detection cadence lowered while frames would be dropped (cadence.py)
        self._governor = CadenceGovernor(_levels_from(segment_every, recover_every)) if adapt_cadence else None
        self._preloaded = preloaded
        # The two stages run on two threads and each may be first to want a preloaded model: the second waits
        # here until the first has adopted them (else it saw no preload left and loaded a second copy).
        self._preload_lock = threading.Lock()

    def __enter__(self) -> TryOnPipeline:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._take_preloaded()  # a preload still running is waited for: its tracker must be closed too
        for resource in (self._still_detector, self._video_tracker, self._recovery):
            if resource is not None:
                resource.close()
        self._still_detector = self._video_tracker = self._smoother = self._recovery = None

    def process_still(self, image: NDArray[np.uint8], *, want_coverage: bool = True,
                      full: NDArray[np.uint8] | None = None) -> TryOnResult:
        """Find hands in a photo ((H, W, 3) uint8 BGR) and paint their nails.

        full: the same photo at its own size when `image` is a reduced copy of it (a large photo: the hands are
        found as well at the reduced size, for a fraction of the memory). The hands found on `image` are scaled
        to `full`, and the nails are segmented and painted on `full` itself, in place: the masks' edges are
        resolved at the photo's own pixels, not scaled up from the reduced copy. The result's frame, coverage,
        hands and quads are then `full`'s."""
        start = time.perf_counter()
        hands = self._still().detect(image)
        if full is not None:
            hands = scaled_hands(hands, full.shape[1] / image.shape[1], full.shape[0] / image.shape[0])
            image = full
        tracked = time.perf_counter()
        segmenter = self.still_segmenter() if self.still_masks == "model" and hands else None
        quads, masks, placed = place_nails(image, hands, mirrored=self.mirrored, masks=self.still_masks,
                                           segmenter=segmenter,
                                           full_frame=self.full_frame_model if self.full_frame else None)
        shaped = time.perf_counter()
        stage = {"refine": _ms(placed, shaped)} if self.still_masks == "grabcut" else {"segment": _ms(placed, shaped)}
        return self._paint(image, hands, quads, masks, want_coverage, in_place=full is not None, start=start,
                           timings=StageTimings(track=_ms(start, tracked), geometry=_ms(tracked, placed), **stage))

    def process_video_frame(self, frame: NDArray[np.uint8], timestamp_ms: int, *, want_coverage: bool = False,
                            in_place: bool = False) -> TryOnResult:
        """Track hands in one video frame ((H, W, 3) uint8 BGR; timestamps increasing) and paint their nails:
        `track_video_frame` then `paint_video_frame`, one after the other (the CLI, eval and benchmarks).

        in_place=True paints into `frame` itself and saves a full-frame copy (the live loop owns its frames).
        """
        return self.paint_video_frame(self.track_video_frame(frame, timestamp_ms), want_coverage=want_coverage,
                                      in_place=in_place)

    def track_video_frame(self, frame: NDArray[np.uint8], timestamp_ms: int, *, restart: bool = False) -> TrackedFrame:
        """Stage 1 of a video frame: the landmarks of `frame` (VIDEO-mode landmarker, then re-detection while a
        hand is missing). It touches only the landmarkers, so it may run on one thread while `paint_video_frame`
        paints the previous frame on another (MediaPipe and onnxruntime release the GIL). restart=True: the video
        jumped (a re-opened source); the recovery forgets its hands here and the paint stage its smoothing and
        nail tracks when it gets this frame."""
        start = time.perf_counter()
        if restart and self._recovery is not None:
            self._recovery.reset()
        hands = self._video().track(frame, timestamp_ms)
        if self.recover_every > 0:
            hands = self._recovered().update(frame, hands, self.max_hands)
        return TrackedFrame(frame, timestamp_ms, hands, _ms(start, time.perf_counter()), restart)

    def paint_video_frame(self, tracked: TrackedFrame, *, want_coverage: bool = False,
                          in_place: bool = False) -> TryOnResult:
        """Stage 2 of a video frame: smoothing, nail geometry and tracks, the segmenter and the compositor, on
        the frame `tracked` came from and with its landmarks (the paint never lags the hand). Frames must come in
        the order they were tracked; it touches only the smoother, the nail tracks, the segmenter and the
        compositor. in_place: see process_video_frame."""
        start = time.perf_counter()
        if tracked.restart:
            self._reset_paint_state()
        frame, hands, timestamp_ms = tracked.frame, tracked.hands, tracked.timestamp_ms
        if self.smoothing:
            hands = self._smoothing().update(hands, timestamp_ms)
        smoothed = time.perf_counter()
        elapsed = 1.0 if self._last_paint_ms is None else (timestamp_ms - self._last_paint_ms) / SOURCE_FRAME_MS
        if self._governor is not None and self._last_paint_ms is not None:
            self._adopt(self._governor.observe(timestamp_ms - self._last_paint_ms))
        self._last_paint_ms = timestamp_ms
        nails = self._nails.update(nail_quads_for_hands(hands, mirrored=self.mirrored), elapsed)
        placed = time.perf_counter()
        fresh = self._video_frames % self.segment_every == 0
        self._video_frames += 1
        quads, masks = self._video_masks(frame, nails, fresh)
        held = sum(1 for nail, quad in zip(nails, quads, strict=True) if not nail.seen and quad.opacity > 0)
        painted = sum(1 for quad in quads if quad.opacity > 0)
        if self.video_full_frame and not hands and not held:
            # no hand and nothing held: a fingertip close-up no landmarker holds (vision/nails/full_frame.py)
            quads, masks = self._full_frame_nails(frame)
        elif self.video_full_frame and fresh and painted < FINGERS * max(1, len(hands)):
            # hands (or a lost hand's held nails) with nails unpainted (a close-up whose skeleton is off its
            # fingers, a hand not yet found, one that flickers): the checked full-frame nails that touch none of
            # theirs are painted too, as on no hand of `hands` (an index past them: the extension and the framing
            # look up no landmarks for them)
            found_quads, found_masks = self._full_frame_nails(frame)
            beside = [mask for mask in masks if mask is not None]
            for quad, mask in zip(found_quads, found_masks, strict=True):
                if mask is not None and not any(painted_overlap(mask, other) for other in beside):
                    alone = replace(quad, hand_index=len(hands))
                    quads.append(alone)
                    masks.append(replace(mask, quad=alone))
        else:
            self._fallback_painted = []  # no fallback on this frame: its next nail passes the check anew
        segmented = time.perf_counter()
        # `total` is the two stages' own time (a two-stage loop may leave a gap between them)
        return self._paint(frame, hands, quads, masks, want_coverage, in_place=in_place,
                           start=start - tracked.track_ms / 1000.0,
                           timings=StageTimings(track=tracked.track_ms, smooth=_ms(start, smoothed),
                                                geometry=_ms(smoothed, placed), segment=_ms(placed, segmented)),
                           held=held)

    def _full_frame_nails(self, frame: NDArray[np.uint8]) -> tuple[list[NailQuad], list[NailMask | None]]:
        """The full-frame model's nails on a video frame; a model that cannot be loaded turns the video fallback
        off (logged once) rather than stopping the mirror: the hands' own path does not need it."""
        if self._video_full_frame_failed:
            return [], []
        from nailmirror_desktop.vision.nails.full_frame import FullFrameModelError

        try:
            model = self.full_frame_model()
        except FullFrameModelError as exc:
            log.warning("the full-frame fallback is off for video: %s", exc)
            self._video_full_frame_failed = True
            return [], []
        quads, masks = model.nails(frame)
        # checked by the live segmenter (full_frame_check.py); a nail it passed on the last frame stays while the
        # segmenter finds it there again, proposed or not (a while). Edges as the ROI path's in video: without the
        # per-nail refinement.
        segmenter = self.segmenter()
        quads, masks = checked_nails(frame, quads, masks, segmenter,
                                     held=[nail.mask for nail in self._fallback_painted], refine_edges=False)
        carried = carried_nails(frame, self._fallback_painted, masks, segmenter, refine_edges=False)
        self._fallback_painted = [FallbackNail(mask) for mask in masks if mask is not None] + carried
        return quads + [nail.mask.quad for nail in carried], masks + [nail.mask for nail in carried]

    @property
    def cadence(self) -> CadenceLevel:
        """The cadence the video path runs at now (the governor's, or the one it was built with)."""
        return CadenceLevel(self.segment_every, self.recover_every)

    def _adopt(self, level: CadenceLevel) -> None:
        if level == self.cadence:
            return
        log.info("live cadence: segmenter every %d frame(s), hand search every %d", level.segment_every,
                 level.search_every)
        self.segment_every = level.segment_every
        if self.recover_every > 0:  # (0: re-detection is off, and stays off)
            self.recover_every = level.search_every
            if self._recovery is not None:
                self._recovery.search_every = level.search_every  # read by the track stage's next frame

    def reset_tracking(self) -> None:
        """Forget smoothing and nail state (call when the video jumps, e.g. a looping demo restarts)."""
        self._reset_paint_state()
        if self._recovery is not None:
            self._recovery.reset()

    def _reset_paint_state(self) -> None:
        self._smoother = None
        self._fallback_painted = []
        self._nails.reset()
        self._last_paint_ms = None
        self._video_frames = 0

    def segmenter(self) -> NailSegmenter:
        """The live nail segmenter: the active release's (read once per frame, so a switch lands between frames),
        else the bundled one, loaded (and sha256-checked) on first use."""
        release = None if self._active is None else self._active.for_video()
        if release is not None:
            return release
        return self.bundled_segmenter()

    def still_segmenter(self) -> NailSegmenter:
        """The stills' segmenter: the still slot's release, else the bundled still build (loaded on first use)."""
        release = None if self._active is None else self._active.for_still()
        if release is not None:
            return release
        if self._still_segmenter is None:
            from nailmirror_desktop.vision.nails.nail_segmenter import STILL_MODEL, bundled_segmenter

            self._still_segmenter = bundled_segmenter(STILL_MODEL)
        return self._still_segmenter

    def full_frame_model(self) -> FullFrameModel:
        """The stills' fallback where no hand is found (models/nail_full_frame.onnx), loaded on first use."""
        if self._full_frame is None:
            from nailmirror_desktop.vision.nails.full_frame import FullFrameModel

            self._full_frame = FullFrameModel(self._full_frame_path)
        return self._full_frame

    def bundled_segmenter(self) -> NailSegmenter:
        """The live model shipped with the kiosk (models/nail_segmenter.onnx), loaded on first use."""
        self._take_preloaded()
        if self._segmenter is None:
            from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter

            self._segmenter = NailSegmenter()
        return self._segmenter

    def _video_masks(self, frame: NDArray[np.uint8], nails: list[TrackedNail],
                     fresh: bool) -> tuple[list[NailQuad], list[NailMask | None]]:
        """Each tracked nail's mask: the segmenter's, on a fresh frame for the nails seen (between fresh frames for
        a nail with nothing to carry); else the carried one.
        A painted nail left with no mask is not painted (its quad's opacity becomes 0)."""
        masks: list[NailMask | None] = [None] * len(nails)
        # on a fresh frame every painted nail seen; between, only those with no mask to carry (a nail just
        # turned on or re-tracked), so a cadence never leaves a new nail bare
        # a fading nail (nail_tracks' grace) on every frame: the model alone keeps it painted
        wanted = [i for i, nail in enumerate(nails) if nail.seen and (nail.fading or nail.quad.opacity > 0
                  and (fresh or nail.last_mask is None))]
        confirmed: set[int] = set()
        if wanted:
            priors = [_prior(nails[i], frame.shape) for i in wanted]
            asked = [replace(nails[i].quad, opacity=1.0) if nails[i].fading else nails[i].quad for i in wanted]
            found = self.segmenter().segment_nails(frame, asked, priors, refine_edges=False)
            for i, prior, result in zip(wanted, priors, found, strict=True):
                if nails[i].fading:
                    if result is None or prior is None or painted_share(result.mask, prior) < SWAP_BELOW:
                        continue  # not found where it was painted: it faded out
                    confirmed.add(i)
                elif result is None or _swapped(result.mask, prior, nails[i]):
                    continue  # a miss: its last mask is carried below
                masks[i] = result.mask
                self._nails.remember(nails[i].track_id, result.roi_mask, result.mask)
        quads = []
        for i, nail in enumerate(nails):
            if masks[i] is None and nail.quad.opacity > 0 and nail.mask_age > 0:
                if nail.last_mask is not None and nail.moved is not None:
                    masks[i] = shifted_mask(nail.last_mask, nail.moved, frame.shape)
                elif nail.roi_mask is not None:
                    masks[i] = carry_mask(nail.roi_mask, nail.quad, frame.shape)
            if i in confirmed:
                quads.append(replace(nail.quad, opacity=1.0))
            else:
                quads.append(nail.quad if masks[i] is not None or nail.quad.opacity <= 0
                             else replace(nail.quad, opacity=0.0))
        return quads, masks

    def _paint(self, frame: NDArray[np.uint8], hands: list[HandObservation], quads: list[NailQuad],
               masks: list[NailMask | None] | None, want_coverage: bool, *, in_place: bool, start: float,
               timings: StageTimings, held: int = 0) -> TryOnResult:
        before = time.perf_counter()
        form = self.nail_form
        extensions = extend_nails(quads, masks, hands, form, frame.shape) if form.extends else None
        composite = self.compositor.composite(frame, quads, want_coverage=want_coverage, in_place=in_place,
                                              masks=masks, extensions=extensions)
        done = time.perf_counter()
        timings = replace(timings, composite=_ms(before, done), total=_ms(start, done))
        return TryOnResult(composite.frame, composite.coverage, hands, quads, timings, masks, held, extensions)

    def _still(self) -> StillHandDetector:
        if self._still_detector is None:
            from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector

            self._still_detector = StillHandDetector()
        return self._still_detector

    def _take_preloaded(self) -> None:
        """Adopt the preloaded video models once (waiting for them); if the preload failed, log it: they load
        lazily as without a preload."""
        with self._preload_lock:
            preloaded, self._preloaded = self._preloaded, None
            if preloaded is None:
                return
            try:
                models = preloaded.result()
            except Exception as exc:
                log.warning("preloading the video models failed (%s): loading them now", exc)
                return
            if self._video_tracker is None:
                self._video_tracker = models.tracker
            else:
                models.tracker.close()
            if self._segmenter is None:
                self._segmenter = models.segmenter

    def _video(self) -> HandTracker:
        self._take_preloaded()
        if self._video_tracker is None:
            from nailmirror_desktop.vision.tracking.tracker import HandTracker

            self._video_tracker = HandTracker("video", video_tracker_settings(self.max_hands))
        self._video_tracker.open()  # a no-op once open
        return self._video_tracker

    def _recovered(self) -> HandRecovery:
        if self._recovery is None:
            from nailmirror_desktop.vision.tracking.hand_recovery import HandRecovery

            self._recovery = HandRecovery(self.recover_every)
        return self._recovery

    def _smoothing(self) -> HandSmoother:
        if self._smoother is None:
            from nailmirror_desktop.vision.tracking.smoothing import HandSmoother

            self._smoother = HandSmoother()
        return self._smoother


def place_nails(image: NDArray[np.uint8], hands: list[HandObservation], *, mirrored: bool = False,
                masks: StillMasks = "quads", segmenter: NailSegmenter | None = None,
                full_frame: Callable[[], FullFrameModel] | None = None,
                ) -> tuple[list[NailQuad], list[NailMask | None] | None, float]:
    """Nail quads for `hands` in a still `image` ((H, W, 3) uint8 BGR) and their masks (one per quad, None where
    nothing is painted; the whole list None for masks="quads"); the third value is time.perf_counter() after
    the geometry. masks="model" uses `segmenter` (the bundled still build, loaded here, when None); a quad the
    model finds no nail at is left unpainted (opacity 0), so what is painted is what the coverage says. With
    masks="model" and no hand, `full_frame` (when given: it returns the loaded model) paints the full-frame
    model's nails instead (a fingertip close-up with no palm; vision/nails/full_frame.py).

    On the still path a nail is painted fully or not at all: the geometry's fade (opacity between 0 and 1 while a
    finger turns away) exists so that video does not pop; a photo has no next frame, so a nail that faces the
    camera less than half (opacity < 0.5) is left bare and the others are painted at full strength. With the
    model's masks every nail is asked whenever its fade is not fully out (STILL_MIN_OPACITY_MODEL).
    """
    quads = nail_quads_for_hands(hands, mirrored=mirrored)
    placed = time.perf_counter()
    if masks == "quads":
        return quads, None, placed
    if masks == "grabcut":
        quads = [replace(quad, opacity=1.0 if quad.opacity >= STILL_MIN_OPACITY else 0.0) for quad in quads]
        from nailmirror_desktop.vision.nails.nail_refiner import refine_nails

        return quads, refine_nails(image, quads), placed
    if not hands and full_frame is None:
        return quads, [], placed  # nothing to segment: no model to load
    if segmenter is None:
        from nailmirror_desktop.vision.nails.nail_segmenter import STILL_MODEL, bundled_segmenter

        segmenter = bundled_segmenter(STILL_MODEL)
    if not hands and full_frame is not None:
        # each full-frame nail checked and outlined by the still segmenter (vision/nails/full_frame_check.py)
        fallback_quads, fallback_masks = full_frame().nails(image)
        checked_quads, checked_masks = checked_nails(image, fallback_quads, fallback_masks, segmenter)
        return checked_quads, checked_masks, placed
    quads = [replace(quad, opacity=1.0 if quad.opacity >= STILL_MIN_OPACITY_MODEL else 0.0) for quad in quads]
    if not quads:
        return quads, [], placed
    found = segmenter.segment(image, quads)
    quads = [quad if mask is not None else replace(quad, opacity=0.0) for quad, mask in zip(quads, found, strict=True)]
    return quads, found, placed


def _levels_from(segment_every: int, recover_every: int) -> tuple[CadenceLevel, ...]:
    """The governor's levels, starting at the pipeline's own cadence (each level at least as cheap)."""
    return tuple(CadenceLevel(max(segment_every, level.segment_every), max(recover_every, level.search_every)
                              if recover_every > 0 else 0) for level in CADENCE_LEVELS)


def scaled_hands(hands: list[HandObservation], scale_x: float, scale_y: float) -> list[HandObservation]:
    """`hands` found on a photo scaled by (scale_x, scale_y) back onto the photo (z, in pixels of the width,
    scales with x)."""
    factors = np.array([scale_x, scale_y, scale_x], np.float32)
    return [HandObservation(np.asarray(hand.landmarks * factors, np.float32), hand.handedness, hand.score)
            for hand in hands]


def _prior(nail: TrackedNail, frame_shape: tuple[int, ...]) -> NailMask | None:
    """Where the nail was painted last: its last fresh mask moved as the nail has moved since (as the frames in
    between painted it), so the segmenter keeps to the nail it painted, not to where it was a cadence ago."""
    if nail.last_mask is None or nail.moved is None:
        return nail.last_mask
    return shifted_mask(nail.last_mask, nail.moved, frame_shape) or nail.last_mask


def _swapped(mask: NailMask, prior: NailMask | None, nail: TrackedNail) -> bool:
    """Whether the fresh `mask` of `nail` is taken for a miss (see SWAP_BELOW): it left the nail its `prior`
    painted, which kept up with the nail's quad, within SWAP_CARRY_FRAMES of that prior's mask being found."""
    if prior is None or not 0 < nail.mask_age <= SWAP_CARRY_FRAMES or nail.quad_moved is None:
        return False
    moved = np.zeros(2) if nail.moved is None else nail.moved
    behind = float(np.linalg.norm(nail.quad_moved - moved))
    return behind <= SWAP_NEAR * nail.quad.length and painted_share(mask, prior) < SWAP_BELOW


def video_tracker_settings(max_hands: int) -> TrackerSettings:
    """The landmarker settings for live video (shared with the benchmark's landmarker-only run)."""
    from nailmirror_desktop.vision.tracking.tracker import TrackerSettings

    return TrackerSettings(max_hands=max_hands)


def _ms(begin: float, end: float) -> float:
    return (end - begin) * 1000.0
