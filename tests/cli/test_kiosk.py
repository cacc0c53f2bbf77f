"""`nailmirror kiosk`: on a machine without a screen a clear message, not a Qt abort; a timed demo run's exit line."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nailmirror_desktop.cli import main

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


def _timed_demo_run(home, seconds: float) -> dict:
    """`nailmirror kiosk --demo` offscreen for `seconds`; its exit JSON line."""
    env = {**os.environ, "NAILMIRROR_HOME": str(home), "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT),
           "MPLCONFIGDIR": str(home / "mpl")}
    run = subprocess.run([sys.executable, "-m", "nailmirror_desktop", "kiosk", "--demo", "--windowed",
                          "--quit-after", str(seconds)], env=env, cwd=ROOT, capture_output=True, text=True,
                         timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.qt
@pytest.mark.slow
def test_the_exit_line_says_how_many_hands_are_tracked_and_how_many_nails_were_painted(tmp_path):
    """Two hands by default: the demo's two hands are both painted (clearly more nails per frame than with one
    hand); a saved config that says one hand keeps one, and then no more than one hand's nails are painted.
    (The frames before the first style is on count with 0 nails, alike in both runs.)"""
    (tmp_path / "two").mkdir()
    two = _timed_demo_run(tmp_path / "two", 15)
    assert two["max_hands"] == 2
    assert two["frames_painted"] > 10 and two["fps"] > 0  # fps stays the shown-frame rate
    one_home = tmp_path / "one"
    one_home.mkdir()
    (one_home / "config.json").write_text(json.dumps({"hands_tracked": 1}))
    one = _timed_demo_run(one_home, 15)
    assert one["max_hands"] == 1
    assert 0 < one["nails_painted_mean"] <= 5, one
    assert two["nails_painted_mean"] > one["nails_painted_mean"] + 1, (one, two)
