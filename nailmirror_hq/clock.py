"""HQ's timestamps: UTC text "YYYY-MM-DDTHH:MM:SS.fffZ", the same as the kiosk database and the wire; and the
monotonic seconds the in-process throttles count in (`Ticks`: a test passes its own instead of sleeping)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

Ticks = Callable[[], float]
monotonic: Ticks = time.monotonic


def to_text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def now_text(offset: timedelta = timedelta()) -> str:
    return to_text(datetime.now(UTC) + offset)
