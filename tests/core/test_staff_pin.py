"""The staff PIN (core.staff_pin): no default, set with a fresh salt, and a lockout that lives in config.json, so a
restart keeps it; it grows with each wrong PIN up to an hour, and a clock moved backwards does not end it early."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.config import config_path, load_config, save_config
from nailmirror_desktop.core.staff_pin import (
    LOCK_AFTER,
    MAX_DELAY_S,
    PinFormatError,
    PinOutcome,
    StaffPin,
    delay_after,
    hash_pin,
)

ROOT = Path(__file__).resolve().parents[2]
PIN = "908172"


def wrong_until_locked(pin: StaffPin, clock: ManualClock, failures: int) -> list[float]:
    """`failures` wrong PINs, each once the previous lock is over; the lock each one started."""
    waits = []
    for _ in range(failures):
        attempt = pin.attempt("1111")
        assert attempt.outcome == PinOutcome.WRONG
        waits.append(attempt.wait_s)
        clock.advance(attempt.wait_s + 0.001)
    return waits


def test_there_is_no_default_pin_and_the_door_stays_shut_until_one_is_set():
    pin = StaffPin()
    assert not pin.is_set()
    for guess in ("2468", "0000", "1234", ""):
        assert pin.attempt(guess).outcome == PinOutcome.NOT_SET
    assert not config_path().exists() or "staff_pin_hash" not in config_path().read_text()


def test_a_set_pin_is_stored_salted_and_owner_only_and_settings_saves_keep_it():
    StaffPin().set(PIN)
    stored = json.loads(config_path().read_text())
    assert PIN not in json.dumps(stored) and len(stored["staff_pin_hash"]) == 64
    assert stat.S_IMODE(config_path().stat().st_mode) == 0o600
    save_config(load_config().with_changes(idle_timeout_s=45))  # the settings page's save keeps the PIN
    assert StaffPin().attempt(PIN).outcome == PinOutcome.ACCEPTED
    assert StaffPin().attempt("0000").outcome == PinOutcome.WRONG
    first_salt = stored["staff_pin_salt"]
    StaffPin().set(PIN)
    assert json.loads(config_path().read_text())["staff_pin_salt"] != first_salt


@pytest.mark.parametrize("bad", ["123", "123456789", "12ab", "", "１２３４", "2468"])
def test_a_pin_must_be_4_to_8_ascii_digits_and_not_the_old_published_default(bad):
    with pytest.raises(PinFormatError):
        StaffPin().set(bad)
    assert not StaffPin().is_set()


def test_a_config_still_holding_the_old_default_pin_counts_as_no_pin():
    salt = "00" * 16
    config_path().write_text(json.dumps({"staff_pin_salt": salt, "staff_pin_hash": hash_pin("2468", salt)}))
    assert not StaffPin().is_set()
    assert StaffPin().attempt("2468").outcome == PinOutcome.NOT_SET


def test_the_delay_grows_after_the_free_tries_and_is_capped_at_an_hour():
    StaffPin().set(PIN)
    clock = ManualClock(1_800_000_000.0)
    pin = StaffPin(clock=clock)
    waits = wrong_until_locked(pin, clock, 14)
    assert waits[:LOCK_AFTER - 1] == [0.0] * (LOCK_AFTER - 1)
    assert waits[LOCK_AFTER - 1:] == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]
    assert max(waits) == MAX_DELAY_S == delay_after(10**6)
    pin.attempt("2222")  # the 15th wrong PIN: locked for an hour
    clock.advance(3599)
    locked = pin.attempt(PIN)  # the right PIN is not even checked while locked
    assert locked.outcome == PinOutcome.LOCKED and 0 < locked.wait_s <= 1
    clock.advance(1.5)
    assert pin.attempt(PIN).outcome == PinOutcome.ACCEPTED
    assert pin.failures() == 0 and pin.attempt("1111").wait_s == 0  # a right PIN starts the count again


@pytest.mark.slow
def test_the_lockout_survives_a_restart_of_the_process():
    """Before: the count lived in the PinDialog class, so a new process (a restart) had free tries again."""
    StaffPin().set(PIN)
    script = ("import sys; from nailmirror_desktop.core.staff_pin import StaffPin; "
              "print(StaffPin().attempt(sys.argv[1]).outcome.value)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def in_new_process(guess: str) -> str:
        done = subprocess.run([sys.executable, "-c", script, guess], capture_output=True, text=True, env=env,
                              timeout=60, check=True)
        return done.stdout.strip()

    assert [in_new_process("1111") for _ in range(LOCK_AFTER)] == ["WRONG"] * LOCK_AFTER
    assert in_new_process(PIN) == "LOCKED"
    assert StaffPin().failures() == LOCK_AFTER


def test_a_clock_moved_backwards_does_not_end_the_lock_early():
    StaffPin().set(PIN)
    clock = ManualClock(1_800_000_000.0)
    pin = StaffPin(clock=clock)
    waits = wrong_until_locked(pin, clock, LOCK_AFTER + 2)
    assert waits[-1] == 120
    clock.advance(-waits[-1])  # back to the moment of the last wrong PIN: the lock of 120 s is on
    clock.advance(-86_400)  # and then a day back
    assert pin.attempt(PIN).wait_s == pytest.approx(120, abs=0.01)  # capped at the lock's full length from now
    clock.advance(60)
    assert pin.attempt(PIN).wait_s == pytest.approx(60, abs=0.01)  # re-anchored, and running down from there
    clock.advance(61)
    assert pin.attempt(PIN).outcome == PinOutcome.ACCEPTED


def test_a_hand_edited_lockout_locks_rather_than_opens():
    StaffPin().set(PIN)
    document = json.loads(config_path().read_text())
    document["staff_pin_lockout"] = {"failures": "many", "locked_until": "yesterday"}
    config_path().write_text(json.dumps(document))
    clock = ManualClock(1_800_000_000.0)
    pin = StaffPin(clock=clock)
    assert pin.attempt(PIN).outcome == PinOutcome.LOCKED
    clock.advance(delay_after(LOCK_AFTER) + 1)
    assert pin.attempt(PIN).outcome == PinOutcome.ACCEPTED
