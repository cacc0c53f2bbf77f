"""One sync cycle over an HqPort: hello, the channel feed (or the snapshot after a 410), then the inbox (review
decisions and credit grants), then the settled ledger entries up to HQ (ledger.py).

An HQ restored from a backup (a new epoch, or 410 ahead_of_server) is resynced by snapshot replace, and the
revisions it had from this kiosk but never decided are queued to go up again (it may have lost them).

The kiosk's token is rotated in the cycle once it is ROTATE_AFTER_S old (`_rotate`: stored only after a call
with it succeeded, so a crash or a refusal never locks the kiosk out).

HQ's key (hello's hq_key) is checked against the pinned one first (core/model_releases/keys.py); the cycle's
ReleaseGate then decides whether "model" changes are recorded. A cycle that pinned or rotated to a new key reads
the snapshot instead of the feed, so releases sent while the kiosk could not check them are not lost.

Each page is its own transaction with its cursor, so a cycle cut anywhere resumes where the last committed page
left off. Blobs and draft pushes are not fetched here: the cycle leaves them queued (sync_blob,
sync_draft_upload) and tasks.py turns them into BLOB_FETCH and DRAFT_PUSH tasks.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass

from nailmirror_desktop.core.captures import upload as capture_upload
from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.config import known_time_zone
from nailmirror_desktop.core.credits import upload
from nailmirror_desktop.core.credits.policy import DEFAULT_STORE_ID
from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.model_releases import keys
from nailmirror_desktop.core.model_releases import store as model_store
from nailmirror_desktop.core.model_releases.offers import ReleaseGate
from nailmirror_desktop.core.model_version import model_version
from nailmirror_desktop.core.sync import apply, drafts, fleet, ledger, state
from nailmirror_desktop.core.sync.errors import Fault, SyncError
from nailmirror_desktop.core.sync.port import HqPort
from nailmirror_desktop.core.sync.state import SyncStatus
from nailmirror_protocol import paths
from nailmirror_protocol.canonical import body_sha256
from nailmirror_protocol.errors import ResetReason
from nailmirror_protocol.model_release import Verifier
from nailmirror_protocol.shapes import CatalogState, FleetRequest, SyncReport

# 410 reasons that mean HQ went back in time (restored from a backup): undecided drafts we sent go up again.
BACK_IN_TIME = (ResetReason.EPOCH_CHANGED.value, ResetReason.AHEAD_OF_SERVER.value)
ROTATE_AFTER_S = 30 * 86400.0  # a kiosk's token is swapped for a new one once it is 30 days old
log = logging.getLogger(__name__)
MAX_PAGES = 1000  # a cycle never loops forever on a feed that keeps saying has_more


@dataclass(frozen=True)
class CycleReport:
    pages: int
    changes: int
    snapshot: bool
    inbox_events: int
    poll_interval_s: int
    blob_spread_s: int
    ledger_uploaded: int = 0
    ledger_parked: int = 0
    warning: str | None = None  # what the cycle found odd without failing on it (one line)
    store_time_zone: str | None = None  # the store's zone as HQ set it (hello), once recorded here; None: none sent


def run_cycle(repo: StyleRepository, port: HqPort, now_s: float, *, page_limit: int = paths.PAGE_MAX,
              credit_store_id: str = DEFAULT_STORE_ID, desk: fleet.DeadLetterDesk | None = None,
              facts: fleet.KioskFacts | None = None, verify: Verifier | None = None) -> CycleReport:
    """Raises SyncError; the caller records it (state.record_failure) and decides about retries.
    `credit_store_id` is the kiosk's own credit account (KioskConfig.store_id): grants land there and its
    entries go up (HQ files them under the store of the token that sends them). `desk` (the task engine) replays
    dead letters when HQ asks (fleet.py); `facts` go into the report; `verify` checks HQ's ed25519 signatures
    (None: this build cannot, and model releases are ignored)."""
    conn = repo.conn
    current = state.require(conn)
    if current.state in (SyncStatus.REVOKED, SyncStatus.UPGRADE_REQUIRED):
        # No request at all: a revoked kiosk must not hammer HQ; re-enrolling (or upgrading) clears this.
        raise SyncError(Fault.REVOKED if current.state is SyncStatus.REVOKED else Fault.UPGRADE_REQUIRED,
                        current.state.value.lower(), current.last_error or current.state.value)
    if current.not_before is not None and now_s < current.not_before:
        wait = current.not_before - now_s
        raise SyncError(Fault.RETRY_LATER, "retry_later", f"HQ asked to wait {wait:.0f} s more", retry_after_s=wait)
    hello = port.hello()
    signing = keys.adopt_from_hello(conn, hello.get("hq_key"), hello.get("hq_key_rotations", []), verify)
    gate = ReleaseGate(signing.state, signing.key, verify)
    zone = _adopt_time_zone(conn, hello.get("store_time_zone"))
    name = hello.get("kiosk_name")
    if name and name != state.kiosk_name(conn):  # HQ named or renamed this kiosk: staff see the same name
        state.save_kiosk_name(conn, name)
    if state.token_age_s(current, now_s) >= ROTATE_AFTER_S:
        _rotate(conn, port)
    pages = changes = 0
    took_snapshot = False
    warning = None
    asked = fleet.take_requests(conn, hello.get("fleet_requests", []))
    cursor = current.channel_cursor
    resync = next((r for r in asked if r["kind"] == "resync"), None)
    if resync is not None or cursor is None or cursor.split(".")[0] != hello["epoch"]:
        changes += _replace_catalog(repo, port, now_s, cursor, resync, gate)
        took_snapshot = True
    elif signing.changed:  # a key pinned or rotated to just now: releases the feed carried before are re-read
        changes += _snapshot(repo, port, gate, force=True)
        took_snapshot = True
    else:
        pages, changes, took_snapshot, warning = _follow_feed(repo, port, now_s, cursor, page_limit, gate)
    events = _pull_inbox(repo, port, hello["epoch"], credit_store_id)
    uploads = ledger.upload_entries(conn, port, store_id=credit_store_id)
    fleet.do_requests(conn, asked, now_s, desk)
    capture_upload.send_withdrawals(conn, port, now_s)  # a customer's withdrawal goes up with every cycle
    _send_report(conn, port, facts or fleet.KioskFacts())
    backoff = float(hello.get("backoff_s") or 0)
    state.record_success(conn, not_before=now_s + backoff if backoff > 0 else None, warning=warning)
    return CycleReport(pages, changes, took_snapshot, events, int(hello["poll_interval_s"]),
                       int(hello["blob_spread_s"]), uploads.uploaded, uploads.parked, warning, zone)


def _follow_feed(repo: StyleRepository, port: HqPort, now_s: float, cursor: str, page_limit: int,
                 gate: ReleaseGate) -> tuple[int, int, bool, str | None]:
    """The channel's feed from `cursor`, page by page (a 410 turns it into the snapshot; drift at its end is
    repaired by one): (pages, changes, took_snapshot, warning)."""
    pages = changes = 0
    took_snapshot = False
    warning = None
    while pages < MAX_PAGES:
        try:
            page = port.changes(cursor, page_limit)
        except SyncError as exc:
            if exc.fault is not Fault.RESET:
                raise
            with write_transaction(repo.conn):
                state.note_reset(repo.conn, now_s)
                if exc.details.get("reason") in BACK_IN_TIME:
                    drafts.requeue_undecided(repo.conn)
            changes += _snapshot(repo, port, gate)
            return pages, changes, True, None
        changes += apply.apply_changes_page(repo, page, gate)
        pages += 1
        cursor = page["next"]
        if not page["has_more"]:
            claimed = page.get("state")
            if claimed is not None and _differs(repo.conn, claimed):
                repaired, warning = _repair_drift(repo, port, now_s, claimed, gate)
                changes += repaired
                took_snapshot = True
            break
    return pages, changes, took_snapshot, warning


def _adopt_time_zone(conn: sqlite3.Connection, zone: str | None) -> str | None:
    """Record the store's time zone HQ sent (hello), so staff settings show it read-only and the store's day is
    HQ's. An HQ that sends none (older than the field) leaves what the kiosk had; a name this PC's tz database
    does not know is logged and ignored, never a reason to fail the sync."""
    if zone is None:
        return None
    if not known_time_zone(zone):
        log.info("HQ's store time zone %r is unknown to this PC's tz database; kept %r", zone,
                 state.store_time_zone(conn))
        return None
    if state.store_time_zone(conn) != zone:
        state.save_store_time_zone(conn, zone)
    return zone


def _replace_catalog(repo: StyleRepository, port: HqPort, now_s: float, cursor: str | None,
                     resync: FleetRequest | None, gate: ReleaseGate) -> int:
    """The snapshot instead of the feed: an operator asked for it (`resync`), there is no cursor yet, or HQ's
    history changed (restored): a snapshot replace, not a 410 round trip."""
    if resync is not None:
        return _resync(repo, port, resync["id"], gate)
    if cursor is not None:
        with write_transaction(repo.conn):
            state.note_reset(repo.conn, now_s)
            drafts.requeue_undecided(repo.conn)  # a restored HQ may have lost what we sent it
    return _snapshot(repo, port, gate)


def _resync(repo: StyleRepository, port: HqPort, request_id: str, gate: ReleaseGate) -> int:
    """An operator asked for it (a catalog gone wrong here): HQ's snapshot replaces the catalog, as after a 410."""
    try:
        replaced = _snapshot(repo, port, gate, force=True)
    except SyncError as exc:
        fleet.finish(repo.conn, request_id, "FAILED", exc.one_line())
        raise
    fleet.finish(repo.conn, request_id, "DONE", f"catalog replaced from HQ's snapshot ({replaced} change(s))")
    return replaced


