"""Sync as task types of the kiosk's engine (ARCHITECTURE.md §7, §16), so sync inherits retries, backoff, dead
letters and idempotency:

- SYNC_CYCLE  one cycle (cycle.py); a singleton: submitted under one request_source_id, so a second submit while
              one is waiting or running returns that one. At its end it queues a BLOB_FETCH per missing blob and
              a DRAFT_PUSH per queued submission (each keyed by what it moves, so never twice at once).
- BLOB_FETCH  one blob by sha256: fetched (resumed where the transport allows), hashed, probed, stored; then
              every staged style it completes is materialised. A wrong hash is fetched again once, then DEAD.
              A full disk (ENOSPC, EFBIG) is waited out: the task tries again every 30 min without burning an
              attempt, its .part kept, and no other blob is fetched meanwhile; the catalog stays as it is.
- DRAFT_PUSH  one revision: missing blobs first, then the revision PUT (a replay answers 200).
- CAPTURE_UPLOAD  one consented capture by code (core/captures/upload.py): PUT, then the kiosk's copy deleted.
- MODEL_FETCH  one offered model release by slot and release (core/model_releases/download.py): the signed
              manifest's file fetched, size and sha256 checked, written under data_dir()/models, row verified.

HQ's faults become task error classes here: OFFLINE → TRANSIENT (backoff), RETRY_LATER → RATE_LIMITED (waits
Retry-After, no attempt burnt), and REVOKED, UPGRADE_REQUIRED, 403, 404, 409 → INVALID_REQUEST (a dead letter
at once: retrying cannot help, and a revoked kiosk must not retry at all).
"""

from __future__ import annotations

import hashlib
import logging
import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from nailmirror_desktop.core.captures import store as capture_store
from nailmirror_desktop.core.captures import upload as capture_upload
from nailmirror_desktop.core.captures.upload import CAPTURE_UPLOAD
from nailmirror_desktop.core.catalog.errors import StyleError
from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.clock import Clock
from nailmirror_desktop.core.credits.policy import DEFAULT_STORE_ID
from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.model_releases import download as model_download
from nailmirror_desktop.core.model_releases import store as model_store
from nailmirror_desktop.core.model_releases.download import MODEL_FETCH
from nailmirror_desktop.core.sync import apply, cycle, drafts, fleet, state
from nailmirror_desktop.core.sync.errors import STORAGE_ERRNOS, Fault, SyncError, disk_full
from nailmirror_desktop.core.sync.port import HqPort
from nailmirror_desktop.core.sync.state import SyncState
from nailmirror_desktop.core.tasks.context import TaskContext
from nailmirror_desktop.core.tasks.errors import ErrorClass, TaskError, TooManyPendingTasks
from nailmirror_desktop.core.tasks.models import Task
from nailmirror_protocol.model_release import Verifier

log = logging.getLogger(__name__)

SYNC_CYCLE = "SYNC_CYCLE"
BLOB_FETCH = "BLOB_FETCH"
DRAFT_PUSH = "DRAFT_PUSH"
SYNC_TASK_TYPES = (SYNC_CYCLE, BLOB_FETCH, DRAFT_PUSH, CAPTURE_UPLOAD, MODEL_FETCH)
REQUEST_SOURCE = "sync"
CYCLE_KEY = "cycle"
# Downloads at once: a first sync of a large catalog is ~3 blobs per style, each mostly a round trip and an fsync,
# so a few in flight keep a 500-style first sync within seconds; bounded, so one kiosk never floods HQ.
BLOB_FETCH_PARALLEL = 4
DISK_FULL_RETRY_S = 1800.0  # a blob the disk had no room for is tried again every 30 min (catalog_sync.md §4.11)
DISK_FULL_MARK = "disk_full:"  # how sync_blob.last_error starts for a blob held back by a full disk
HASH_FAILURES_ALLOWED = 1  # a wrong hash is fetched again once, then the blob is FAILED (its task a dead letter)
# A FAILED blob is tried again by a later cycle after this wait, doubling with each failed round up to a day; a
# new version of its style (HQ re-publishing) or `sync now` tries it at once.
CAPTURE_NO_ROUTE_S = 86400.0  # an HQ without the capture route is asked again a day later
FAILED_RETRY_BASE_S = 900.0
FAILED_RETRY_MAX_S = 86400.0
# Faults that are no failure of the download itself: not counted in a blob's attempts.
_NOT_ATTEMPTS = (Fault.DISK_FULL, Fault.RETRY_LATER, Fault.CLOCK)

