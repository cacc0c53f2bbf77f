"""Where frames come from: a camera, a video file or a still image, behind one interface.

A `FrameSource` is pulled synchronously (`read()`); for live use a `FrameReader` thread pumps one into a
`LatestFrameMailbox`, a single slot that the newest frame overwrites. A consumer slower than the source
therefore drops frames (counted) instead of falling ever further behind a queue.

Frames carry a monotonic timestamp in milliseconds (what the VIDEO-mode landmarker needs) and a sequence number
that increases by one per frame the source delivered.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray


class SourceState(Enum):
    CLOSED = "closed"
    OPEN = "open"
    ENDED = "ended"  # a video or still ran out (not looping)
    LOST = "lost"  # a camera stopped delivering: unplugged, or taken by another program


class FrameSourceError(RuntimeError):
    """A source could not be opened or read. `code` is a stable identifier for the UI to translate."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


class SourceUnavailable(FrameSourceError):
    """The camera is not there (never opened, or unplugged while running). Reopen to try again."""


@dataclass(frozen=True, eq=False)
class Frame:
    """image: (H, W, 3) uint8 BGR; timestamp_ms: monotonic per source; sequence: 0, 1, 2, … per delivered frame."""

    image: NDArray[np.uint8]
    timestamp_ms: int
    sequence: int


class FrameSource(ABC):
    """Pull frames one at a time. `read()` returns None when the stream has ended and raises
    SourceUnavailable when a camera is lost. Use as a context manager or call open()/close()."""

    def __init__(self) -> None:
        self.state = SourceState.CLOSED
        self._sequence = 0

    def __enter__(self) -> FrameSource:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @abstractmethod
    def open(self) -> None: ...

    @abstractmethod
    def read(self) -> Frame | None: ...

    def close(self) -> None:
        self.state = SourceState.CLOSED

    def reopen(self) -> None:
        self.close()
        self.open()

    @property
    def nominal_fps(self) -> float | None:
        """Frames per second the source is meant to deliver, if known."""
        return None

    def _frame(self, image: NDArray[np.uint8], timestamp_ms: float) -> Frame:
        frame = Frame(image, int(timestamp_ms), self._sequence)
        self._sequence += 1
        return frame


