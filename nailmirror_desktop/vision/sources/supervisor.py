"""Keeps a frame source alive: notices when the camera stops delivering and re-opens it.

Plain Python (no Qt) so its rules are testable alone; the mirror loop calls `poll()` on every display tick
and runs `reopen()` off the GUI thread, because opening a camera can take a few hundred milliseconds.
States: STARTING (nothing yet), LIVE, LOST (no new frame for `lost_after_s`; re-open attempts every
`retry_every_s`), DEMO (the fallback source is playing because no camera could be opened; every
`probe_camera_every_s` the camera is tried again, and a camera plugged in later takes over from the demo).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

log = logging.getLogger(__name__)

STARTING, LIVE, LOST, DEMO = "STARTING", "LIVE", "LOST", "DEMO"


@dataclass(frozen=True)
class FramePacket:
    """One frame to show: image (H, W, 3) uint8 BGR; timestamp_ms monotonic; sequence increases per frame."""

    image: NDArray[np.uint8]
    timestamp_ms: int
    sequence: int


def read_latest(source: Any) -> FramePacket | None:
    """The newest frame in `source`'s mailbox, or None. Kept in one place: the FrameSource API seam."""
    frame = source.latest()
    if frame is None:
        return None
    image = getattr(frame, "image", None)
    if image is None:
        image = frame.bgr
    return FramePacket(image, int(frame.timestamp_ms), int(frame.sequence))


class SourceSupervisor:
    def __init__(
        self,
        open_source: Callable[[], Any] | None,
        open_fallback: Callable[[], Any] | None = None,
        *,
        lost_after_s: float = 2.0,
        retry_every_s: float = 1.0,
        probe_camera_every_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._open_source = open_source
        self._open_fallback = open_fallback
        self._lost_after_s = lost_after_s
        self._retry_every_s = retry_every_s
        self._probe_camera_every_s = probe_camera_every_s
        self._clock = clock
        self._lock = threading.Lock()
        self._source: Any = None
        self._state = STARTING
        self._last_sequence = -1
        self._last_frame_at = clock()
        self._last_attempt_at = -1e9
        self.reopen_count = 0

    @property
    def state(self) -> str:
        return self._state

    def poll(self) -> FramePacket | None:
        """A frame newer than the last one returned, or None. Cheap: called on the GUI thread every tick."""
        with self._lock:
            source = self._source
        packet = read_latest(source) if source is not None else None
        now = self._clock()
        if packet is not None and packet.sequence != self._last_sequence:
            self._last_sequence = packet.sequence
            self._last_frame_at = now
            if self._state in (STARTING, LOST):
                self._state = LIVE
            return packet
        stopped = source is not None and getattr(source, "running", True) is False
        if self._state == LIVE and (stopped or now - self._last_frame_at > self._lost_after_s):
            log.warning("frame source stopped (%s) or silent for %.1f s; re-acquiring",
                        getattr(source, "error", None), now - self._last_frame_at)
            self._state = LOST
        return None

    def current_source(self) -> Any:
        """The source open now (a FrameReader), or None: the settings page's preview shares it rather than
        opening the same camera a second time (ui/staff/camera_preview.py)."""
        with self._lock:
            return self._source

    def peek(self) -> FramePacket | None:
        """The newest frame of the current source, changing no state (the preview's view of the mirror's camera)."""
        source = self.current_source()
        return read_latest(source) if source is not None else None

    def needs_reopen(self) -> bool:
        if self._state == DEMO:
            return self._open_source is not None and self._clock() - self._last_attempt_at >= self._probe_camera_every_s
        if self._state == LIVE:
            return False
        if self._state == STARTING and self._source is not None and self._since_last_frame() < self._lost_after_s:
            return False
        return self._clock() - self._last_attempt_at >= self._retry_every_s

    def _since_last_frame(self) -> float:
        return self._clock() - self._last_frame_at

    def reopen(self) -> str:
        """Close the old source and open a new one (blocking: run it off the GUI thread). Returns the state."""
        if self._state == DEMO:
            return self._probe_camera()
        self._last_attempt_at = self._clock()
        with self._lock:
            old, self._source = self._source, None
        _close_quietly(old)
        source = _open_quietly(self._open_source)
        if source is None and self._open_fallback is not None and self._state == STARTING:
            source = _open_quietly(self._open_fallback)
            if source is not None:
                self._state = DEMO
        self._install(source)
        return self._state

    def _probe_camera(self) -> str:
        """While the demo plays, try the camera; switch over only when it opens, else the demo plays on."""
        self._last_attempt_at = self._clock()
        camera = _open_quietly(self._open_source)
        if camera is None:
            return self._state
        log.info("a camera appeared; leaving the demo")
        self._state = STARTING
        with self._lock:
            demo = self._source
        self._install(camera)  # swap first, close after: poll() never sees a closed source
        _close_quietly(demo)
        return self._state

    def _install(self, source: Any) -> None:
        """Make `source` current and wait for its first frame as if it had just started."""
        with self._lock:
            self._source = source
        self._last_frame_at = self._clock()
        self._last_sequence = -1
        self.reopen_count += 1

    def close(self) -> None:
        with self._lock:
            old, self._source = self._source, None
        _close_quietly(old)


def _open_quietly(opener: Callable[[], Any] | None) -> Any:
    if opener is None:
        return None
    try:
        source = opener()
        if hasattr(source, "start"):
            source.start()
        return source
    except Exception as exc:  # a camera that is not there is an expected state, not a crash
        log.info("could not open frame source: %s", exc)
        return None


def _close_quietly(source: Any) -> None:
    if source is None:
        return
    try:
        source.close()
    except Exception as exc:
        log.info("closing frame source failed: %s", exc)
