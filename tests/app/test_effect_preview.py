"""The EFFECT_PREVIEW handler: a snapshot's frozen frame rendered again by the still path, on a real photo, over a
real task engine and style store; what it refuses; and the start-up collector after a real kill -9 mid-task."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from nailmirror_desktop.app.effect_preview import register_effect_preview
from nailmirror_desktop.core.catalog.starter import load_starter_catalog
from nailmirror_desktop.core.paths import data_dir, database_path
from nailmirror_desktop.core.tasks import TaskEngine, TaskStatus
from nailmirror_desktop.core.tryon.effect_preview import (
    EFFECT_PREVIEW,
    MAX_ATTEMPTS,
    PreviewRequest,
    PreviewResult,
    frames_dir,
)
from nailmirror_desktop.ui.tryon.snapshot import save_frozen_frame, save_snapshot
from nailmirror_desktop.ui.tryon.tryon_session import FramePair, TryOnSession, load_style_textures
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from nailmirror_desktop.vision.sources.supervisor import FramePacket
from tests.support.hand_photos import photo
from tests.support.style_fixtures import make_catalog, repository

ROOT = Path(__file__).resolve().parents[2]
PHOTO = "2C29D473-CCB4-458C-926B-99D0042161E6.jpg"  # one hand, five nails in view


@pytest.fixture
def style_code(tmp_path) -> str:
    repo = repository()
    try:
        return load_starter_catalog(repo, make_catalog(tmp_path / "catalog", count=1)).added[0]
    finally:
        repo.conn.close()


def live_pair(image: np.ndarray, code: str) -> FramePair:
    """What the mirror froze: the live path's pair for `image`, painted with the style."""
    from nailmirror_desktop.core.catalog.try_on_assets import try_on_assets

    repo = repository()
    assets = try_on_assets(repo, code)
    repo.conn.close()
    with TryOnPipeline(Compositor(), max_hands=1) as pipeline:
        session = TryOnSession(pipeline, mirror=False)
        session.apply(load_style_textures(code, assets.name, assets.textures, assets.accent_fingers))
        session.process(FramePacket(image, 0, 0))
        pair = session.snapshot_pair()
    assert pair is not None
    return pair


def submit(engine: TaskEngine, request: PreviewRequest) -> str:
    return engine.submit(EFFECT_PREVIEW, request.to_payload(), max_attempts=MAX_ATTEMPTS).task_no


@pytest.mark.slow
def test_the_still_render_paints_at_least_the_live_nails_over_the_saved_after(nails_eval_dir, style_code):
    pair = live_pair(photo(nails_eval_dir, PHOTO), style_code)
    assert pair.nails >= 4  # the live frame painted this hand
    after = save_snapshot(pair.before, pair.after, style_code)
    live_after = cv2.imread(str(after))
    with TaskEngine(database_path()) as engine:
        renderer = register_effect_preview(engine, mirrored=False, max_hands=1)  # at start: before any snapshot
        frame = save_frozen_frame(pair.before)
        try:
            task_no = submit(engine, PreviewRequest(frame, style_code, after, (), pair.nails))
            engine.run_until_idle(timeout_s=120)
        finally:
            renderer.close()
        task = engine.get(task_no)
    assert task.status is TaskStatus.SUCCESS, task.last_error_message
    result = PreviewResult.from_result(task.result)
    assert result.path == after and result.nails >= pair.nails == result.live_nails
    rendered = cv2.imread(str(after))
    assert rendered.shape == live_after.shape and not np.array_equal(rendered, live_after)  # the still render now
    assert not np.array_equal(rendered, pair.before)  # and it is painted
    assert not frame.exists()  # the temp frame went with the task
    assert (os.stat(after).st_mode & 0o077) == 0  # a customer photo: owner-only


def test_a_render_with_fewer_nails_than_the_live_frame_keeps_the_live_after(style_code):
    blank = np.full((240, 320, 3), 90, np.uint8)  # no hand: the still path paints nothing
    after = save_snapshot(blank, blank, style_code)
    kept = after.read_bytes()
    with TaskEngine(database_path()) as engine:
        renderer = register_effect_preview(engine, mirrored=False)
        frame = save_frozen_frame(blank)
        try:
            task_no = submit(engine, PreviewRequest(frame, style_code, after, (), live_nails=3))
            engine.run_until_idle(timeout_s=120)
        finally:
            renderer.close()
        task = engine.get(task_no)
    assert task.status is TaskStatus.SUCCESS
    assert PreviewResult.from_result(task.result) == PreviewResult(None, 0, 3)
    assert after.read_bytes() == kept and not frame.exists()


def test_a_path_outside_the_data_directory_is_refused_and_left_alone(tmp_path, style_code):
    outside = tmp_path / "elsewhere.png"
    outside.write_bytes(b"not ours")
    after = data_dir() / "snapshots" / "x_after.png"
    with TaskEngine(database_path()) as engine:
        renderer = register_effect_preview(engine, mirrored=False)
        task_no = engine.submit(EFFECT_PREVIEW, {"frame": str(outside), "style_code": style_code,
                                                 "after": str(after)}, max_attempts=1).task_no
        engine.run_until_idle(timeout_s=30)
        renderer.close()
        task = engine.get(task_no)
    assert task.status is TaskStatus.DEAD and task.last_error_code == "PATH_OUTSIDE_DATA_DIR"
    assert outside.read_bytes() == b"not ours" and not after.exists()


def test_a_kill_mid_task_leaves_no_temp_frame_after_the_next_start(nailmirror_home, style_code):
    blank = np.full((120, 160, 3), 90, np.uint8)
    after = save_snapshot(blank, blank, style_code)
    with TaskEngine(database_path()) as engine:
        running = submit(engine, PreviewRequest(save_frozen_frame(blank), style_code, after, (), 1))
    worker = subprocess.Popen([sys.executable, str(ROOT / "tests/support/effect_preview_proc.py"),
                               str(database_path()), str(nailmirror_home)],
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert worker.stdout.readline().strip() == "rendering"
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    with TaskEngine(database_path()) as engine:
        queued = submit(engine, PreviewRequest(save_frozen_frame(blank), style_code, after, (), 1))  # never ran
    assert len(list(frames_dir().glob("*.png"))) == 2  # both customers' frames are still on disk

    from nailmirror_desktop.core.tasks import EngineConfig

    with TaskEngine(database_path(), config=EngineConfig(lease_s=0.5)) as engine:  # the next start
        assert engine.get(running).status is TaskStatus.PROCESSING
        renderer = register_effect_preview(engine, mirrored=False)
        renderer.close()
        assert [p.name for p in frames_dir().iterdir() if not p.name.startswith(".")] == []
        assert engine.get(queued).status is TaskStatus.CANCELED
        import time

        time.sleep(0.6)
        engine.recover_expired_leases()  # the dead process's lease runs out: its cancel request ends it
        assert engine.get(running).status is TaskStatus.CANCELED
        assert engine.run_until_idle(timeout_s=5) == 0  # nothing of the earlier customers runs again