def _repair_drift(repo: StyleRepository, port: HqPort, now_s: float, claimed: CatalogState,
                  gate: ReleaseGate) -> tuple[int, str | None]:
    """Drift (a row lost or changed here behind sync's back): one snapshot repairs it. If HQ's own snapshot
    still disagrees with what its feed claimed, the snapshot (whole, checked) is what is kept, the feed's claim
    alone never takes a style down, and the returned warning says so on one line."""
    with write_transaction(repo.conn):
        state.note_reset(repo.conn, now_s)
    changes = _snapshot(repo, port, gate, force=True)
    if not _differs(repo.conn, claimed):
        return changes, None
    warning = (f"HQ's feed says it has {claimed['count']} style(s), but its snapshot gave"
               f" {apply.local_state(repo.conn)[0]}; kept the snapshot's (nothing deleted on the feed's word)")
    log.info("%s", warning)  # said by `sync now` and `sync status` (last_warning), not twice
    return changes, warning


def _differs(conn: sqlite3.Connection, claimed: CatalogState) -> bool:
    """HQ's claimed catalog (count and digest of its live styles) is not what this kiosk holds."""
    return (claimed["count"], claimed["digest"]) != apply.local_state(conn)


def _send_report(conn: sqlite3.Connection, port: HqPort, facts: fleet.KioskFacts) -> None:
    """How sync stands here (the downloads that failed, the fleet health, answers to HQ's requests), to HQ, when
    it changed since HQ last took it. An HQ from before sync reports answers 404 (or 405): taken as "not wanted"
    for this report, and sync carries on; any other fault but a revoked token or a needed upgrade waits for the
    next cycle, never failing this one. The state said is OK: the report goes at the end of a cycle that
    reached HQ (a kiosk that cannot reach HQ tells it nothing; HQ sees it as not seen)."""
    current = state.require(conn)
    report: SyncReport = {"nm": 1, "failed_downloads": state.failed_downloads(conn), "sync_state": "OK",
                          **fleet.health_fields(conn)}  # type: ignore[typeddict-item]
    if facts.app_version:
        report["app_version"] = facts.app_version
    # The model that runs now: the active live release's version, else the bundled one (issue #27).
    if facts.model_version:
        report["model_version"] = model_version(conn)
    report["model_signing"] = keys.signing(conn).state
    slots = model_store.slot_reports(conn)
    if slots:
        report["model_slots"] = slots
    if current.channel_cursor:
        report["cursor"] = current.channel_cursor
    results = fleet.results(conn)
    if results:
        report["fleet_results"] = results
    digest = body_sha256(fleet.lasting_part(report))
    if digest == state.report_sent(conn):
        return
    try:
        port.put_sync_report(report)
    except SyncError as exc:
        if exc.fault in (Fault.REVOKED, Fault.UPGRADE_REQUIRED):
            raise
        if exc.fault not in (Fault.NOT_FOUND, Fault.INVALID):
            log.info("sync report postponed: %s", exc.one_line())
            return
        log.info("HQ does not take sync reports (%s); not sent again until it changes", exc.one_line())
    state.save_report_sent(conn, digest)


