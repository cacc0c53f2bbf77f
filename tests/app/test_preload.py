"""app/preload.py: the video models started before the UI imports are handed over once, to a pipeline with the
same hand count; otherwise they are closed when they arrive. Real models."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from nailmirror_desktop.app import preload

FRAME = np.zeros((120, 160, 3), np.uint8)


def test_the_preload_is_handed_over_once_for_the_same_hand_count():
    assert preload.take(2) is None  # nothing started: build_session loads lazily as before
    preload.start(2)
    preload.start(1)  # once per process: the first start wins
    future = preload.take(2)
    assert future is not None and preload.take(2) is None
    models = future.result(timeout=120)
    assert models.tracker.track(FRAME, 1) == []
    models.tracker.close()


def test_a_preload_for_another_hand_count_is_not_used_and_its_tracker_is_closed():
    preload.start(1)
    assert preload._started is not None  # noqa: SLF001 - to watch the models nobody takes
    loading = preload._started[1]  # noqa: SLF001
    assert preload.take(2) is None
    after_close = threading.Event()  # done callbacks run in order: this one after take()'s close
    loading.add_done_callback(lambda _done: after_close.set())
    assert after_close.wait(120)
    with pytest.raises(RuntimeError, match="closed"):
        loading.result().tracker.track(FRAME, 1)
    assert preload.take(1) is None  # handed over (and dropped) once


@pytest.fixture(autouse=True)
def _no_leftover_preload():
    yield
    preload._started = None  # noqa: SLF001 - each test starts from a process that started nothing