_CLASSES = {
    Fault.OFFLINE: ErrorClass.TRANSIENT,
    Fault.RETRY_LATER: ErrorClass.RATE_LIMITED,
    Fault.MISSING_BLOBS: ErrorClass.TRANSIENT,
    Fault.HASH_MISMATCH: ErrorClass.TRANSIENT,
    Fault.RESET_LOOP: ErrorClass.TRANSIENT,
    Fault.MALFORMED: ErrorClass.TRANSIENT,  # HQ may mend the answer; the next cycle asks again
}


class Submitter(Protocol):
    """The engine's submit (TaskEngine.submit), as the cycle handler uses it."""

    def submit(self, task_type: str, payload: dict[str, Any], *, request_source: str = ...,
               request_source_id: str | None = ..., scheduled_time: float | None = ...) -> Task: ...


@dataclass(frozen=True)
class SyncServices:
    repository_for: Callable[[sqlite3.Connection], StyleRepository]
    port_for: Callable[[SyncState], HqPort]
    clock: Clock
    rng: random.Random = field(default_factory=random.Random)
    periodic: bool = False  # the running kiosk: every cycle schedules the next poll
    poll_interval_s: int = 300  # until HQ's hello says otherwise
    credit_store_id: str = DEFAULT_STORE_ID  # the kiosk's credit account (KioskConfig.store_id)
    # Paints a draft on the sample hand photo for HQ's reviewer (app/sample_render.py); None: drafts go without.
    sample_renderer: drafts.SampleRenderer | None = None
    # Takes the store's time zone HQ sent into the kiosk's settings (app/services.py: config.json), so the daily
    # cap, hand-off numbers and times count the store's day as HQ set it.
    adopt_time_zone: Callable[[str], None] | None = None
    facts: fleet.KioskFacts = field(default_factory=fleet.KioskFacts)  # versions for the report to HQ
    # Checks HQ's ed25519 signatures (adapters/signing.py); None: model releases are ignored (no way to check).
    verify: Verifier | None = None


def task_error(error: SyncError) -> TaskError:
    error_class = _CLASSES.get(error.fault, ErrorClass.INVALID_REQUEST)
    if error.fault is Fault.RESET_LOOP:
        return TaskError(error.code, error.message, error_class, retry_after_s=1200.0)
    if error.fault is Fault.DISK_FULL:
        # Retrying sooner cannot help and a full disk is no reason to give a blob up: look again every half
        # hour without burning an attempt (the part kept what arrived); `sync now` looks at once.
        return TaskError(error.code, error.message, ErrorClass.RATE_LIMITED, retry_after_s=DISK_FULL_RETRY_S)
    if error.fault is Fault.CLOCK:
        # No blind retries (each would fail the same way) and no dead letter either: the clock may be fixed
        # (NTP, staff); look again in five minutes without burning an attempt.
        return TaskError(error.code, error.message, ErrorClass.RATE_LIMITED, retry_after_s=300.0)
    return TaskError(error.code, error.message, error_class, retry_after_s=error.retry_after_s)


def submit_cycle(engine: Submitter, *, spread: bool = True, retry_failed: bool = False) -> Task:
    """`retry_failed`: queue every FAILED download again now, whatever its backoff (staff asked: `sync now`)."""
    payload = {"spread": spread, "retry_failed": True} if retry_failed else {"spread": spread}
    return engine.submit(SYNC_CYCLE, payload, request_source=REQUEST_SOURCE, request_source_id=CYCLE_KEY)