def _rotate(conn: sqlite3.Connection, port: HqPort) -> None:
    """Swap the token for a new one (HQ keeps the old one valid for 24 h). The new token is written to the
    kiosk's database only after a call with it succeeded, in one statement; until then the old one stays the
    stored one. So nothing can lock the kiosk out: a crash or a lost answer before the write leaves the old
    token, still valid at HQ for a day, and the next cycle rotates again from it (HQ allows that); a new token
    HQ refuses (it lost the rotation) is never stored. A failed rotation never fails the sync."""
    try:
        new = port.rotate_token()["token"]
    except SyncError as exc:
        if exc.fault in (Fault.REVOKED, Fault.UPGRADE_REQUIRED):
            raise
        log.info("token rotation postponed: %s", exc.one_line())
        return
    old = state.require(conn).token
    port.use_token(new)
    try:
        port.hello()  # the first call with the new token
    except SyncError as exc:
        port.use_token(old)  # the rest of the cycle goes on with the stored, still valid, token
        log.info("token rotation not confirmed, keeping the current token: %s", exc.one_line())
        return
    state.save_rotated_token(conn, new)


def _snapshot(repo: StyleRepository, port: HqPort, gate: ReleaseGate, *, force: bool = False) -> int:
    current = state.require(repo.conn)
    # If-None-Match only when the cursor we hold is the snapshot's own: a 304 then means nothing to re-apply.
    etag = current.snapshot_etag if current.snapshot_etag == current.channel_cursor and not force else None
    snapshot = port.snapshot(etag)
    if snapshot is None:
        return 0
    return apply.apply_snapshot(repo, snapshot, gate)


def _pull_inbox(repo: StyleRepository, port: HqPort, epoch: str, credit_store_id: str) -> int:
    events = 0
    inbox_cursor = state.require(repo.conn).inbox_cursor
    restored = inbox_cursor is not None and inbox_cursor.split(".")[0] != epoch
    if restored:
        inbox_cursor = None  # a restored HQ: its inbox history starts again
    for _ in range(MAX_PAGES):
        try:
            inbox_page = port.inbox(inbox_cursor)
        except SyncError as exc:
            if exc.fault is not Fault.RESET:
                raise
            inbox_page = port.inbox(None)
        with write_transaction(repo.conn):
            if restored:
                # The restored HQ lacks the entries (and grants) that reached it after its backup: offer every
                # settled entry again, in the transaction that moves the inbox cursor to the new epoch, so a
                # crash cannot leave the cursor moved and the entries not re-offered. Known ones are 200s.
                upload.reoffer_all(repo.conn, credit_store_id)
                restored = False
            events += drafts.apply_inbox_page(repo, inbox_page, credit_store_id=credit_store_id)
        inbox_cursor = inbox_page["next"]
        if not inbox_page["has_more"]:
            break
    return events