class CameraSource(FrameSource):
    """A camera through cv2.VideoCapture. A camera that cannot be opened, or stops delivering, raises
    SourceUnavailable and sets state LOST; `reopen()` tries again (a replugged camera comes back)."""

    def __init__(self, device: int | str = 0, *, width: int | None = 1280, height: int | None = 720,
                 fps: float | None = 30, api_preference: int = cv2.CAP_ANY) -> None:
        super().__init__()
        self.device = device
        self.requested = (width, height, fps)
        self.api_preference = api_preference
        self._capture: cv2.VideoCapture | None = None
        self._clock_origin = time.monotonic()

    def open(self) -> None:
        if self._capture is not None:
            return
        capture = cv2.VideoCapture(self.device, self.api_preference)
        if not capture.isOpened():
            capture.release()
            self.state = SourceState.LOST
            raise SourceUnavailable("CAMERA_NOT_FOUND", f"cannot open camera {self.device!r}")
        width, height, fps = self.requested
        if width and height:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        if fps:
            capture.set(cv2.CAP_PROP_FPS, fps)
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # we want the newest frame, not the camera's backlog
        self._capture = capture
        self.state = SourceState.OPEN

    def read(self) -> Frame | None:
        if self._capture is None:
            raise SourceUnavailable("CAMERA_CLOSED", "open the camera first")
        ok, image = self._capture.read()
        if not ok or image is None:
            self._release()
            self.state = SourceState.LOST
            raise SourceUnavailable("CAMERA_LOST", f"camera {self.device!r} stopped delivering frames")
        return self._frame(_as_bgr(image), (time.monotonic() - self._clock_origin) * 1000)

    def close(self) -> None:
        self._release()
        super().close()

    @property
    def nominal_fps(self) -> float | None:
        fps = self._capture.get(cv2.CAP_PROP_FPS) if self._capture is not None else 0
        return fps if fps and fps > 0 else None

    def _release(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class CameraProbe:
    """Decides when to look for a camera that is not there, and looks without making OpenCV print.

    The supervisor asks for the camera every few seconds while the demo plays; each failed
    `cv2.VideoCapture` used to print V4L2 warnings (about 3,600 lines an hour). Here a failed probe waits
    `first_s`, then twice as long each time, up to `max_s`; a camera that opened resets the wait. On Linux only
    devices whose /dev/videoN node exists are opened at all, so an absent camera costs no OpenCV call.
    """

    def __init__(self, devices: tuple[int, ...] | Callable[[], tuple[int, ...]] = (0, 1, 2, 3), *,
                 first_s: float = 2.0, max_s: float = 60.0, clock: Callable[[], float] = time.monotonic,
                 device_exists: Callable[[int], bool] | None = None) -> None:
        # A callable is asked at every look: a camera chosen by name may have a new index since the last one
        # (vision/sources/camera_devices.py).
        self._devices = devices
        self._device_exists = device_exists or _video_node_exists
        self.first_s = first_s
        self.max_s = max_s
        self._clock = clock
        self._delay_s = 0.0  # 0: never failed, probe now
        self._next_at = -1e18
        self.attempts = 0

    @property
    def devices(self) -> tuple[int, ...]:
        return self._devices() if callable(self._devices) else self._devices

    @property
    def delay_s(self) -> float:
        """The wait after the last failure (0 before any)."""
        return self._delay_s

    def due(self) -> bool:
        return self._clock() >= self._next_at

    def failed(self) -> None:
        self._delay_s = self.first_s if self._delay_s == 0 else min(self._delay_s * 2, self.max_s)
        self._next_at = self._clock() + self._delay_s

    def succeeded(self) -> None:
        self._delay_s = 0.0
        self._next_at = -1e18

    def present_devices(self) -> tuple[int, ...]:
        """The candidate indexes worth opening: on Linux those with a /dev/videoN node, elsewhere all."""
        return tuple(d for d in self.devices if self._device_exists(d))

    def open_first(self, make: Callable[[int], CameraSource]) -> CameraSource | None:
        """The first camera of `make(index)` that opens, or None. Not due yet: None at once, nothing tried."""
        if not self.due():
            return None
        self.attempts += 1
        with quiet_opencv():
            for device in self.present_devices():
                source = make(device)
                try:
                    source.open()
                except SourceUnavailable:
                    continue
                self.succeeded()
                return source
        self.failed()
        return None


def _video_node_exists(index: int) -> bool:
    """Linux names cameras /dev/videoN; elsewhere there is no cheap test, so every index is worth a try."""
    return not sys.platform.startswith("linux") or os.path.exists(f"/dev/video{index}")


class quiet_opencv:  # noqa: N801 - used like a function: `with quiet_opencv():`
    """OpenCV's own log silenced to errors while a camera is opened (a busy or half-plugged device warns)."""

    def __enter__(self) -> None:
        self._level = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(min(self._level, cv2.utils.logging.LOG_LEVEL_ERROR))

    def __exit__(self, *exc_info: object) -> None:
        cv2.utils.logging.setLogLevel(self._level)


class VideoFileSource(FrameSource):
    """Frames of a video file. Timestamps follow the file's frame rate (not the wall clock) and keep
    increasing across loops, so a looping demo stays a valid VIDEO-mode stream."""

    def __init__(self, path: str | Path, *, loop: bool = False) -> None:
        super().__init__()
        self.path = Path(path)
        self.loop = loop
        self._capture: cv2.VideoCapture | None = None
        self._fps = 30.0
        self._frame_in_file = 0
        self._offset_ms = 0.0
        self.frame_count = 0
        self.size = (0, 0)

    def open(self) -> None:
        if self._capture is not None:
            return
        if not self.path.is_file():
            raise FrameSourceError("VIDEO_NOT_FOUND", str(self.path))
        capture = cv2.VideoCapture(str(self.path))
        if not capture.isOpened():
            capture.release()
            raise FrameSourceError("VIDEO_UNREADABLE", str(self.path))
        fps = capture.get(cv2.CAP_PROP_FPS)
        self._fps = fps if fps and 1 <= fps <= 1000 else 30.0
        self.frame_count = max(0, int(capture.get(cv2.CAP_PROP_FRAME_COUNT)))
        self.size = (int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)), int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)))
        self._capture = capture
        self._frame_in_file = 0
        self.state = SourceState.OPEN

    def read(self) -> Frame | None:
        if self._capture is None:
            if self.state is SourceState.ENDED:
                return None
            raise FrameSourceError("VIDEO_CLOSED", "open the video first")
        ok, image = self._capture.read()
        if not ok and self.loop and self._frame_in_file > 0:
            self._offset_ms += self._frame_in_file * 1000.0 / self._fps
            self._capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
            self._frame_in_file = 0
            ok, image = self._capture.read()
        if not ok or image is None:
            self._release()
            self.state = SourceState.ENDED
            return None
        timestamp_ms = self._offset_ms + self._frame_in_file * 1000.0 / self._fps
        self._frame_in_file += 1
        return self._frame(_as_bgr(image), round(timestamp_ms))

    def close(self) -> None:
        self._release()
        super().close()

    @property
    def nominal_fps(self) -> float | None:
        return self._fps

    def _release(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class StillImageSource(FrameSource):
    """One image, delivered once (or forever with `repeat=True`, e.g. to show a photo in the mirror)."""

    def __init__(self, image: NDArray[np.uint8], *, repeat: bool = False, fps: float = 30.0) -> None:
        super().__init__()
        self.image = _as_bgr(image)
        self.repeat = repeat
        self._fps = fps
        self._delivered = 0

    def open(self) -> None:
        self.state = SourceState.OPEN
        self._delivered = 0

    def read(self) -> Frame | None:
        if self.state is not SourceState.OPEN:
            return None
        if self._delivered and not self.repeat:
            self.state = SourceState.ENDED
            return None
        frame = self._frame(self.image, round(self._delivered * 1000.0 / self._fps))
        self._delivered += 1
        return frame

    @property
    def nominal_fps(self) -> float | None:
        return self._fps


def _as_bgr(image: np.ndarray) -> NDArray[np.uint8]:
    """A decoder's or camera's frame as (H, W, 3) uint8 BGR: grey and BGRA are converted, anything else refused."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8:
        return np.asarray(image, np.uint8)  # already uint8: asarray states it (no copy)
    raise FrameSourceError("FRAME_FORMAT", f"unsupported frame {image.shape} {image.dtype}")


class LatestFrameMailbox:
    """A one-slot, thread-safe mailbox: `put` overwrites, so the consumer always gets the newest frame.

    `dropped` counts frames overwritten before any consumer saw them (a slow consumer's losses).
    `latest()` peeks without waiting; `take()` waits for a frame not yet taken.
    """

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._frame: Frame | None = None
        self._seen = True
        self._closed = False
        self.put_count = 0
        self.dropped = 0

    def put(self, frame: Frame) -> None:
        with self._condition:
            if not self._seen:
                self.dropped += 1
            self._frame = frame
            self._seen = False
            self.put_count += 1
            self._condition.notify_all()

    def latest(self) -> Frame | None:
        """The newest frame (possibly one already seen), or None if none arrived yet. Never blocks."""
        with self._condition:
            self._seen = True
            return self._frame

    def take(self, timeout: float | None = None) -> Frame | None:
        """Wait up to `timeout` s for a frame not yet seen; None on timeout or once the mailbox is closed."""
        with self._condition:
            if not self._condition.wait_for(lambda: not self._seen or self._closed, timeout):
                return None
            if self._seen:
                return None
            self._seen = True
            return self._frame

    def close(self) -> None:
        with self._condition:
            self._closed = True
            self._condition.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed


class FrameReader:
    """A thread that reads `source` as fast as it delivers and posts each frame to a LatestFrameMailbox.

    With `paced=True` it waits between frames to match the source's nominal frame rate (a video file played
    like a camera). If the source raises, the error is kept in `error` and the thread stops; `close()` stops
    the thread and closes the source. Has `start`, `latest` and `close`, which is what the UI's supervisor uses.
    """

    def __init__(self, source: FrameSource, mailbox: LatestFrameMailbox | None = None, *,
                 paced: bool = False) -> None:
        self.source = source
        self.mailbox = mailbox or LatestFrameMailbox()
        self.paced = paced
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> FrameReader:
        if self._thread is None:
            self.source.open()
            self._thread = threading.Thread(target=self._run, name="frame-reader", daemon=True)
            self._thread.start()
        return self

    def latest(self) -> Frame | None:
        return self.mailbox.latest()

    def take(self, timeout: float | None = None) -> Frame | None:
        return self.mailbox.take(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def close(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.mailbox.close()
        self.source.close()

    def _run(self) -> None:
        period = 1.0 / (self.source.nominal_fps or 30.0)
        next_due = time.monotonic()
        try:
            while not self._stop.is_set():
                frame = self.source.read()
                if frame is None:
                    break
                self.mailbox.put(frame)
                if self.paced:
                    next_due += period
                    delay = next_due - time.monotonic()
                    if delay > 0:
                        self._stop.wait(delay)
                    else:
                        next_due = time.monotonic()  # fell behind: do not try to catch up in a burst
        except BaseException as exc:  # kept for the owner to inspect; a lost camera is an expected state
            self.error = exc
        finally:
            self.mailbox.close()
