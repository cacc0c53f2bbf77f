"""The settings page's camera part: the cameras by name (Qt's list) and a small live preview of the chosen one.

Who holds the camera (ARCHITECTURE.md §3, "Which camera"): while the preview runs, the mirror is paused, so its
supervisor neither reads frames into the pipeline nor probes or re-opens a camera. A chosen camera that the
mirror has open already is previewed through the mirror's own source (`SourceSupervisor.peek`), never opened
twice (a V4L2 or Media Foundation camera streams to one opener only). Any other camera is opened by the preview
itself, off the GUI thread at a small size, and closed when the page is left; then the mirror resumes, and the
supervisor finds that camera by itself if it is the one it looks for.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from nailmirror_desktop.ui.bridge import RunInBackground, run_in_background
from nailmirror_desktop.ui.shell.qt_images import bgr_to_qimage
from nailmirror_desktop.vision.sources.camera_devices import CameraDevice, devices_from_listing, linux_video_devices
from nailmirror_desktop.vision.sources.readers import CameraSource, FrameReader, SourceUnavailable, quiet_opencv

log = logging.getLogger(__name__)

PREVIEW_SIZE = QSize(320, 180)
PREVIEW_INTERVAL_MS = 40  # asks 25 FPS of the feed; the page promises at least 10
PREVIEW_CAPTURE = (640, 360)  # a second camera streaming beside the mirror's: small, to spare the USB bus
AUTO_CANDIDATES = (0, 1, 2, 3)


def qt_camera_devices() -> list[CameraDevice]:
    """The cameras Qt lists (QMediaDevices.videoInputs: description and id), in Qt's order, with the index
    OpenCV opens (vision/sources/camera_devices.py). Call on the GUI thread. A build without Qt Multimedia, or whose
    media backend did not load, falls back to the kernel's list on Linux (names from sysfs), to nothing elsewhere."""
    linux = sys.platform.startswith("linux")
    os_devices = linux_video_devices() if linux else []
    try:
        from PySide6.QtMultimedia import QMediaDevices
    except ImportError:
        log.info("Qt Multimedia is missing: cameras listed from the system instead")
        return os_devices
    entries = [(bytes(d.id().data()).decode("utf-8", "replace"), d.description())
               for d in QMediaDevices.videoInputs()]
    if not entries and os_devices:
        # Qt lists nothing while the kernel has cameras: its media backend did not load (the FFmpeg plugin needs
        # the system's libpulse and libdrm). The kernel's names are the same V4L2 card names Qt would show.
        log.info("Qt lists no camera but the system has %d: listed from the system", len(os_devices))
        return os_devices
    return devices_from_listing(entries, linux=linux, os_devices=os_devices)


class Feed(Protocol):
    """What the preview pulls: the newest frame (with .image BGR and .sequence), and a way to let it go."""

    shared: bool

    def latest(self) -> Any: ...

    def close(self) -> None: ...


class SharedFeed:
    """The mirror's own source, borrowed: closing it gives it back untouched."""

    shared = True

    def __init__(self, supervisor: Any) -> None:
        self._supervisor = supervisor

    def latest(self) -> Any:
        return self._supervisor.peek()

    def close(self) -> None:
        return None


class OwnedFeed:
    """A camera the preview opened itself (a FrameReader): closing it stops the reader and releases the camera."""

    shared = False

    def __init__(self, reader: FrameReader) -> None:
        self.reader = reader

    def latest(self) -> Any:
        return self.reader.latest()

    def close(self) -> None:
        self.reader.close()


def open_camera_reader(index: int) -> FrameReader:
    """The preview's own capture of camera `index`, started (blocking: a camera takes a few hundred ms)."""
    with quiet_opencv():
        return FrameReader(CameraSource(index, width=PREVIEW_CAPTURE[0], height=PREVIEW_CAPTURE[1])).start()


