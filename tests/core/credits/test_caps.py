"""The store's calendar day (its time zone, DST included) and the order refusals are checked in."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from nailmirror_desktop.core.credits.caps import Usage, check, local_day_bounds
from nailmirror_desktop.core.credits.errors import CreditRefused


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def test_a_shanghai_day_starts_at_16_00_utc_the_day_before():
    start, end = local_day_bounds(ms("2026-03-10T15:59:59"), "Asia/Shanghai")
    assert (start, end) == (ms("2026-03-09T16:00:00"), ms("2026-03-10T16:00:00"))
    assert local_day_bounds(ms("2026-03-10T16:00:00"), "Asia/Shanghai")[0] == ms("2026-03-10T16:00:00")


def test_a_day_across_a_dst_change_is_23_hours_long():
    start, end = local_day_bounds(ms("2026-03-08T12:00:00"), "America/New_York")  # spring forward that day
    assert end - start == 23 * 3600 * 1000
    assert start == ms("2026-03-08T05:00:00")


def test_an_unknown_zone_counts_in_utc():
    assert local_day_bounds(ms("2026-03-10T10:00:00"), "Mars/Olympus") == (ms("2026-03-10T00:00:00"),
                                                                          ms("2026-03-11T00:00:00"))


@pytest.mark.parametrize(("usage", "amount", "code"), [
    (Usage(0, 99, 9), 1, "INSUFFICIENT_CREDITS"),  # all three broken: the balance is named first
    (Usage(5, 10, 9), 1, "DAILY_CAP_REACHED"),  # day and session broken: the day first
    (Usage(5, 3, 3), 1, "SESSION_CAP_REACHED"),
    (Usage(2, 0, 0), 3, "INSUFFICIENT_CREDITS"),  # n variations need n credits
])
def test_refusals_come_in_the_issues_order(usage, amount, code):
    with pytest.raises(CreditRefused) as refused:
        check(usage, amount, daily_cap=10, session_cap=3)
    assert refused.value.code == code


def test_no_balance_is_enforced_before_a_first_grant_but_the_caps_are():
    check(Usage(None, 9, 2), 50, daily_cap=10, session_cap=3)
    with pytest.raises(CreditRefused, match="cap is 10"):
        check(Usage(None, 10, 0), 1, daily_cap=10, session_cap=3)


def test_the_command_line_has_no_session_and_a_zero_cap_is_no_cap():
    check(Usage(5, 0, None), 1, daily_cap=10, session_cap=3)
    check(Usage(5, 10_000, 10_000), 1, daily_cap=0, session_cap=0)
