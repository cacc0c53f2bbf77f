"""The live mirror's models, loaded on a thread of their own while the window is built (cold start, #13.10).

The first painted frame needs the hand landmarker (MediaPipe import + model: ~0.35-0.7 s) and the nail segmenter
(onnxruntime + model: ~0.15 s). Loaded lazily on the first frame, they ran after the window was up, in series
with everything else; started first thing, they load while Python imports the UI and Qt builds the window.
`TryOnPipeline(preloaded=...)` takes them on its first frame (waiting there if they are not ready yet), and
falls back to loading them itself if the preload failed.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter
    from nailmirror_desktop.vision.tracking.tracker import HandTracker

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class VideoModels:
    """An opened VIDEO-mode hand tracker and a loaded nail segmenter; whoever takes them closes the tracker."""

    tracker: HandTracker
    segmenter: NailSegmenter


def load_video_models(max_hands: int) -> VideoModels:
    from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter
    from nailmirror_desktop.vision.pipeline import video_tracker_settings
    from nailmirror_desktop.vision.tracking.tracker import HandTracker

    tracker = HandTracker("video", video_tracker_settings(max_hands))
    tracker.open()
    try:
        segmenter = NailSegmenter()
    except BaseException:
        tracker.close()
        raise
    return VideoModels(tracker, segmenter)


def start_preload(max_hands: int) -> Future[VideoModels]:
    """Load the video models on a daemon thread (a kiosk closed mid-load does not wait for it at exit)."""
    future: Future[VideoModels] = Future()

    def run() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(load_video_models(max_hands))
        except BaseException as exc:  # handed to whoever takes the models: they load them again, and log it
            future.set_exception(exc)

    threading.Thread(target=run, name="model-preload", daemon=True).start()
    return future
