"""`nailmirror kiosk` on a machine without a screen: a clear message, not a Qt abort."""

import importlib.util
import sys

import pytest

from nailmirror_desktop.cli import main


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