def failed_retry_s(attempts: int) -> float:
    """How long a FAILED blob waits before a cycle tries it again: 15 min after its first failed round, doubling
    (a round is about two attempts: a wrong hash is fetched twice), at most a day."""
    return min(FAILED_RETRY_MAX_S, FAILED_RETRY_BASE_S * 2.0 ** max(0, min(attempts, 40) - 2))


def submit_push(engine: Submitter, draft_id: str, rev: int) -> Task:
    """One DRAFT_PUSH, keyed by draft and revision: the running kiosk's engine picks it up at once."""
    return engine.submit(DRAFT_PUSH, {"draft_id": draft_id, "rev": rev}, request_source=REQUEST_SOURCE,
                         request_source_id=f"draft/{draft_id}/{rev}")


def schedule_timer_cycle(engine: Submitter, at_s: float, interval_s: float) -> Task:
    """The running kiosk's next poll. Keyed by its time slot, so a cycle scheduling its successor while it still
    runs (its own key is taken) gets a new task, and two cycles ending in one slot schedule one successor."""
    slot = int(at_s // max(1.0, interval_s))
    return engine.submit(SYNC_CYCLE, {"spread": True, "timer": True}, request_source=REQUEST_SOURCE,
                         request_source_id=f"timer/{slot}", scheduled_time=at_s)


def make_handlers(engine: Submitter, services: SyncServices) -> dict[str, Callable[[TaskContext], dict[str, Any]]]:
    # The real engine also replays dead letters when HQ's operator asks (fleet.py); a bare submitter cannot.
    desk = engine if isinstance(engine, fleet.DeadLetterDesk) else None

    def run_sync_cycle(ctx: TaskContext) -> dict[str, Any]:
        repo = services.repository_for(ctx.connection)
        payload = ctx.task.payload or {}
        timer = bool(payload.get("timer"))
        current = state.require(repo.conn)
        now_s = services.clock.now()
        try:
            report = cycle.run_cycle(repo, services.port_for(current), now_s,
                                     credit_store_id=services.credit_store_id, desk=desk, facts=services.facts,
                                     verify=services.verify)
        except SyncError as exc:
            state.record_failure(repo.conn, exc)
            error = task_error(exc)
            if timer and error.retryable:
                # The poll timer never dies of a bad network: it records the fault and polls again later.
                wait = max(float(services.poll_interval_s), exc.retry_after_s or 0.0)
                schedule_timer_cycle(engine, now_s + wait, services.poll_interval_s)
                return {"error": exc.one_line()}
            raise error from None  # sync now reports it; REVOKED / UPGRADE_REQUIRED stop the timer too
        if report.store_time_zone is not None and services.adopt_time_zone is not None:
            services.adopt_time_zone(report.store_time_zone)
        spread = bool(payload.get("spread", True)) and not report.snapshot
        apply.revive_failed_blobs(repo.conn, now_s, all_due=bool(payload.get("retry_failed")))
        queued = queue_work(engine, repo.conn, services, spread_s=report.blob_spread_s if spread else 0)
        model_download.collect_unreferenced(repo.conn)  # a withdrawn release's file
        if services.periodic:
            interval = report.poll_interval_s or services.poll_interval_s
            schedule_timer_cycle(engine, now_s + interval, interval)
        return {"pages": report.pages, "changes": report.changes, "snapshot": report.snapshot,
                "inbox_events": report.inbox_events, "ledger_uploaded": report.ledger_uploaded,
                "ledger_parked": report.ledger_parked, "warning": report.warning, **queued}

    return {SYNC_CYCLE: run_sync_cycle, BLOB_FETCH: lambda ctx: fetch_blob(services, ctx),
            DRAFT_PUSH: lambda ctx: push_draft(services, ctx), CAPTURE_UPLOAD: lambda ctx: push_capture(services, ctx),
            MODEL_FETCH: lambda ctx: fetch_model(services, ctx)}


def fetch_model(services: SyncServices, ctx: TaskContext) -> dict[str, Any]:
    """One MODEL_FETCH: wrong bytes are fetched once more and then refused (a dead letter, the row says why); a
    full disk waits 30 min without burning an attempt; HQ unreachable is the engine's backoff."""
    payload = ctx.task.payload or {}
    slot, release = str(payload.get("slot", "")), int(payload.get("release") or 0)
    conn = ctx.connection
    try:
        fetched = model_download.fetch(conn, services.port_for(state.require(conn)), slot, release,
                                       ctx.task.attempt_count)
    except model_download.ModelFetchFailed as failed:
        if failed.error.fault in (Fault.REVOKED, Fault.UPGRADE_REQUIRED):
            state.record_failure(conn, failed.error)
        error = task_error(failed.error)
        if failed.refused:
            raise TaskError(error.code, error.message, ErrorClass.INVALID_REQUEST) from None
        raise error from None
    model_download.collect_unreferenced(conn)
    return {"slot": slot, "release": release, "fetched": fetched}


def submit_capture_upload(engine: Submitter, code: str) -> Task:
    """One CAPTURE_UPLOAD, keyed by the capture's code (a second submit while one waits returns that one)."""
    return engine.submit(CAPTURE_UPLOAD, {"code": code}, request_source=REQUEST_SOURCE,
                         request_source_id=f"capture/{code}")


def push_capture(services: SyncServices, ctx: TaskContext) -> dict[str, Any]:
    code = str((ctx.task.payload or {}).get("code", ""))
    conn = ctx.connection
    if capture_store.get(conn, code) is None:
        return {"code": code, "uploaded": False}
    try:
        return capture_upload.upload(conn, services.port_for(state.require(conn)), code)
    except SyncError as exc:
        if exc.fault in (Fault.REVOKED, Fault.UPGRADE_REQUIRED):
            state.record_failure(conn, exc)
        if exc.fault is Fault.NOT_FOUND:
            # An HQ from before captures: the capture waits (a day, no attempt burnt) instead of a dead letter
            # every cycle; the quota still bounds what waits.
            raise TaskError(exc.code, exc.message, ErrorClass.RATE_LIMITED, retry_after_s=CAPTURE_NO_ROUTE_S) from None
        raise task_error(exc) from None


def fetch_blob(services: SyncServices, ctx: TaskContext) -> dict[str, Any]:
    sha256 = str((ctx.task.payload or {}).get("sha256", ""))
    repo = services.repository_for(ctx.connection)
    row = repo.conn.execute("SELECT * FROM sync_blob WHERE sha256 = ?", (sha256,)).fetchone()
    if row is None or row["state"] == "DONE":
        return {"sha256": sha256, "fetched": False}
    if not str(row["last_error"] or "").startswith(DISK_FULL_MARK) and _disk_full(repo.conn):
        # Another download found the disk full: stop fetching (no request, no bytes) until one gets through.
        raise _blob_failed(repo.conn, sha256, SyncError(
            Fault.DISK_FULL, "disk_full", "another download found no room on this kiosk's disk; waiting for space"),
            services.clock.now())
    port = services.port_for(state.require(repo.conn))
    try:
        data = port.fetch_blob(sha256, int(row["size"]))
        if hashlib.sha256(data).hexdigest() != sha256:
            raise SyncError(Fault.HASH_MISMATCH, "hash_mismatch", f"blob {sha256[:12]}… hashed otherwise")
        try:
            stored = repo.require_store().put(data)  # probes the image too (a wrong format is refused)
        except OSError as exc:
            if exc.errno not in STORAGE_ERRNOS:
                raise
            # The store writes a temporary and renames it: a full disk leaves no partial blob to show.
            raise disk_full(exc, f"blob {sha256[:12]}…") from None
    except SyncError as exc:
        raise _blob_failed(repo.conn, sha256, exc, services.clock.now()) from None
    except StyleError as exc:
        raise _blob_failed(repo.conn, sha256, SyncError(Fault.INVALID, exc.code, str(exc)),
                           services.clock.now()) from None
    with write_transaction(repo.conn):
        repo.conn.execute("UPDATE sync_blob SET state = 'DONE', last_error = NULL,"
                          " format = ? WHERE sha256 = ?", (stored.format, sha256))
        # There is room again: the downloads held back by a full disk may go (their tasks' next try).
        repo.conn.execute("UPDATE sync_blob SET last_error = NULL WHERE state = 'PENDING' AND last_error LIKE ?",
                          (DISK_FULL_MARK + "%",))
        shown = apply.materialise_waiting_on(repo, sha256)
    return {"sha256": sha256, "fetched": True, "materialised": shown}

def push_draft(services: SyncServices, ctx: TaskContext) -> dict[str, Any]:
    payload = ctx.task.payload or {}
    draft_id, rev = str(payload.get("draft_id")), int(payload.get("rev") or 0)
    repo = services.repository_for(ctx.connection)
    upload = repo.conn.execute("SELECT * FROM sync_draft_upload WHERE draft_id = ? AND rev = ?",
                               (draft_id, rev)).fetchone()
    if upload is None or upload["state"] != "QUEUED":
        return {"draft_id": draft_id, "rev": rev, "pushed": False}
    port = services.port_for(state.require(repo.conn))
    body, blobs = drafts.revision_body(repo, int(upload["style_id"]))
    drafts.attach_sample_render(body, blobs, _sample_render(services, repo, int(upload["style_id"]), draft_id))
    try:
        receipt = push_revision(port, draft_id, rev, body, blobs)
    except SyncError as exc:
        if task_error(exc).retryable:
            repo.conn.execute("UPDATE sync_draft_upload SET last_error = ? WHERE draft_id = ? AND rev = ?",
                              (exc.one_line(), draft_id, rev))
        else:
            drafts.mark_upload(repo.conn, draft_id, rev, "FAILED", exc.one_line())
        if exc.fault in (Fault.REVOKED, Fault.UPGRADE_REQUIRED):
            state.record_failure(repo.conn, exc)
        raise task_error(exc) from None
    drafts.mark_upload(repo.conn, draft_id, rev, "SENT")
    return {"draft_id": draft_id, "rev": rev, "pushed": True, "state": receipt["state"]}



def _sample_render(services: SyncServices, repo: StyleRepository, style_id: int,
                   draft_id: str) -> drafts.SampleRender | None:
    """The render for HQ's reviewer, or None: whatever goes wrong painting it (no hand found, a model missing, a
    texture unreadable) must never hold the submission up, so every failure is logged and the draft goes without."""
    if services.sample_renderer is None:
        return None
    try:
        return services.sample_renderer(repo, style_id)
    except Exception:  # noqa: BLE001  (see the docstring: the render is optional, the submission is not)
        log.warning("draft %s goes without its sample render: painting it failed", draft_id, exc_info=True)
        return None


def push_revision(port: HqPort, draft_id: str, rev: int, body: Any, blobs: dict[str, bytes]) -> Any:
    """Blobs HQ lacks first, then the revision; a 422 missing_blobs (HQ lost one meanwhile) uploads those and
    tries once more in the same attempt."""
    for sha256 in port.blobs_missing(sorted(blobs)):
        port.put_blob(sha256, blobs[sha256], _media_type(blobs[sha256]))
    try:
        return port.put_draft(draft_id, rev, body)
    except SyncError as exc:
        if exc.fault is not Fault.MISSING_BLOBS:
            raise
        missing = exc.details.get("missing")
        for sha256 in missing if isinstance(missing, list) else []:
            if sha256 in blobs:
                port.put_blob(sha256, blobs[sha256], _media_type(blobs[sha256]))
        return port.put_draft(draft_id, rev, body)


def _media_type(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    return "image/webp"


def _disk_full(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sync_blob WHERE state = 'PENDING' AND last_error LIKE ? LIMIT 1",
                        (DISK_FULL_MARK + "%",)).fetchone() is not None


def _blob_failed(conn: sqlite3.Connection, sha256: str, exc: SyncError, now_s: float) -> TaskError:
    """Record a failed fetch; a second wrong hash (or a 404, a refused image) leaves the blob FAILED — its style
    stays hidden — and the task a dead letter, until a later cycle tries it again (failed_retry_s), HQ publishes
    a new version naming it, or staff run `sync now`."""
    counted = int(exc.fault not in _NOT_ATTEMPTS)
    with write_transaction(conn):
        if exc.fault is Fault.HASH_MISMATCH:
            conn.execute("UPDATE sync_blob SET hash_failures = hash_failures + 1 WHERE sha256 = ?", (sha256,))
            failures = conn.execute("SELECT hash_failures FROM sync_blob WHERE sha256 = ?", (sha256,)).fetchone()[0]
            permanent = failures > HASH_FAILURES_ALLOWED
        else:
            permanent = not task_error(exc).retryable
        conn.execute("UPDATE sync_blob SET attempts = attempts + ?, state = ?, last_error = ? WHERE sha256 = ?",
                     (counted, "FAILED" if permanent else "PENDING", exc.one_line(), sha256))
        if permanent:
            attempts = conn.execute("SELECT attempts FROM sync_blob WHERE sha256 = ?", (sha256,)).fetchone()[0]
            conn.execute("UPDATE sync_blob SET retry_at = ? WHERE sha256 = ?",
                         (now_s + failed_retry_s(int(attempts)), sha256))
    if exc.fault in (Fault.REVOKED, Fault.UPGRADE_REQUIRED):
        state.record_failure(conn, exc)
    error = task_error(exc)
    if permanent:
        return TaskError(error.code, error.message, ErrorClass.INVALID_REQUEST)
    return error


def queue_work(engine: Submitter, conn: sqlite3.Connection, services: SyncServices, *,
               spread_s: float = 0) -> dict[str, int]:
    """A BLOB_FETCH per pending blob (spread over `spread_s` so a chain-wide publish does not hit HQ at once)
    and a DRAFT_PUSH per queued submission. Safe to repeat: each task is keyed by what it moves."""
    now_s = services.clock.now()
    blobs, uploads = apply.pending_blobs(conn), drafts.queued_uploads(conn)
    queued = {"blobs_queued": 0, "drafts_queued": 0, "captures_queued": 0, "models_queued": 0}
    try:
        for upload in uploads:  # drafts first: they are few, and staff are waiting on them
            submit_push(engine, upload["draft_id"], int(upload["rev"]))
            queued["drafts_queued"] += 1
        for capture in capture_store.queued(conn):
            submit_capture_upload(engine, capture.code)
            queued["captures_queued"] += 1
        for model in model_store.downloading(conn):  # a release's download is never spread: it is one file
            engine.submit(MODEL_FETCH, {"slot": model.slot, "release": model.release}, request_source=REQUEST_SOURCE,
                          request_source_id=f"model/{model.slot}/{model.release}")
            queued["models_queued"] += 1
        for blob in blobs:
            delay = services.rng.uniform(0, spread_s) if spread_s > 0 else 0.0
            engine.submit(BLOB_FETCH, {"sha256": blob["sha256"]}, request_source=REQUEST_SOURCE,
                          request_source_id=f"blob/{blob['sha256']}", scheduled_time=now_s + delay)
            queued["blobs_queued"] += 1
    except TooManyPendingTasks:
        # The engine's backlog limit per source: the rest stay PENDING in sync_blob; the next cycle queues them.
        log.info("sync queued %(blobs_queued)d blob fetch(es) and %(drafts_queued)d push(es); more next cycle",
                 queued)
    return queued
