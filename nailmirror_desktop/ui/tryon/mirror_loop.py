"""The real-time path: a display timer pulls the newest frame, the pipeline runs off the GUI thread, the
result is painted on it.

At most one frame is in the pipeline at a time; a tick that finds the pipeline busy does nothing, and the
source's one-slot mailbox drops whatever the camera produced meanwhile. So a slow pipeline lowers the frame
rate and never builds a queue (Friture's pull model). Work goes through the one bridge (`run_in_background`),
and the worker returns a QImage that owns its pixels: no ndarray crosses back through a signal.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QImage

from nailmirror_desktop.ui.bridge import RunInBackground
from nailmirror_desktop.ui.shell.qt_images import bgr_to_qimage
from nailmirror_desktop.ui.tryon.mirror_view import MirrorView
from nailmirror_desktop.vision.supervisor import DEMO, LOST, STARTING, FramePacket, SourceSupervisor

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ShownFrame:
    """What the worker hands back: a ready-to-paint image, how many hands it saw, stage timings in ms."""

    image: QImage
    hands: int
    timings_ms: dict[str, float] = field(default_factory=dict)
    sequence: int = -1


class MirrorLoop(QObject):
    frame_shown = Signal()
    hand_seen_changed = Signal(bool)
    source_state_changed = Signal(str)

    def __init__(
        self,
        view: MirrorView,
        supervisor: SourceSupervisor,
        process_frame: Callable[[FramePacket, tuple[int, int]], ShownFrame],
        run_in_background: RunInBackground,
        *,
        interval_ms: int = 15,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._view = view
        self._supervisor = supervisor
        self._process_frame = process_frame
        self._run = run_in_background
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._on_tick)
        self._in_flight = False
        self._reopening = False
        self._hand_seen = False
        self._last_state = ""
        self._shown_at: deque[float] = deque(maxlen=60)
        self.last_timings_ms: dict[str, float] = {}
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

    def set_paused(self, paused: bool) -> None:
        """Paused: the view keeps its last frame (snapshots, staff pages) and no new work is started."""
        self._paused = paused

    def busy(self) -> bool:
        return self._in_flight or self._reopening

    def queue_depth(self) -> int:
        """Frames waiting for the pipeline: 0 or 1 by construction (the mailbox holds the rest, overwritten)."""
        return int(self._in_flight)

    def fps(self) -> float:
        if len(self._shown_at) < 2:
            return 0.0
        span = self._shown_at[-1] - self._shown_at[0]
        return (len(self._shown_at) - 1) / span if span > 0 else 0.0

    # --- the tick -----------------------------------------------------------------------------------------
    def _on_tick(self) -> None:
        if self._paused or self._in_flight:
            return  # meanwhile the mailbox keeps only the newest frame, overwriting the rest
        packet = self._supervisor.poll()
        self._publish_state()
        self._maybe_reopen()  # also while the demo plays: a camera plugged in later takes over
        if packet is None:
            return
        self._in_flight = True
        target = (self._view.width(), self._view.height())  # snapshot on main; the worker scales to it
        process = self._process_frame
        self._run(lambda: process(packet, target), self._on_processed)

    def _on_processed(self, shown: ShownFrame | None, error: BaseException | None) -> None:
        self._in_flight = False
        if self._stopped:
            return
        if error is not None or shown is None:
            self.frames_dropped_errors += 1
            log.warning("pipeline failed on a frame: %r", error)
            return
        if self._paused:
            return
        self._view.show_frame(shown.image)
        self.last_timings_ms = dict(shown.timings_ms)
        self._shown_at.append(time.monotonic())
        self._set_hand_seen(shown.hands > 0)
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
                self._set_hand_seen(False)
            self._view.set_banner(self._banner_for(state))
            self.source_state_changed.emit(state)

    def _banner_for(self, state: str) -> str:
        if state == LOST:
            return self.tr("The camera is not responding. Reconnecting…")
        if state == STARTING:
            return self.tr("Looking for a camera…")
        return ""

    def _set_hand_seen(self, seen: bool) -> None:
        self._view.set_guide_visible(not seen)
        if seen != self._hand_seen:
            self._hand_seen = seen
            self.hand_seen_changed.emit(seen)


def shown_frame_from(image_bgr: np.ndarray, hands: int, timings_ms: dict[str, float], sequence: int,
                     target_size: tuple[int, int] | None = None) -> ShownFrame:
    """Build the worker's answer (call it on the worker: cropping, scaling and the QImage copy happen there,
    so the GUI thread only blits). target_size: the view's (width, height) in pixels, or None for as-is."""
    if target_size is not None:
        image_bgr = fit_cover(image_bgr, target_size)
    return ShownFrame(bgr_to_qimage(image_bgr), hands, timings_ms, sequence)


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
