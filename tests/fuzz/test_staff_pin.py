"""Property: whatever staff (or an attacker) type and however the wall clock is moved backwards, the staff door
checks a PIN only after the full delay the last wrong PIN earned has passed in real time, and never asks for
more than an hour's wait (core.staff_pin)."""

from __future__ import annotations

from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from nailmirror_desktop.core import staff_pin
from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.staff_pin import MAX_DELAY_S, PinOutcome, StaffPin, delay_after

PIN = "908172"
ROUNDING_S = 0.002  # the lock's end is stored as UTC text with milliseconds

# Waits around each step of the schedule (30 s … 1 h): just short of a lock's end, just past it, and between.
WAITS = st.one_of(st.sampled_from([1.0, 20, 31, 45, 61, 90, 121, 180, 241, 360, 481, 720, 961, 1500, 1921, 2800,
                                   3599, 3601]), st.floats(0, 4000))
# Each step: the wall clock may be set back (no real time passes), real time passes, then a PIN is typed.
# Mostly wrong PINs, so most examples reach the growing locks.
steps = st.lists(st.tuples(st.sampled_from([0.0] * 6 + [30.0, 90_000.0]) | st.floats(0, 90_000), WAITS,
                           st.sampled_from(["1111"] * 7 + [PIN])), min_size=6, max_size=25)


@given(steps)
def test_no_pin_is_checked_before_the_earned_delay_has_passed_in_real_time(script):
    with mock.patch.dict(staff_pin._SCRYPT, n=2):  # a cheap hash: the property is about time, not scrypt
        StaffPin().set(PIN)
        clock = ManualClock(1_800_000_000.0)
        pin = StaffPin(clock=clock)
        real_now = last_wrong_at = 0.0
        earned = 0.0
        failures = 0
        for clock_back, wait, typed in script:
            clock.advance(-clock_back)
            real_now += wait
            clock.advance(wait)
            attempt = pin.attempt(typed)
            assert 0 <= attempt.wait_s <= MAX_DELAY_S
            if attempt.outcome == PinOutcome.LOCKED:
                continue
            assert real_now - last_wrong_at >= earned - ROUNDING_S  # checked only once the lock was over
            if attempt.outcome == PinOutcome.ACCEPTED:
                assert typed == PIN
                failures, earned = 0, 0.0
            else:
                assert attempt.outcome == PinOutcome.WRONG and typed != PIN
                failures += 1
                earned = delay_after(failures)
                assert attempt.wait_s == earned
                last_wrong_at = real_now
