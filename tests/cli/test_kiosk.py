"""`nailmirror kiosk` on a machine without a screen: a clear message, not a Qt abort."""

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
