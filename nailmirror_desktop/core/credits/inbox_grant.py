"""HQ's `credits.grant` inbox event applied to the local ledger: its shape checked, then `apply_grant` once by
grant_id, so an event delivered twice (a page fetched again after a crash) adds its credits once.

The sync cycle calls `apply_grant_event` for each event of that type, in the transaction that stores the
inbox cursor (it nests), so the grant and "event seen" commit together."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from nailmirror_desktop.core.credits.errors import GrantRejected
from nailmirror_desktop.core.credits.policy import DEFAULT_STORE_ID
from nailmirror_desktop.core.credits.service import apply_grant
from nailmirror_protocol.shapes import CREDITS_GRANT

GRANT_EVENT_INVALID = "GRANT_EVENT_INVALID"


def apply_grant_event(conn: sqlite3.Connection, event: Mapping[str, object], *, store_id: str = DEFAULT_STORE_ID,
                      now_ms: int | None = None) -> bool:
    """Apply one credits.grant event. True: credits added now; False: this grant_id was applied before.
    Raises GrantRejected (nothing written) for another event type, a missing or mistyped field, or a grant the
    ledger refuses (amount not 1…1,000,000, blank reason or id): the caller records it and moves on."""
    if event.get("type") != CREDITS_GRANT:
        raise GrantRejected(GRANT_EVENT_INVALID, f"not a {CREDITS_GRANT} event: {event.get('type')!r}")
    grant_id, amount, reason = event.get("grant_id"), event.get("amount"), event.get("reason")
    if not isinstance(grant_id, str):
        raise GrantRejected(GRANT_EVENT_INVALID, "a credits.grant event carries its grant_id as text")
    # bool is an int in Python: a JSON true must not grant one credit
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise GrantRejected(GRANT_EVENT_INVALID, "a credits.grant event carries a whole number amount")
    if not isinstance(reason, str):
        raise GrantRejected(GRANT_EVENT_INVALID, "a credits.grant event carries its reason as text")
    grant_sig = event.get("grant_sig")  # absent from an HQ that did not sign grants yet
    if grant_sig is not None and (not isinstance(grant_sig, str) or len(grant_sig) > 200):
        raise GrantRejected(GRANT_EVENT_INVALID, "a credits.grant event carries its grant_sig as short text")
    return apply_grant(conn, grant_id, amount, reason, store_id=store_id, now_ms=now_ms, grant_sig=grant_sig)
