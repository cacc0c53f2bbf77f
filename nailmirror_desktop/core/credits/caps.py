"""The limits on paid generations: a store's calendar day and the order refusals are checked in.

A day is the store's local calendar day (its IANA time zone, KioskConfig.store_time_zone), computed from UTC
times with zoneinfo, so a day around a DST change is 23 or 25 hours long and a store in Shanghai starts its
day at 16:00 UTC. Times stay stored in UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from nailmirror_desktop.core.credits.errors import (
    DAILY_CAP_REACHED,
    INSUFFICIENT_CREDITS,
    SESSION_CAP_REACHED,
    CreditRefused,
)


def time_zone(name: str) -> ZoneInfo:
    """The store's zone; an unknown name falls back to UTC rather than stopping a kiosk (config.validated
    already refuses to save one)."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def local_day_bounds(now_ms: int, zone_name: str) -> tuple[int, int]:
    """[start, end) of the store's calendar day containing `now_ms`, both in UTC epoch milliseconds."""
    zone = time_zone(zone_name)
    day = datetime.fromtimestamp(now_ms / 1000, zone).date()
    start = datetime.combine(day, time(), zone)
    end = datetime.combine(day + timedelta(days=1), time(), zone)
    return int(start.timestamp() * 1000), int(end.timestamp() * 1000)


@dataclass(frozen=True)
class Usage:
    """What a new charge is checked against. balance None: the store never received a grant (not enforced).
    session_count None: not a customer session (the command line), so no session cap."""

    balance: int | None
    day_count: int
    session_count: int | None


def check(usage: Usage, amount: int, daily_cap: int, session_cap: int) -> None:
    """Raise CreditRefused with the first rule broken, in this order: INSUFFICIENT_CREDITS, DAILY_CAP_REACHED,
    SESSION_CAP_REACHED. A cap of 0 means no cap. Counts are paid generations not refunded (n variations = 1)."""
    if usage.balance is not None and usage.balance < amount:
        raise CreditRefused(INSUFFICIENT_CREDITS, f"needs {amount} credit(s), {usage.balance} left")
    if daily_cap and usage.day_count >= daily_cap:
        raise CreditRefused(DAILY_CAP_REACHED, f"{usage.day_count} paid generation(s) today, the cap is {daily_cap}")
    if session_cap and usage.session_count is not None and usage.session_count >= session_cap:
        raise CreditRefused(SESSION_CAP_REACHED,
                            f"{usage.session_count} paid generation(s) this session, the cap is {session_cap}")