class PreviewFeeds:
    """Opens the feed for a chosen camera, off the GUI thread, sharing the mirror's when it is the same camera.

    supervisor: the mirror's SourceSupervisor (None: a page on its own, nothing to share or pause);
    pause_mirror(paused): pauses the mirror loop while a preview runs; open_camera(index): a started reader
    (tests hand in a video file played like a camera)."""

    def __init__(self, run: RunInBackground = run_in_background, *, supervisor: Any = None,
                 pause_mirror: Callable[[bool], None] | None = None,
                 open_camera: Callable[[int], FrameReader] = open_camera_reader,
                 candidates: tuple[int, ...] = AUTO_CANDIDATES) -> None:
        self._run = run
        self._supervisor = supervisor
        self._pause_mirror = pause_mirror
        self._open_camera = open_camera
        self._candidates = candidates

    def pause_mirror(self, paused: bool) -> None:
        if self._pause_mirror is not None:
            self._pause_mirror(paused)

    def mirror_camera(self) -> int | None:
        """The index of the camera the mirror has open now, or None (the demo, or nothing)."""
        source = self._supervisor.current_source() if self._supervisor is not None else None
        device = getattr(getattr(source, "source", None), "device", None)
        return device if isinstance(device, int) and not isinstance(device, bool) else None

    def open(self, index: int | None, on_ready: Callable[[Feed | None, BaseException | None], None], *,
             listed: tuple[int, ...] = ()) -> None:
        """The feed for camera `index` (None: automatic, the mirror's camera or the first of the `listed` indexes,
        else of 0–3, that opens), handed to `on_ready(feed, error)` on the GUI thread."""
        mirror = self.mirror_camera()
        if mirror is not None and index in (None, mirror):
            on_ready(SharedFeed(self._supervisor), None)
            return
        candidates = (listed or self._candidates) if index is None else (index,)
        opener = self._open_camera

        def open_first() -> Feed:
            error: Exception = SourceUnavailable("CAMERA_NOT_FOUND", "no camera opened")
            for candidate in candidates:
                try:
                    return OwnedFeed(opener(candidate))
                except Exception as exc:  # noqa: BLE001 — the next candidate, then the page says so
                    error = exc
            raise error

        self._run(open_first, on_ready)

    def release(self, feed: Feed) -> None:
        """Give `feed` up: a camera the preview opened is closed off the GUI thread (its reader joins)."""
        if not feed.shared:
            self._run(feed.close, _log_close_error)


def _log_close_error(_result: object, error: BaseException | None) -> None:
    if error is not None:
        log.info("closing the preview's camera failed: %s", error)


class CameraPreview(QWidget):
    """A small live picture of one camera; `show_feed` starts it, `stop` ends it; a message in words otherwise."""

    frame_shown = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.picture = QLabel()
        self.picture.setFixedSize(PREVIEW_SIZE)
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setObjectName("cameraPreview")
        self.picture.setStyleSheet("background: #202020; color: #f0f0f0; border-radius: 8px;")
        self.picture.setWordWrap(True)
        self.picture.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.picture)
        self._timer = QTimer(self)
        self._timer.setInterval(PREVIEW_INTERVAL_MS)
        self._timer.timeout.connect(self._on_tick)
        self._feed: Feed | None = None
        self._last_sequence = -1
        self.frames_shown = 0

    @property
    def feed(self) -> Feed | None:
        return self._feed

    @property
    def running(self) -> bool:
        return self._feed is not None

    def show_feed(self, feed: Feed) -> None:
        self._feed = feed
        self._last_sequence = -1
        self.frames_shown = 0
        self._timer.start()

    def stop(self) -> Feed | None:
        """Stop pulling; the feed is handed back for its owner to release."""
        self._timer.stop()
        feed, self._feed = self._feed, None
        return feed

    def show_message(self, text: str) -> None:
        self.picture.clear()
        self.picture.setText(text)

    def message(self) -> str:
        return self.picture.text()

    def _on_tick(self) -> None:
        frame = self._feed.latest() if self._feed is not None else None
        if frame is None or frame.sequence == self._last_sequence:
            return
        self._last_sequence = frame.sequence
        image = bgr_to_qimage(frame.image).scaled(PREVIEW_SIZE, Qt.AspectRatioMode.KeepAspectRatio,
                                                  Qt.TransformationMode.FastTransformation)
        self.picture.setPixmap(QPixmap.fromImage(image))
        self.frames_shown += 1
        self.frame_shown.emit()
