"""The kiosk's enrollment and its place in HQ's feeds (the one row of sync_state), and what `sync status` says.

The token is read here and handed to the HTTP adapter only; `SyncState.__repr__` leaves it out, so no log line
or error message built from a state ever carries it. The cycle rotates it (cycle.py); `enrolled_at` holds when
the current one was issued (enrollment or its last rotation).
"""

from __future__ import annotations

import calendar
import json
import sqlite3
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from nailmirror_desktop.core.config import known_time_zone
from nailmirror_desktop.core.credits.upload import upload_counts
from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.model_releases import keys as model_keys
from nailmirror_desktop.core.model_releases import store as model_store
from nailmirror_desktop.core.model_version import model_version
from nailmirror_desktop.core.sync.errors import Fault, SyncError
from nailmirror_protocol.shapes import REPORT_FAILED_MAX, FailedDownload

_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
RESETS_PER_HOUR = 3


class SyncStatus(StrEnum):
    OK = "OK"
    OFFLINE = "OFFLINE"
    REVOKED = "REVOKED"
    UPGRADE_REQUIRED = "UPGRADE_REQUIRED"
    NOT_ENROLLED = "NOT_ENROLLED"


@dataclass(frozen=True)
class SyncState:
    hq_url: str
    store_id: str
    kiosk_id: str
    channel: str
    token: str = field(repr=False)
    state: SyncStatus
    channel_cursor: str | None
    snapshot_etag: str | None
    inbox_cursor: str | None
    last_success_at: str | None
    offline_since: str | None
    last_error: str | None
    not_before: float | None  # epoch seconds
    resets: tuple[float, ...]
    token_issued_at: str = ""  # sync_state.enrolled_at: enrollment, or the token's last rotation

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> SyncState:
        return cls(row["hq_url"], row["store_id"], row["kiosk_id"], row["channel"], row["token"],
                   SyncStatus(row["state"]), row["channel_cursor"], row["snapshot_etag"], row["inbox_cursor"],
                   row["last_success_at"], row["offline_since"], row["last_error"],
                   float(row["not_before"]) if row["not_before"] else None,
                   tuple(float(t) for t in json.loads(row["resets_json"] or "[]")), row["enrolled_at"])


def load(conn: sqlite3.Connection) -> SyncState | None:
    row = conn.execute("SELECT * FROM sync_state WHERE id = 1").fetchone()
    return SyncState.from_row(row) if row else None


def require(conn: sqlite3.Connection) -> SyncState:
    found = load(conn)
    if found is None:
        raise SyncError(Fault.NOT_ENROLLED, "not_enrolled",
                        "this kiosk is not enrolled (nailmirror sync enroll CODE --hq URL)")
    return found


def save_enrollment(conn: sqlite3.Connection, hq_url: str, store_id: str, kiosk_id: str, channel: str,
                    token: str) -> None:
    """A new enrollment starts its feeds from scratch (the first cycle takes the snapshot, a replace that keeps
    every row HQ never owned)."""
    with write_transaction(conn):
        conn.execute("DELETE FROM sync_state")
        conn.execute("INSERT INTO sync_state (id, hq_url, store_id, kiosk_id, channel, token)"
                     " VALUES (1, ?, ?, ?, ?, ?)", (hq_url, store_id, kiosk_id, channel, token))


def save_rotated_token(conn: sqlite3.Connection, token: str) -> None:
    """The token HQ rotated to, once a call with it has succeeded: it replaces the old one in one statement, and
    enrolled_at becomes its issue time (the age the next rotation is judged by)."""
    with write_transaction(conn):
        conn.execute(f"UPDATE sync_state SET token = ?, enrolled_at = {_NOW} WHERE id = 1", (token,))


