"""`nailmirror staff set-pin` as a person runs it: a real process, the PIN asked twice (from a terminal without
echo, or from piped standard input), a mismatch or a bad PIN refused with one line and nothing changed."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nailmirror_desktop.cli import build_parser
from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.config import config_path
from nailmirror_desktop.core.staff_pin import LOCK_AFTER, PinOutcome, StaffPin

ROOT = Path(__file__).resolve().parents[2]


def set_pin(stdin: str, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "nailmirror_desktop", "staff", "set-pin", *extra], input=stdin,
                          capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)


@pytest.mark.parametrize("flag", [(), ("--stdin",)])
def test_set_pin_from_standard_input_sets_it_and_clears_the_lockout(flag):
    StaffPin().set("13572468")
    clock = ManualClock()
    for _ in range(LOCK_AFTER):
        StaffPin(clock=clock).attempt("0000")
    assert StaffPin(clock=clock).attempt("13572468").outcome == PinOutcome.LOCKED
    done = set_pin("908172\n908172\n", *flag)
    assert done.returncode == 0, done.stderr
    assert "PIN set" in done.stdout and "908172" not in done.stdout + done.stderr
    pin = StaffPin(clock=clock)
    assert pin.failures() == 0 and pin.attempt("908172").outcome == PinOutcome.ACCEPTED
    assert "908172" not in config_path().read_text()


@pytest.mark.parametrize(("typed", "says"), [
    ("908172\n908173\n", "the two PINs differ"),
    ("12ab\n12ab\n", "4 to 8 digits"),
    ("123\n123\n", "4 to 8 digits"),
    ("2468\n2468\n", "published default"),
    ("908172\n", "no PIN given"),
    ("", "no PIN given"),
])
def test_a_mismatch_or_bad_pin_is_refused_in_one_line_and_changes_nothing(typed, says):
    StaffPin().set("13572468")
    before = config_path().read_text()
    done = set_pin(typed, "--stdin")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and says in done.stderr and "nothing changed" in done.stderr
    assert "Traceback" not in done.stderr
    assert config_path().read_text() == before


def test_without_a_pin_nothing_is_written_for_a_refusal():
    done = set_pin("1234\n4321\n", "--stdin")
    assert done.returncode == 1 and not StaffPin().is_set()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal")
def test_on_a_terminal_the_pin_is_asked_twice_and_not_echoed():
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its controlling terminal
        os.environ["PYTHONPATH"] = str(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "nailmirror_desktop", "staff", "set-pin"])
    seen = b""

    def read_until(marker: bytes, timeout_s: float = 30) -> None:
        nonlocal seen
        deadline = time.monotonic() + timeout_s
        while marker not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(fd, 1024)
                except OSError:
                    break
        assert marker in seen, seen

    try:
        read_until(b"New staff PIN")
        os.write(fd, b"55667788\n")
        read_until(b"Repeat the PIN")
        os.write(fd, b"55667788\n")
        read_until(b"PIN set")
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0
    assert b"55667788" not in seen  # not echoed
    assert StaffPin().attempt("55667788").outcome == PinOutcome.ACCEPTED


def test_the_help_says_it_is_also_the_recovery(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["staff", "set-pin", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "recovery" in text and "forget" in text and "lockout" in text
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    assert "staff" in capsys.readouterr().out
