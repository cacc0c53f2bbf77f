"""The running kiosk records its camera state and frame rate for the sync report (issue #25 §7): in the kiosk's
database, off the GUI thread, one write at a time; a failed write is logged and the next tick tries again."""

from __future__ import annotations

from pathlib import Path

from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.sync import fleet
from nailmirror_desktop.ui.tryon.health_recorder import HealthRecorder
from tests.support.ui_support import HoldableRunner


def test_camera_state_and_fps_reach_the_database_one_write_at_a_time(qtbot, tmp_path: Path) -> None:
    conn = open_database(tmp_path / "kiosk.db")
    camera = {"state": "LIVE", "fps": 27.46}
    writes: list[tuple[str, float]] = []

    def write(state: str, fps: float) -> None:
        writes.append((state, fps))
        fleet.record_health(conn, state, fps)

    runner = HoldableRunner()
    recorder = HealthRecorder(lambda: camera["state"], lambda: camera["fps"], write, runner)
    recorder.record()
    assert fleet.health_fields(conn)["camera_state"] == "LIVE" and fleet.health_fields(conn)["fps"] == 27.5
    runner.held = True  # a slow disk: the next ticks do not queue writes behind it
    camera.update(state="LOST", fps=0.0)
    recorder.record()
    recorder.record()
    assert len(runner.jobs) == 1
    runner.release()
    assert writes[-1] == ("LOST", 0.0) and fleet.health_fields(conn)["camera_state"] == "LOST"

    def broken(_state: str, _fps: float) -> None:
        raise OSError("database is locked")

    failing = HealthRecorder(lambda: "LIVE", lambda: 30.0, broken, runner)
    failing.record()
    failing.record()  # the failure let the next one go
    assert fleet.health_fields(conn)["camera_state"] == "LOST"
    conn.close()


def test_the_recorder_ticks_on_its_own_once_started(qtbot, tmp_path: Path, monkeypatch) -> None:
    seen: list[str] = []
    recorder = HealthRecorder(lambda: "DEMO", lambda: 12.0, lambda state, _fps: seen.append(state),
                              HoldableRunner())
    recorder._timer.setInterval(20)  # the real one is fleet.HEALTH_EVERY_S
    recorder.start()
    qtbot.waitUntil(lambda: len(seen) >= 2, timeout=2000)
    recorder.stop()
