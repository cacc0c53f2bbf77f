"""The credit calls every front end shares (CLI, staff page, HQ's inbox): grant, show, list.

`apply_grant(conn, grant_id, amount, reason)` is what HQ's `credits.grant` inbox event calls: applied once per
grant_id, in its own transaction (or the caller's: it nests), so an event delivered twice adds credits once.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from nailmirror_desktop.core.credits import ledger
from nailmirror_desktop.core.credits.policy import DEFAULT_STORE_ID, CreditPolicy


def apply_grant(conn: sqlite3.Connection, grant_id: str, amount: int, reason: str, *,
                store_id: str = DEFAULT_STORE_ID, now_ms: int | None = None, grant_sig: str | None = None) -> bool:
    """Add `amount` credits to the store's account once per `grant_id`. True: applied now; False: applied
    before (nothing changed). Raises GrantRejected for a bad amount, id or reason (nothing written)."""
    return ledger.apply_grant(conn, store_id, grant_id, amount, reason, _now_ms(now_ms), grant_sig)


def show(conn: sqlite3.Connection, policy: CreditPolicy, now_ms: int | None = None) -> dict[str, Any]:
    """What `credits show --json` prints and the staff page shows. balance: null until a first grant."""
    start, end = policy.day_bounds(_now_ms(now_ms))
    summary = ledger.summary(conn, policy.store_id, start, end)
    return {
        "store_id": summary.store_id,
        "balance": summary.balance,
        "pending": summary.pending,
        "confirmed_today": summary.confirmed_today,
        "generations_today": summary.generations_today,
        "daily_cap": policy.daily_cap,
        "session_cap": policy.session_cap,
        "granted": summary.granted,
        "confirmed": summary.confirmed,
        "low_balance_threshold": policy.low_balance_threshold,
        "low_balance": policy.is_low(summary.balance),
        "time_zone": policy.time_zone,
    }


def ledger_entries(conn: sqlite3.Connection, policy: CreditPolicy, *, limit: int | None = 100,
                   task_no: str | None = None) -> list[ledger.Entry]:
    return ledger.entries(conn, policy.store_id, limit=limit, task_no=task_no)


def _now_ms(now_ms: int | None) -> int:
    return int(time.time() * 1000) if now_ms is None else now_ms
