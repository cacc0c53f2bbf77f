"""HQ's timestamps: UTC text "YYYY-MM-DDTHH:MM:SS.fffZ", the same as the kiosk database and the wire; and the
monotonic seconds the in-process throttles count in (`Ticks`: a test passes its own instead of sleeping); and
`local_time`, the one way a page shows such a time to a person: in the store's zone."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

Ticks = Callable[[], float]
monotonic: Ticks = time.monotonic


def to_text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def now_text(offset: timedelta = timedelta()) -> str:
    return to_text(datetime.now(UTC) + offset)


# Where a store is when it has no zone of its own: the chain's stores are in China (UTC+8, no daylight saving).
DEFAULT_TIME_ZONE = "Asia/Shanghai"


def local_time(ts_utc: str, tz_name: str | None) -> str:
    """HQ's UTC text ("2026-12-04T13:03:00.123Z") → "2026-12-04 21:03" in the zone `tz_name` (an IANA name; an
    unknown or empty one is DEFAULT_TIME_ZONE). Text that is not a time comes back cut to 16 characters."""
    try:
        moment = datetime.fromisoformat(ts_utc.replace("Z", "+00:00"))
    except ValueError:
        return ts_utc[:16]
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(_zone(tz_name)).strftime("%Y-%m-%d %H:%M")


def _zone(tz_name: str | None) -> tzinfo:
    for name in (tz_name, DEFAULT_TIME_ZONE):
        try:
            return ZoneInfo(name) if name else ZoneInfo(DEFAULT_TIME_ZONE)
        except (ZoneInfoNotFoundError, ValueError):
            continue
    # A server without the zone database (a slim container, no tzdata): China's offset, which never changes.
    return timezone(timedelta(hours=8), "CST")
