"""The real-time path: a display timer pulls the newest frame, the pipeline runs off the GUI thread, the
result is painted on it.

One stage (`process_frame` alone): at most one frame is in the pipeline; a tick that finds it busy does nothing,
and the source's one-slot mailbox drops whatever the camera produced meanwhile. Two stages (`process_frame`
tracks, `paint_frame` paints): frame N+1 is tracked while frame N is painted and shown, so a frame costs the
slower stage instead of both (MediaPipe and onnxruntime release the GIL, and the machine has two cores). At
most one frame per stage, plus one tracked frame waiting for the paint stage: a tick starts tracking only when
that slot is empty. Either way a slow pipeline lowers the frame rate and never builds a queue (Friture's pull
model). Work goes through the one bridge (`run_in_background`); the track stage's answer is an opaque handle
the loop only passes on to the paint stage, and the paint stage returns a QImage that owns its pixels: no
ndarray is a signal's argument.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QImage

from nailmirror_desktop.ui.bridge import RunInBackground
from nailmirror_desktop.ui.shell.qt_images import bgr_to_qimage
from nailmirror_desktop.ui.tryon.mirror_view import MirrorView
from nailmirror_desktop.vision.sources.supervisor import DEMO, LOST, STARTING, SourceSupervisor

log = logging.getLogger(__name__)
# The hand guide waits this long with fewer hands than wanted before it shows: a hand lost for a frame or two
# (turning, motion blur) must not make the outline flicker over the customer's nails.
GUIDE_GRACE_MS = 800
# Nails painted with no hand found: fingertips held close to the camera, painted by the full-frame fallback. The
# outline would sit over the very nails the mirror paints and ask her to do what already works, so it goes.
CLOSE_UP_NAILS = 3


@dataclass(frozen=True)
class ShownFrame:
    """What the worker hands back: a ready-to-paint image, how many hands it saw, stage timings in ms."""

    image: QImage
    hands: int
    timings_ms: dict[str, float] = field(default_factory=dict)
    sequence: int = -1
    nails: int = 0  # nails painted in it


class MirrorLoop(QObject):
    frame_shown = Signal()
    hand_seen_changed = Signal(bool)
    source_state_changed = Signal(str)

    def __init__(
        self,
        view: MirrorView,
        supervisor: SourceSupervisor,
        process_frame: Callable[..., Any],
        run_in_background: RunInBackground,
        *,
        paint_frame: Callable[[Any, tuple[int, int]], ShownFrame] | None = None,
        interval_ms: int = 15,
        hands_wanted: int = 2,
        parent: QObject | None = None,
    ) -> None:
        """process_frame(packet, view size) → ShownFrame does a frame's whole work; or, with paint_frame,
        process_frame(packet) → handle tracks it and paint_frame(handle, view size) → ShownFrame paints it.
        hands_wanted: hands the guide asks for (the tracker's max_hands): fewer for GUIDE_GRACE_MS shows it."""
        super().__init__(parent)
        self._view = view
        self._supervisor = supervisor
        self._process_frame = process_frame
        self._paint_frame = paint_frame
        self._run = run_in_background
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._on_tick)
        self._tracking = False  # a frame is in the track stage (two stages only)
        self._staged: Any = None  # a tracked frame waiting for the paint stage (two stages only)
        self._painting = False  # a frame is in the paint stage (or, one stage, in the pipeline)
        self._reopening = False
        self._hand_seen = False
        self._hands_tracked = 0
        self._hands_wanted = max(1, hands_wanted)
        self._view.set_guide_hands(self._hands_wanted)
        self._guide_timer = QTimer(self)
        self._guide_timer.setSingleShot(True)
        self._guide_timer.setInterval(GUIDE_GRACE_MS)
        self._guide_timer.timeout.connect(lambda: self._view.set_guide_visible(True))
        self._last_state = ""
        self._shown_at: deque[float] = deque(maxlen=60)
        self.last_timings_ms: dict[str, float] = {}
        self.last_nails = 0  # nails painted in the last frame shown
        self.frames_dropped_errors = 0
        self._paused = False
        self._stopped = False

    # --- control ------------------------------------------------------------------------------------------
    def start(self) -> None:
        self._stopped = False
        self._timer.start()

    def stop(self) -> None:
        """No new work; a frame still in the pipeline is dropped when it comes back."""
        self._stopped = True
        self._timer.stop()
        self._guide_timer.stop()

    def set_paused(self, paused: bool) -> None:
        """Paused: the view keeps its last frame (snapshots, staff pages) and no new work is started."""
        self._paused = paused

    @property
    def hands_wanted(self) -> int:
        return self._hands_wanted

    def hands_tracked(self) -> int:
        """Hands in the last frame shown (0 before the first, and while the camera is lost)."""
        return self._hands_tracked

    @property
    def two_stage(self) -> bool:
        return self._paint_frame is not None

    def busy(self) -> bool:
        return self._tracking or self._painting or self._staged is not None or self._reopening

    def queue_depth(self) -> int:
        """Frames taken from the source and not yet shown: at most 1 with one stage, 2 with two (one tracked
        while one is painted, or one painted and one waiting for it); the mailbox holds the rest, overwritten."""
        return int(self._tracking) + int(self._staged is not None) + int(self._painting)

    def fps(self) -> float:
        if len(self._shown_at) < 2:
            return 0.0
        span = self._shown_at[-1] - self._shown_at[0]
        return (len(self._shown_at) - 1) / span if span > 0 else 0.0

    # --- the tick -----------------------------------------------------------------------------------------
    def _on_tick(self) -> None:
        if self._paused or self._tracking or self._staged is not None:
            return  # meanwhile the mailbox keeps only the newest frame, overwriting the rest
        if self._paint_frame is None and self._painting:
            return
        packet = self._supervisor.poll()
        self._publish_state()
        self._maybe_reopen()  # also while the demo plays: a camera plugged in later takes over
        if packet is None:
            return
        if self._paint_frame is None:
            self._painting = True
            target = self._target()
            process = self._process_frame
            self._run(lambda: process(packet, target), self._on_processed)
            return
        self._tracking = True
        track = self._process_frame
        self._run(lambda: track(packet), self._on_tracked)

    def _target(self) -> tuple[int, int]:
        return (self._view.width(), self._view.height())  # read on main; the worker scales to it

    def _on_tracked(self, staged: Any, error: BaseException | None) -> None:
        self._tracking = False
        if self._stopped:
            return
        if error is not None or staged is None:
            self.frames_dropped_errors += 1
            log.warning("tracking failed on a frame: %r", error)
            return
        if self._paused:
            return
        if self._painting:
            self._staged = staged  # one slot: no tick starts tracking again until the paint stage takes it
        else:
            self._start_paint(staged)
        QTimer.singleShot(0, self._on_tick)  # track the next frame while this one is painted

    def _start_paint(self, staged: Any) -> None:
        paint = self._paint_frame
        assert paint is not None
        self._painting = True
        target = self._target()
        self._run(lambda: paint(staged, target), self._on_processed)

    def _on_processed(self, shown: ShownFrame | None, error: BaseException | None) -> None:
        self._painting = False
        staged, self._staged = self._staged, None  # taken even when stopped: a restarted loop must find it empty
        if self._stopped:
            return
        if staged is not None and not self._paused:
            self._start_paint(staged)  # the frame tracked meanwhile: paint it now, in order
        if error is not None or shown is None:
            self.frames_dropped_errors += 1
            log.warning("pipeline failed on a frame: %r", error)
            return
        if self._paused:
            return
        self._view.show_frame(shown.image)
        self.last_timings_ms = dict(shown.timings_ms)
        self.last_nails = shown.nails
        self._shown_at.append(time.monotonic())
        self._set_hands(shown.hands, shown.nails)
        self.frame_shown.emit()
        QTimer.singleShot(0, self._on_tick)  # a newer frame may be waiting: start it now, not at the next tick

    def _maybe_reopen(self) -> None:
        if self._reopening or not self._supervisor.needs_reopen():
            return
        self._reopening = True
        self._run(self._supervisor.reopen, self._on_reopened)

    def _on_reopened(self, state: str | None, error: BaseException | None) -> None:
        self._reopening = False
        if not self._stopped:
            self._publish_state()

    def _publish_state(self) -> None:
        state = self._supervisor.state
        if state != self._last_state:
            self._last_state = state
            if state == LOST:
                self._hands_tracked = 0
                self._guide_timer.stop()
                self._view.set_guide_visible(True)
                self._set_hand_seen(False)
            self._view.set_banner(self._banner_for(state))
            self.source_state_changed.emit(state)

    def _banner_for(self, state: str) -> str:
        if state == LOST:
            return self.tr("The camera is not responding. Reconnecting…")
        if state == STARTING:
            return self.tr("Looking for a camera…")
        return ""

    def _set_hands(self, hands: int, nails: int = 0) -> None:
        """The guide goes at once when every wanted hand is tracked or a close-up's nails are painted with no
        hand (CLOSE_UP_NAILS), and comes back only after GUIDE_GRACE_MS without (a QTimer: the GUI thread never
        waits)."""
        self._hands_tracked = hands
        if hands >= self._hands_wanted or (hands == 0 and nails >= CLOSE_UP_NAILS):
            self._guide_timer.stop()
            self._view.set_guide_visible(False)
        elif not self._view.guide_visible() and not self._guide_timer.isActive():
            self._guide_timer.start()
        self._set_hand_seen(hands > 0)

    def _set_hand_seen(self, seen: bool) -> None:
        if seen != self._hand_seen:
            self._hand_seen = seen
            self.hand_seen_changed.emit(seen)


