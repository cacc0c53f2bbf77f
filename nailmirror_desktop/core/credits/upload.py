"""The kiosk's ledger entries going up to HQ (PUT /v1/ledger/entries/{entry_id}, migrations/0005).

`pending_uploads` lists the settled entries HQ has not stored yet, oldest first, each with its wire body;
the sync cycle PUTs each one and calls `mark_uploaded` with the ids HQ answered 200 or 201 for. A crash between
the PUT and the mark only means the same body is sent again, which HQ answers 200 (a replay). An entry HQ refuses
(409) is parked by `park_upload` (migrations/0006) and offered no more, until staff unpark it
(`nailmirror credits unpark`, core/sync/ledger.unpark): it is then re-sent under `unpark_id` with `replaces`
naming the old id, and `finish_unpark` moves the entry to the new id. PENDING charges stay here until they
settle: a settled entry never changes, so its body, and so its upload, is final.

After HQ was restored from a backup (a new epoch in the inbox), `reoffer_all` offers every settled entry again:
the restored HQ lacks what arrived after its backup; what it has is a 200 replay."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from nailmirror_desktop.core.credits.ledger import TASK_BIZ_TYPE
from nailmirror_desktop.core.credits.policy import DEFAULT_STORE_ID
from nailmirror_desktop.core.db import write_transaction
from nailmirror_protocol.canonical import body_sha256
from nailmirror_protocol.shapes import LedgerEntryUpload

PENDING_UPLOADS = """
SELECT e.* FROM credit_entry e INDEXED BY credit_entry_to_upload
JOIN credit_account a ON a.id = e.account_id
WHERE a.store_id = ? AND e.uploaded_at IS NULL AND e.status <> 'PENDING' AND e.upload_error IS NULL
ORDER BY e.id LIMIT ?
"""


@dataclass(frozen=True)
class PendingUpload:
    entry_id: str  # the entry's upload_id: the {entry_id} of the PUT
    local_id: int
    body: LedgerEntryUpload


def utc_text(ms: int) -> str:
    """Milliseconds since the epoch as the protocol's "YYYY-MM-DDTHH:MM:SS.fffZ"."""
    return datetime.fromtimestamp(ms // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _body(row: sqlite3.Row) -> LedgerEntryUpload:
    body = _fields(row)
    if row["grant_sig"] is not None:  # only then: an entry without one keeps the body (and digest) it always had
        body["grant_sig"] = row["grant_sig"]
    return body


def _fields(row: sqlite3.Row) -> LedgerEntryUpload:
    return {
        "nm": 1, "kind": row["kind"], "status": row["status"], "amount": row["amount"],
        "confirmed_amount": row["confirmed_amount"], "funded": bool(row["funded"]), "grant_id": row["grant_id"],
        "task_no": row["biz_id"] if row["biz_type"] == TASK_BIZ_TYPE else None, "provider": row["provider"],
        "model": row["model"], "unit_price": row["unit_price"], "variations": row["variations"],
        "reason": row["reason"], "note": row["note"], "created_at": utc_text(row["created_at"]),
        "settled_at": None if row["settled_at"] is None else utc_text(row["settled_at"]),
    }


def pending_uploads(conn: sqlite3.Connection, store_id: str = DEFAULT_STORE_ID, *,
                    limit: int = 100) -> list[PendingUpload]:
    """Settled entries of the store not yet stored at HQ and not parked, oldest first (at most `limit`)."""
    if limit < 1:
        raise ValueError("limit is 1 or more")
    return [PendingUpload(row["upload_id"], row["id"], _body(row))
            for row in conn.execute(PENDING_UPLOADS, (store_id, limit))]


def mark_uploaded(conn: sqlite3.Connection, entry_ids: Iterable[str], now_ms: int | None = None) -> int:
    """Record that HQ stored these entries (by upload id); returns how many were marked now. Marking twice, or
    an id that is not a settled entry, changes nothing."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    marked = 0
    with write_transaction(conn):
        for entry_id in entry_ids:
            marked += conn.execute("""UPDATE credit_entry SET uploaded_at = ?
                                      WHERE upload_id = ? AND uploaded_at IS NULL AND status <> 'PENDING'""",
                                   (now, entry_id)).rowcount
    return marked


def park_upload(conn: sqlite3.Connection, entry_id: str, error: str) -> bool:
    """HQ refused this entry for good (a conflicting body under its id): keep the error and stop offering it.
    True if it was parked now."""
    with write_transaction(conn):
        return conn.execute("""UPDATE credit_entry SET upload_error = ?
                               WHERE upload_id = ? AND uploaded_at IS NULL AND upload_error IS NULL""",
                            (error[:400], entry_id)).rowcount == 1


@dataclass(frozen=True)
class UploadCounts:
    pending: int  # settled, not at HQ yet, still offered
    parked: int  # refused by HQ, kept with their error
    last_error: str | None  # the newest parked entry's error


def upload_counts(conn: sqlite3.Connection) -> UploadCounts:
    """Over every store in this database (a kiosk keeps one): what `sync status` shows."""
    pending, parked = conn.execute(
        """SELECT COALESCE(SUM(upload_error IS NULL), 0), COALESCE(SUM(upload_error IS NOT NULL), 0)
           FROM credit_entry WHERE uploaded_at IS NULL AND status <> 'PENDING'""").fetchone()
    last = conn.execute("""SELECT upload_error FROM credit_entry WHERE uploaded_at IS NULL
                           AND upload_error IS NOT NULL ORDER BY id DESC LIMIT 1""").fetchone()
    return UploadCounts(int(pending), int(parked), None if last is None else str(last[0]))


@dataclass(frozen=True)
class ParkedEntry:
    local_id: int
    entry_id: str  # the upload id HQ refused
    error: str
    body: LedgerEntryUpload  # what this kiosk's ledger says


def find_parked(conn: sqlite3.Connection, ref: str) -> ParkedEntry | None:
    """A parked entry by its ledger id (`credits ledger`'s ID) or its upload id; None when there is none."""
    row = conn.execute("""SELECT * FROM credit_entry WHERE upload_error IS NOT NULL AND uploaded_at IS NULL
                          AND (upload_id = ? OR (? GLOB '[0-9]*' AND id = CAST(? AS INTEGER)))""",
                       (ref, ref, ref)).fetchone()
    return None if row is None else ParkedEntry(row["id"], row["upload_id"], row["upload_error"], _body(row))


def unpark_id(entry_id: str, body: LedgerEntryUpload) -> str:
    """The new upload id of an unparked entry: derived from the old id and the body, so an unpark cut after HQ
    stored it and before finish_unpark sends the same id again (a 200 replay), never a second entry."""
    return body_sha256({"unpark": entry_id, "body": body})[:32]


def finish_unpark(conn: sqlite3.Connection, old_id: str, new_id: str, now_ms: int | None = None) -> bool:
    """HQ stored the entry under `new_id` (or, new_id == old_id, took it as it was): it is uploaded now."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    with write_transaction(conn):
        return conn.execute("""UPDATE credit_entry SET upload_id = ?, uploaded_at = ?, upload_error = NULL
                               WHERE upload_id = ? AND uploaded_at IS NULL AND upload_error IS NOT NULL""",
                            (new_id, now, old_id)).rowcount == 1


def reoffer_all(conn: sqlite3.Connection, store_id: str = DEFAULT_STORE_ID) -> int:
    """Offer every settled entry of the store again (parked ones too: their conflict was with the HQ the restore
    replaced). Runs in the caller's transaction when there is one. Returns how many were re-offered."""
    with write_transaction(conn):
        return conn.execute("""UPDATE credit_entry SET uploaded_at = NULL, upload_error = NULL
                               WHERE status <> 'PENDING' AND (uploaded_at IS NOT NULL OR upload_error IS NOT NULL)
                               AND account_id IN (SELECT id FROM credit_account WHERE store_id = ?)""",
                            (store_id,)).rowcount
