"""Credits through sync (issue 14, ARCHITECTURE.md §14): HQ's `credits.grant` inbox events into the local
ledger, and the kiosk's settled ledger entries up to HQ.

- Grants are applied inside the inbox page's transaction (drafts.apply_inbox_page), so "credits added" and
  "event seen" (the inbox cursor) commit together; apply_grant is once per grant_id, so a page fetched again
  after a crash, or the same event delivered twice, adds its credits once.
- Uploads run after the inbox in each cycle: one PUT per settled entry, oldest first, each marked uploaded on
  HQ's 200/201 in its own small transaction (a crash loses at most one mark, and the resend is a 200 replay).
  A 409 (HQ holds another body under that id) or a body HQ can never take parks the entry with HQ's error:
  resending the same immutable body could only be refused again, and a blind loop would bury an accounting
  conflict that staff must see (`sync status`). Any other fault stops the uploads and fails the cycle as usual.
- A parked entry ends by `unpark` (`nailmirror credits unpark`): re-sent as it is first (a restored HQ may take
  it), else, once staff have seen both bodies and confirmed, under a new id that `replaces` the old one.
- Grants are addressed to one kiosk (`kiosk_id`): a store's kiosks keep a ledger each, so every kiosk applying
  every grant would multiply the credits. A kiosk applies the grants addressed to it and those addressed to no
  one (made before grants were addressed); it skips the others.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from nailmirror_desktop.core.credits.errors import GrantRejected
from nailmirror_desktop.core.credits.inbox_grant import apply_grant_event
from nailmirror_desktop.core.credits.upload import (
    find_parked,
    finish_unpark,
    mark_uploaded,
    park_upload,
    pending_uploads,
    unpark_id,
)
from nailmirror_desktop.core.sync.errors import Fault, SyncError
from nailmirror_desktop.core.sync.port import HqPort
from nailmirror_protocol.shapes import CREDITS_GRANT, InboxEvent, LedgerEntryUpload

log = logging.getLogger(__name__)

UPLOAD_BATCH = 100  # entries read per query; a cycle keeps going until none are left
MAX_UPLOADS_PER_CYCLE = 10_000  # a runaway bound, never reached by a kiosk's real day
_PARKING_FAULTS = (Fault.CONFLICT, Fault.INVALID)


@dataclass(frozen=True)
class UploadReport:
    uploaded: int
    parked: int


def apply_grant_events(conn: sqlite3.Connection, events: Iterable[InboxEvent], *, store_id: str,
                       kiosk_id: str | None = None) -> int:
    """Apply the page's credits.grant events addressed to this kiosk (`kiosk_id`, default the enrolled one) or
    to no kiosk, in the caller's transaction; returns how many added credits now. An event the ledger refuses
    (malformed, out of range) is logged and passed over: the same bytes can never become valid, and holding the
    cursor on it would stop every later event too."""
    if kiosk_id is None:
        row = conn.execute("SELECT kiosk_id FROM sync_state WHERE id = 1").fetchone()
        kiosk_id = None if row is None else row[0]
    applied = 0
    for event in events:
        if event.get("type") != CREDITS_GRANT:
            continue
        addressee = event.get("kiosk_id")
        if addressee is not None and addressee != kiosk_id:
            continue  # another kiosk of this store holds that grant in its own ledger
        try:
            applied += apply_grant_event(conn, event, store_id=store_id)
        except GrantRejected as exc:
            log.warning("HQ credits.grant event %s (seq %s) refused: %s", event.get("grant_id"), event.get("seq"),
                        exc)
    return applied


def upload_entries(conn: sqlite3.Connection, port: HqPort, *, store_id: str) -> UploadReport:
    """PUT every settled, unparked entry of the store; raises SyncError for a fault that is not the entry's own."""
    uploaded = parked = sent = 0
    while sent < MAX_UPLOADS_PER_CYCLE:
        batch = pending_uploads(conn, store_id, limit=UPLOAD_BATCH)
        if not batch:
            break
        before = uploaded + parked
        for entry in batch:
            sent += 1  # counts tries, not marks: a mark that changed nothing cannot spin this loop
            try:
                port.put_ledger_entry(entry.entry_id, entry.body)
            except SyncError as exc:
                if exc.fault not in _PARKING_FAULTS:
                    raise
                park_upload(conn, entry.entry_id, f"HQ refused ledger entry {entry.local_id}: {exc.one_line()}")
                log.warning("ledger entry %s parked: %s", entry.local_id, exc.one_line())
                parked += 1
                continue
            uploaded += mark_uploaded(conn, [entry.entry_id])
        if uploaded + parked == before:
            break  # nothing this batch changed (cannot happen by the queries; never resend in a loop)
    return UploadReport(uploaded, parked)


@dataclass(frozen=True)
class UnparkResult:
    """outcome: "accepted" (HQ took the entry as it is, e.g. a restored HQ without the other body), "conflict"
    (HQ holds another body: both shown, nothing changed; confirm to re-send), "resent" (stored at HQ under
    `new_entry_id`, replacing the old id), "refused" (HQ refuses the body itself: re-sending cannot help)."""

    outcome: str
    local_id: int
    entry_id: str
    kiosk_body: LedgerEntryUpload
    hq_body: object | None = None
    new_entry_id: str | None = None
    error: str | None = None


class NotParked(LookupError):
    pass


def unpark(conn: sqlite3.Connection, port: HqPort, ref: str, *, confirm: bool) -> UnparkResult:
    """End a parked entry (ref: its ledger id or upload id). It is first offered again under its own id: HQ
    answers 200/201 (taken: done), 409 with the body it holds (shown; with `confirm`, the kiosk's entry is sent
    under a new id with `replaces`, and HQ stops counting the old one), or 400 (refused for good). Raises
    NotParked, or SyncError for a fault that is not the entry's (offline: nothing changed)."""
    parked = find_parked(conn, ref)
    if parked is None:
        raise NotParked(ref)
    try:
        port.put_ledger_entry(parked.entry_id, parked.body)
    except SyncError as exc:
        if exc.fault is Fault.INVALID:
            return UnparkResult("refused", parked.local_id, parked.entry_id, parked.body, error=exc.one_line())
        if exc.fault is not Fault.CONFLICT:
            raise
        hq_body = exc.details.get("stored")
        if not confirm:
            return UnparkResult("conflict", parked.local_id, parked.entry_id, parked.body, hq_body,
                                error=exc.one_line())
        new_id = unpark_id(parked.entry_id, parked.body)
        resent: LedgerEntryUpload = {**parked.body, "replaces": parked.entry_id}
        port.put_ledger_entry(new_id, resent)
        finish_unpark(conn, parked.entry_id, new_id)
        log.warning("ledger entry %s re-sent as %s, replacing %s", parked.local_id, new_id, parked.entry_id)
        return UnparkResult("resent", parked.local_id, parked.entry_id, parked.body, hq_body, new_id)
    finish_unpark(conn, parked.entry_id, parked.entry_id)
    return UnparkResult("accepted", parked.local_id, parked.entry_id, parked.body)