def shown_frame_from(image_bgr: np.ndarray, hands: int, timings_ms: dict[str, float], sequence: int,
                     target_size: tuple[int, int] | None = None, *, nails: int = 0) -> ShownFrame:
    """Build the worker's answer (call it on the worker: cropping, scaling and the QImage copy happen there,
    so the GUI thread only blits). target_size: the view's (width, height) in pixels, or None for as-is."""
    if target_size is not None:
        image_bgr = fit_cover(image_bgr, target_size)
    return ShownFrame(bgr_to_qimage(image_bgr), hands, timings_ms, sequence, nails)


def fit_cover(image: np.ndarray, target_size: tuple[int, int]) -> np.ndarray:
    """Scale (H, W, 3) uint8 to fill `target_size` (width, height), cropping the overflow around the centre."""
    import cv2

    width, height = max(1, target_size[0]), max(1, target_size[1])
    scale = max(width / image.shape[1], height / image.shape[0])
    crop_w, crop_h = min(image.shape[1], round(width / scale)), min(image.shape[0], round(height / scale))
    x0, y0 = (image.shape[1] - crop_w) // 2, (image.shape[0] - crop_h) // 2
    crop = image[y0 : y0 + crop_h, x0 : x0 + crop_w]
    # INTER_AREA only pays off (against aliasing) for strong shrinking; near 1:1 it costs ~5× INTER_LINEAR per frame
    interpolation = cv2.INTER_AREA if scale < 0.5 else cv2.INTER_LINEAR
    return cv2.resize(crop, (width, height), interpolation=interpolation)


__all__ = ["MirrorLoop", "ShownFrame", "shown_frame_from", "DEMO", "LOST"]
