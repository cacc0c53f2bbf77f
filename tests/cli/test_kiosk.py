"""`nailmirror kiosk`: on a machine without a screen a clear message, not a Qt abort; a demo run's exit line."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nailmirror_desktop.cli import main
from tests.support.data_dirs import copy_starter_data

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the display check is Linux's")
def test_no_display_gives_a_clear_message_and_exit_2(monkeypatch, capsys):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    assert main(["kiosk"]) == 2
    err = capsys.readouterr().err
    assert "no display" in err and "--screenshot" in err


@pytest.mark.skipif(importlib.util.find_spec("PySide6") is not None,
                    reason="PySide6 is installed here: the Qt-less run (./dev test-noqt) checks this")
def test_without_the_qt_binding_the_kiosk_says_so(monkeypatch, capsys):
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert main(["kiosk", "--demo", "--quit-after", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Qt binding is not installed" in err and "./dev setup" in err


def test_a_restart_starts_the_same_kiosk_again(monkeypatch):
    from nailmirror_desktop.cli.kiosk import restart_command

    assert restart_command(["kiosk", "--windowed"]) == [sys.executable, "-m", "nailmirror_desktop", "kiosk",
                                                        "--windowed"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert restart_command(["kiosk"]) == [sys.executable, "kiosk"]  # the bundle's own executable


def test_a_frame_count_must_be_a_positive_whole_number(capsys):
    for bad in ("0", "-3", "1.5", "many"):
        with pytest.raises(SystemExit) as exited:
            main(["kiosk", "--demo", "--quit-after-frames", bad])
        assert exited.value.code == 2 and "--quit-after-frames" in capsys.readouterr().err


FRAMES = 30


def _demo_run(home, frames: int = FRAMES) -> dict:
    """`nailmirror kiosk --demo` offscreen until `frames` frames are painted (60 s at most), on a data directory
    with the starter catalog loaded (the style is on from the first frames); its exit JSON line."""
    env = {**os.environ, "NAILMIRROR_HOME": str(home), "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT),
           "MPLCONFIGDIR": str(home / "mpl")}
    run = subprocess.run([sys.executable, "-m", "nailmirror_desktop", "kiosk", "--demo", "--windowed",
                          "--quit-after-frames", str(frames), "--quit-after", "60"], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["frames_painted"] == frames, report  # ended by the frame count, not the time limit
    return report


@pytest.mark.qt
@pytest.mark.slow
def test_the_exit_line_says_how_many_hands_are_tracked_and_how_many_nails_were_painted(tmp_path):
    """Two hands by default: the demo's two hands are both painted (clearly more nails per frame than with one
    hand); a saved config that says one hand keeps one, and then no more than one hand's nails are painted.
    (The frames before the first style is on count with 0 nails, alike in both runs.)"""
    two = _demo_run(copy_starter_data(tmp_path / "two"))
    assert two["max_hands"] == 2
    assert two["fps"] > 0  # fps stays the shown-frame rate
    one_home = copy_starter_data(tmp_path / "one")
    (one_home / "config.json").write_text(json.dumps({"hands_tracked": 1}))
    one = _demo_run(one_home)
    assert one["max_hands"] == 1
    assert 0 < one["nails_painted_mean"] <= 5, one
    assert two["nails_painted_mean"] > one["nails_painted_mean"] + 1, (one, two)
