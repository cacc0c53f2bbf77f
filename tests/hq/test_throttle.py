"""The throttle's arithmetic on its own (the doors that use it: tests/hq/web/test_login_throttle.py and
tests/hq/api/test_enrollment.py)."""

from __future__ import annotations

from nailmirror_hq.throttle import Policy, Throttle, retry_after_header
from tests.support.hq_fixtures import Ticks

POLICY = Policy(free=3, first_s=1.0, max_s=10.0, forget_s=60.0)


def test_free_failures_then_a_lock_that_doubles_up_to_the_cap() -> None:
    ticks = Ticks()
    throttle = Throttle(POLICY, ticks)
    assert [throttle.failed("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert throttle.retry_after("a") == 0.0
    locks = []
    for _ in range(6):
        locks.append(throttle.failed("a"))
        assert throttle.retry_after("a") == locks[-1]
        ticks.advance(locks[-1])
    assert locks == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    assert throttle.retry_after("b") == 0.0  # keys are counted apart


def test_a_lock_runs_out_a_quiet_key_is_forgotten_and_a_success_clears_it() -> None:
    ticks = Ticks()
    throttle = Throttle(POLICY, ticks)
    for _ in range(4):
        throttle.failed("a")
    ticks.advance(0.25)
    assert throttle.retry_after("a") == 0.75
    ticks.advance(0.75)
    assert throttle.retry_after("a") == 0.0
    assert throttle.failed("a") == 2.0  # not forgotten yet: the delay keeps growing
    ticks.advance(62.0)
    assert throttle.failed("a") == 0.0  # a minute without failures: free again
    for _ in range(5):
        throttle.failed("a")
    throttle.succeeded("a")
    assert throttle.retry_after("a") == 0.0 and throttle.failed("a") == 0.0


def test_memory_is_bounded_by_dropping_the_least_recently_failed() -> None:
    ticks = Ticks()
    throttle = Throttle(Policy(free=0, first_s=5.0, max_s=5.0, forget_s=60.0), ticks, max_keys=100)
    for n in range(1000):
        throttle.failed(f"made-up-{n}")
    assert len(throttle._counts) == 100
    assert throttle.retry_after("made-up-999") == 5.0 and throttle.retry_after("made-up-0") == 0.0


def test_retry_after_is_whole_seconds_and_never_zero() -> None:
    assert [retry_after_header(s) for s in (0.001, 1.0, 1.2, 899.5)] == [1, 1, 2, 900]
