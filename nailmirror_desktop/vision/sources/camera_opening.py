"""Which frame source the kiosk reads: the chosen (or first working) camera, else the bundled demo video.

The composition root (app/kiosk.py) turns the config into a CameraChoice and a resolution and hands them here;
this module decides which device indexes a look tries, opens the first that works, and opens the very first
source early, on a thread of its own, while the window is still being built (the cold start's budget).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from contextlib import ExitStack
from pathlib import Path

from nailmirror_desktop.vision.sources.camera_devices import (
    CameraChoice,
    CameraDevice,
    linux_video_devices,
    resolve_camera_index,
)
from nailmirror_desktop.vision.sources.readers import CameraProbe, FrameReader

CAMERA_CANDIDATES = range(0, 4)
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".webm", ".mov")
Opener = Callable[[], FrameReader | None]


def demo_video_path(folder: Path) -> Path | None:
    videos = sorted(p for p in folder.glob("*") if p.suffix.lower() in VIDEO_SUFFIXES) if folder.is_dir() else []
    return videos[0] if videos else None


def open_demo_reader(folder: Path) -> FrameReader:
    """The first video in `folder`, looped at its own pace. Raises FileNotFoundError when there is none."""

    path = demo_video_path(folder)
    if path is None:
        raise FileNotFoundError(f"no demo video in {folder}")
    return open_video_reader(path)


def open_video_reader(path: Path) -> FrameReader:
    """`path` looped at its own pace (the demo, or a clip the salon chose)."""
    from nailmirror_desktop.vision.sources.readers import VideoFileSource

    return FrameReader(VideoFileSource(path, loop=True), paced=True)


def camera_candidates(choice: CameraChoice, list_devices: Callable[[], Sequence[CameraDevice]],
                      ) -> Callable[[], tuple[int, ...]]:
    """The indexes a look tries: automatic, the first few; a chosen camera at its index of the moment (looked up
    in `list_devices()` each time), or the index it had when it is not listed."""

    def candidates() -> tuple[int, ...]:
        if choice.automatic:
            return tuple(CAMERA_CANDIDATES)
        index = resolve_camera_index(choice, list_devices())
        return (index,) if index is not None else tuple(CAMERA_CANDIDATES)

    return candidates


def camera_opener(choice: CameraChoice, resolution: tuple[int, int], probe: CameraProbe | None = None, *,
                  list_devices: Callable[[], Sequence[CameraDevice]] | None = None) -> Opener:
    """Opens the chosen camera, or automatically the first device that opens. The supervisor calls it every few
    seconds while no camera is live; the probe's backoff decides when a look is due: until then the opener
    returns None without touching a device (and nothing is logged). A camera chosen by name is looked up again
    at every look (`list_devices`, by default the kernel's list on Linux): it opens at its index of the moment."""
    probe = probe or CameraProbe(camera_candidates(choice, list_devices or linux_video_devices))
    width, height = resolution

    def open_camera() -> FrameReader | None:
        from nailmirror_desktop.vision.sources.readers import CameraSource

        if not probe.due():
            return None
        source = probe.open_first(lambda device: CameraSource(device, width=width, height=height))
        if source is None:
            raise RuntimeError(f"NO_CAMERA (next look in {probe.delay_s:.0f} s)")
        return FrameReader(source)

    return open_camera


def open_early(opener: Opener, resources: ExitStack) -> Opener:
    """The cold start (the ~0.1-0.3 s a camera or the demo video takes to open and deliver a frame): call
    `opener` at once on a thread and start the reader, while the window is built; the supervisor's first open
    takes that reader (waiting for it, or getting the opener's error), later opens call `opener` as usual. A
    reader never taken (the kiosk closed first) is closed with `resources`."""
    early: Future[FrameReader | None] = Future()

    def run() -> None:
        try:
            reader = opener()
            if reader is not None:
                reader.start()
        except BaseException as exc:  # the supervisor's first open raises it, as the opener would have
            early.set_exception(exc)
        else:
            early.set_result(reader)

    taken = threading.Event()

    def open_source() -> FrameReader | None:
        if taken.is_set():
            return opener()
        taken.set()
        return early.result()

    def close_untaken() -> None:
        if not taken.is_set():
            taken.set()
            try:
                reader = early.result(timeout=10)
            except Exception:  # noqa: BLE001 - nothing opened, nothing to close
                return
            if reader is not None:
                reader.close()

    threading.Thread(target=run, name="source-open", daemon=True).start()
    resources.callback(close_untaken)
    return open_source