def token_age_s(current: SyncState, now_s: float) -> float:
    try:
        issued = calendar.timegm(time.strptime(current.token_issued_at[:19], "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return 0.0
    return now_s - issued


def set_cursor(conn: sqlite3.Connection, channel_cursor: str, *, snapshot_etag: str | None = None) -> None:
    if snapshot_etag is None:
        conn.execute("UPDATE sync_state SET channel_cursor = ? WHERE id = 1", (channel_cursor,))
    else:
        conn.execute("UPDATE sync_state SET channel_cursor = ?, snapshot_etag = ? WHERE id = 1",
                     (channel_cursor, snapshot_etag))


def set_inbox_cursor(conn: sqlite3.Connection, cursor: str) -> None:
    conn.execute("UPDATE sync_state SET inbox_cursor = ? WHERE id = 1", (cursor,))


def record_success(conn: sqlite3.Connection, *, not_before: float | None = None, warning: str | None = None) -> None:
    """`warning`: what the cycle found odd without failing on it (one line), or None; replaces the last one."""
    with write_transaction(conn):
        conn.execute(f"UPDATE sync_state SET state = 'OK', last_success_at = {_NOW}, offline_since = NULL,"
                     " last_error = NULL, not_before = ?, last_warning = ? WHERE id = 1", (not_before, warning))


def record_failure(conn: sqlite3.Connection, error: SyncError) -> None:
    """OFFLINE keeps the time it started; REVOKED and UPGRADE_REQUIRED stop further cycles until re-enrolled
    (or upgraded), so a revoked kiosk never hammers HQ."""
    status = {Fault.REVOKED: SyncStatus.REVOKED, Fault.UPGRADE_REQUIRED: SyncStatus.UPGRADE_REQUIRED}.get(
        error.fault, SyncStatus.OFFLINE)
    not_before = time.time() + error.retry_after_s if error.retry_after_s else None
    line = error.one_line()
    if error.retry_after_s and "wait" not in line:
        line += f" (HQ asked to wait {error.retry_after_s:.0f} s)"
    with write_transaction(conn):
        conn.execute(
            f"UPDATE sync_state SET state = ?, last_error = ?, not_before = ?,"
            f" offline_since = CASE WHEN ? = 'OFFLINE' THEN COALESCE(offline_since, {_NOW}) ELSE offline_since END"
            " WHERE id = 1",
            (status.value, line, not_before, status.value))


def note_reset(conn: sqlite3.Connection, now_s: float) -> None:
    """Count a 410 reset; SyncError(RESET_LOOP) when this would be the fourth within an hour."""
    current = require(conn)
    recent = [t for t in current.resets if now_s - t < 3600]
    if len(recent) >= RESETS_PER_HOUR:
        raise SyncError(Fault.RESET_LOOP, "reset_loop",
                        f"HQ reset this kiosk's feed {len(recent)} times in the last hour; waiting before another")
    conn.execute("UPDATE sync_state SET resets_json = ? WHERE id = 1", (json.dumps([*recent, now_s]),))


def failed_downloads(conn: sqlite3.Connection, limit: int = REPORT_FAILED_MAX) -> list[FailedDownload]:
    """The blobs that failed for good so far (retried with backoff), each with the style waiting on it: what
    `sync status --json` lists and the sync report tells HQ."""
    rows = conn.execute(
        "SELECT b.sha256, b.attempts, COALESCE(b.last_error, '') AS last_error,"
        " (SELECT json_extract(s.body_json, '$.style_code')"
        "  FROM sync_staged_style s, json_each(s.body_json, '$.assets') a"
        "  WHERE json_extract(a.value, '$.sha256') = b.sha256 ORDER BY s.remote_id LIMIT 1) AS style_code"
        " FROM sync_blob b WHERE b.state = 'FAILED' ORDER BY b.sha256 LIMIT ?", (limit,)).fetchall()
    return [{"style_code": str(r["style_code"] or ""), "sha256": r["sha256"], "attempts": int(r["attempts"]),
             "last_error": str(r["last_error"])[:300]} for r in rows]


def report_sent(conn: sqlite3.Connection) -> str | None:
    """sha256 of the last sync report HQ took (or answered it does not take reports)."""
    row = conn.execute("SELECT report_sha256 FROM sync_state WHERE id = 1").fetchone()
    return None if row is None else row[0]


def save_report_sent(conn: sqlite3.Connection, digest: str) -> None:
    with write_transaction(conn):
        conn.execute("UPDATE sync_state SET report_sha256 = ? WHERE id = 1", (digest,))


def store_time_zone(conn: sqlite3.Connection) -> str | None:
    """The store's time zone HQ recorded for this enrolled kiosk, or None (not enrolled, or HQ sent none: it
    does not send one yet). Staff may not change a zone HQ set (the settings page shows it read-only)."""
    row = conn.execute("SELECT store_time_zone FROM sync_state WHERE id = 1").fetchone()
    name = None if row is None else row[0]
    return name if known_time_zone(name) else None


def save_store_time_zone(conn: sqlite3.Connection, name: str | None) -> None:
    """Record HQ's zone for the store (None forgets it); the seam for when HQ's hello carries one."""
    if name is not None and not known_time_zone(name):
        raise ValueError(f"not a time zone: {name!r}")
    with write_transaction(conn):
        conn.execute("UPDATE sync_state SET store_time_zone = ? WHERE id = 1", (name,))


def kiosk_name(conn: sqlite3.Connection) -> str | None:
    """The name HQ shows this kiosk under, as its last hello said; None before HQ sent one."""
    row = conn.execute("SELECT kiosk_name FROM sync_state WHERE id = 1").fetchone()
    return None if row is None else row[0]


def save_kiosk_name(conn: sqlite3.Connection, name: str) -> None:
    with write_transaction(conn):
        conn.execute("UPDATE sync_state SET kiosk_name = ? WHERE id = 1", (name,))


def status_report(conn: sqlite3.Connection) -> dict[str, Any]:
    """What `sync status --json` prints and the staff page shows."""
    current = load(conn)
    pending_uploads = conn.execute(
        "SELECT COUNT(*) FROM sync_draft_upload WHERE state = 'QUEUED'").fetchone()[0]
    pending_downloads = conn.execute("SELECT COUNT(*) FROM sync_blob WHERE state != 'DONE'").fetchone()[0]
    ledger = upload_counts(conn)
    failed = failed_downloads(conn)
    # Settled ledger entries not at HQ yet; parked ones (HQ refused them: 409) apart, with HQ's error.
    credits: dict[str, Any] = {"pending_ledger_uploads": ledger.pending, "parked_ledger_uploads": ledger.parked,
                               "ledger_upload_error": ledger.last_error}
    # The nail model it runs (enrolled or not), and the consented captures still waiting to go up.
    credits["model_version"] = model_version(conn)
    # Model releases (issue #27): HQ's pinned key, whether releases can be checked, each offered slot's state.
    signing = model_keys.signing(conn)
    credits["hq_key_id"] = signing.key["key_id"] if signing.key else model_keys.current_key_id(conn)
    credits["model_signing"] = signing.state
    credits["model_slots"] = model_store.slot_reports(conn)
    credits["pending_captures"] = conn.execute("SELECT COUNT(*) FROM capture").fetchone()[0]
    credits["pending_capture_withdrawals"] = conn.execute(
        "SELECT COUNT(*) FROM capture_withdrawal WHERE sent_at IS NULL").fetchone()[0]
    if current is None:
        return {"state": SyncStatus.NOT_ENROLLED.value, "last_success_at": None, "offline_since": None,
                "cursor": None, "pending_uploads": pending_uploads, "pending_downloads": pending_downloads,
                "last_error": None, "last_warning": None, "failed_downloads": failed, "kiosk_name": None,
                **credits}
    warning, name = conn.execute("SELECT last_warning, kiosk_name FROM sync_state WHERE id = 1").fetchone()
    return {"state": current.state.value, "last_success_at": current.last_success_at,
            "offline_since": current.offline_since, "cursor": current.channel_cursor,
            "pending_uploads": pending_uploads, "pending_downloads": pending_downloads,
            "last_error": current.last_error, "last_warning": warning, "failed_downloads": failed,
            "hq_url": current.hq_url,
            "store_id": current.store_id,
            "kiosk_id": current.kiosk_id, "kiosk_name": name, "inbox_cursor": current.inbox_cursor, **credits}
