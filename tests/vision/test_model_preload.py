"""The live mirror's models loaded on their own thread (cold start, #13.10), taken by the pipeline on its first
frame; a failed preload leaves the pipeline loading them itself. Real models, real demo video frames."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest

from nailmirror_desktop.core.paths import resources_dir
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from nailmirror_desktop.vision.sources.readers import VideoFileSource
from nailmirror_desktop.vision.tracking.model_preload import VideoModels, start_preload

ROOT = Path(__file__).resolve().parents[2]
RED = np.full((60, 40, 3), (0, 0, 255), np.uint8)


@pytest.fixture(scope="module")
def demo_frames():
    with VideoFileSource(resources_dir() / "demo" / "hand_demo.mp4") as source:
        frames = [source.read() for _ in range(3)]
    assert all(f is not None for f in frames)
    return frames


def _painted(pipeline: TryOnPipeline, frames) -> int:
    return max(sum(q.opacity > 0 for q in pipeline.process_video_frame(f.image, f.timestamp_ms).quads)
               for f in frames)


def test_the_pipeline_takes_the_preloaded_models_on_its_first_frame(demo_frames):
    future = start_preload(2)
    pipeline = TryOnPipeline(Compositor(RED), max_hands=2, preloaded=future)
    assert _painted(pipeline, demo_frames) >= 5  # a hand's nails at least
    models = future.result()
    assert pipeline.segmenter() is models.segmenter  # the preloaded one, not a second load
    pipeline.close()
    with pytest.raises(RuntimeError, match="closed"):  # the pipeline owned the preloaded tracker and closed it
        models.tracker.track(demo_frames[0].image, 10_000)


def test_both_stages_asking_at_once_share_the_one_preload(demo_frames):
    """The track stage takes the preload and waits for it; the paint stage asking for the segmenter meanwhile
    waits too and gets the preloaded one (it used to find no preload left and load a second segmenter)."""
    pending: Future[VideoModels] = Future()
    pipeline = TryOnPipeline(Compositor(RED), max_hands=1, preloaded=pending)
    track = threading.Thread(target=pipeline._video)
    track.start()
    while pipeline._preloaded is not None:  # the track stage has taken it and is waiting for the load
        threading.Event().wait(0.001)
    got = []
    paint = threading.Thread(target=lambda: got.append(pipeline.segmenter()))
    paint.start()
    paint.join(0.2)
    assert paint.is_alive() and got == []  # waiting for the load, not loading its own
    models = start_preload(1).result()
    pending.set_result(models)
    track.join(10)
    paint.join(10)
    assert got == [models.segmenter]
    pipeline.close()


def test_a_pipeline_closed_before_its_first_frame_still_closes_the_preloaded_tracker(demo_frames):
    future = start_preload(1)
    TryOnPipeline(Compositor(RED), max_hands=1, preloaded=future).close()  # waits for the load, then closes
    with pytest.raises(RuntimeError, match="closed"):
        future.result().tracker.track(demo_frames[0].image, 1)


def test_a_failed_preload_is_logged_and_the_pipeline_loads_the_models_itself(demo_frames, caplog):
    failed: Future[VideoModels] = Future()
    failed.set_exception(OSError("hand model unreadable"))
    with caplog.at_level(logging.WARNING), TryOnPipeline(Compositor(RED), max_hands=2, preloaded=failed) as pipeline:
        assert _painted(pipeline, demo_frames) >= 5
    assert "hand model unreadable" in caplog.text


def test_the_hand_tracker_does_not_import_matplotlib_and_mediapipe_still_answers_for_its_init():
    """mediapipe's __init__ imports its legacy solutions and so matplotlib (vision/tracking/mediapipe_tasks.py): the
    tracker works without it; other code asking mediapipe for what its __init__ exported still gets it."""
    code = (
        "import sys, numpy as np\n"
        "from nailmirror_desktop.vision.tracking.tracker import HandTracker\n"
        "with HandTracker('video') as t: t.track(np.zeros((120, 160, 3), np.uint8), 1)\n"
        "print('matplotlib' in sys.modules)\n"
        "import mediapipe as mp\n"
        "print(mp.Image.__name__, mp.ImageFormat.SRGB.name, mp.tasks.BaseOptions.__name__, mp.__version__)\n"
        "print(int(mp.solutions.hands.HandLandmark.INDEX_FINGER_TIP))\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                               env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(ROOT)})
    assert completed.returncode == 0, completed.stderr[-2000:]
    lines = completed.stdout.split()
    assert lines[0] == "False"  # no matplotlib for the tracker
    assert lines[1:4] == ["Image", "SRGB", "BaseOptions"] and lines[4].startswith("0.10")
    assert lines[5] == "8"
