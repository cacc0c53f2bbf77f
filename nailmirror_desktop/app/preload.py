"""Cold-start work begun before the kiosk's UI is imported (issue #13 point 10: first painted frame <= 1.5 s).

`cli kiosk` calls `start()` first thing, before importing the Qt UI (~0.5-1 s of imports); the hand landmarker
and the nail segmenter then load on their own thread (vision/tracking/model_preload.py) while the main thread imports,
builds the window and opens the demo video or camera. `app.kiosk.build_session` takes them. Only the cheap
config read happens on the caller's thread. No Qt here.
"""

from __future__ import annotations

from concurrent.futures import Future

from nailmirror_desktop.vision.tracking.model_preload import VideoModels, start_preload

_started: tuple[int, Future[VideoModels]] | None = None


def start(max_hands: int) -> None:
    """Begin loading the video models for a pipeline tracking `max_hands` hands (once per process)."""
    global _started
    if _started is None:
        _started = (max_hands, start_preload(max_hands))


def take(max_hands: int) -> Future[VideoModels] | None:
    """The preload for `max_hands`, handed over once; None when none was started (tests, other commands) or
    it was started for another hand count (its models are closed when they arrive)."""
    global _started
    started, _started = _started, None
    if started is None:
        return None
    hands, future = started
    if hands != max_hands:
        future.add_done_callback(_close_unused)
        return None
    return future


def _close_unused(done: Future[VideoModels]) -> None:
    if done.exception() is None:
        done.result().tracker.close()
