"""Time sources. The kiosk stores every time as UTC; tests move a manual clock instead of sleeping.

`now()` returns seconds since the Unix epoch (UTC) as a float; `sleep(s)` waits that long on this clock.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The wall clock (UTC epoch seconds)."""

    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class ManualClock:
    """A clock that only moves when told to; `sleep` advances it instead of waiting."""

    def __init__(self, start: float | None = None) -> None:
        self._now = time.time() if start is None else float(start)
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.advance(seconds)


class OffsetClock(SystemClock):
    """The wall clock shifted by a fixed offset (used to expire leases from another process)."""

    def __init__(self, offset_s: float) -> None:
        self.offset_s = offset_s

    def now(self) -> float:
        return time.time() + self.offset_s


def to_ms(seconds: float) -> int:
    return round(seconds * 1000)  # round() of a float is already an int


def from_ms(ms: int | None) -> datetime | None:
    """Milliseconds since the epoch → an aware UTC datetime (None stays None)."""
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def iso_utc(moment: datetime | None) -> str | None:
    """ISO-8601 with a trailing Z, millisecond precision: 2026-11-30T07:18:00.123Z."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
