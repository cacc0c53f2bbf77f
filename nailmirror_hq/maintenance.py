"""HQ's scheduled housekeeping: feed compaction, the clean-up of blobs nothing references, and the deletion of
consented captures past the chain's retention age (captures.expire).

Both are hygiene, not performance (catalog_sync.md §6): a feed page is an index range scan whatever the log's
size. `run_due` is what `serve` calls on a timer and `nailmirror-hq maintain` runs once (cron, a systemd
timer); several HQ processes on one database take turns through the write lock, and the last run is recorded,
so a chain with three HQ processes compacts once a day, not three times.

Compaction keeps every change younger than the retention horizon (≥ 180 days: longer than any kiosk is
expected to stay offline) and, below it, the newest change per entity; a cursor below the horizon gets 410
compacted and resyncs from the snapshot.

A blob is unreferenced when no style (WITHDRAWN ones too: a later publish brings them back), no draft revision
and no change still in the feed names it. It is deleted only once it is older than the grace period, so an
upload whose draft PUT has not arrived yet is never lost; the row goes first, in the same write transaction as
the reference check, so no draft can name a blob between the check and the delete.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import Connection, Engine, delete, func, select

from nailmirror_hq import captures, clock, db, feed, meta, rollout_actions
from nailmirror_hq.blobs import BlobStore
from nailmirror_hq.config import CAPTURE_RETENTION_DAYS
from nailmirror_hq.schema import blob, catalog_change, channel_entity, draft_revision, rollout, style

RETENTION = timedelta(days=180)
CAPTURE_RETENTION = timedelta(days=CAPTURE_RETENTION_DAYS)
BLOB_GRACE = timedelta(days=7)
INTERVAL = timedelta(hours=24)
LAST_RUN_KEY = "maintenance_last_run"
_SHA256_IN_JSON = re.compile(r'"sha256"\s*:\s*"([0-9a-f]{64})"')


@dataclass(frozen=True)
class MaintenanceResult:
    ran: bool
    changes_dropped: dict[str, int]
    blobs_deleted: list[str]
    captures_expired: list[str] = field(default_factory=list)


def compact_channels(conn: Connection, retention: timedelta = RETENTION) -> dict[str, int]:
    """Compact every channel below its retention horizon (inside db.write); rows dropped per channel."""
    cutoff = clock.now_text(-retention)
    dropped: dict[str, int] = {}
    for code in feed.all_feeds(conn):
        head = feed.head(conn, code)
        assert head is not None
        # The horizon: the oldest change still young enough to keep, or the head when every change is older.
        young = conn.execute(select(func.min(catalog_change.c.seq)).where(
            catalog_change.c.channel == code, catalog_change.c.created_at >= cutoff)).scalar_one_or_none()
        below = int(young) if young is not None else head.head_seq
        dropped[code] = feed.compact(conn, code, below) if below > head.min_seq else 0
    return dropped


def _hashes(bodies: Iterable[str | None]) -> set[str]:
    found: set[str] = set()
    for body in bodies:
        if body:  # a rollout's previous_body is NULL for a first publish
            found.update(_SHA256_IN_JSON.findall(body))
    return found


def referenced_blobs(conn: Connection) -> set[str]:
    referenced: set[str] = set()
    # A rollout's bodies too: a roll-back brings its previous version's images back.
    for column in (style.c.body, draft_revision.c.body, catalog_change.c.body, channel_entity.c.body,
                   rollout.c.body, rollout.c.previous_body):
        referenced |= _hashes(conn.execute(select(column)).scalars())
    return referenced


def unreferenced_rows(conn: Connection, grace: timedelta = BLOB_GRACE) -> list[str]:
    """Drop the rows of blobs nothing names that are older than the grace period (inside db.write); their
    hashes, for the caller to delete from the store after the commit."""
    cutoff = clock.now_text(-grace)
    old = set(conn.execute(select(blob.c.sha256).where(blob.c.created_at < cutoff)).scalars())
    doomed = sorted(old - referenced_blobs(conn))
    for start in range(0, len(doomed), 500):
        conn.execute(delete(blob).where(blob.c.sha256.in_(doomed[start:start + 500])))
    return doomed


def run(engine: Engine, blobs: BlobStore, *, retention: timedelta = RETENTION, grace: timedelta = BLOB_GRACE,
        interval: timedelta | None = None, capture_store: BlobStore | None = None,
        capture_retention: timedelta = CAPTURE_RETENTION) -> MaintenanceResult:
    """One maintenance pass; with `interval`, only when no process ran one within it. With `capture_store`,
    consented captures older than `capture_retention` (the chain's age, HQ config) are deleted too."""
    with db.write(engine) as conn:
        last = meta.get(conn, LAST_RUN_KEY)
        if interval is not None and last is not None and last > clock.now_text(-interval):
            return MaintenanceResult(False, {}, [])
        meta.put(conn, LAST_RUN_KEY, clock.now_text())
        dropped = compact_channels(conn, retention)
        doomed = unreferenced_rows(conn, grace)
    for sha256 in doomed:  # after the commit: a file without a row is only garbage, a row without a file a 404
        blobs.delete(sha256)
    expired = captures.expire(engine, capture_store, capture_retention) if capture_store is not None else []
    return MaintenanceResult(True, dropped, doomed, expired)


class Scheduler:
    """A daemon thread that, every `tick`, widens the rollouts whose canary period passed without failures
    (rollout_actions.auto_widen) and runs `run(..., interval=INTERVAL)`; a failed pass is retried at the next tick
    (the database may be restarting), never fatal to serving."""

    def __init__(self, engine: Engine, blobs: BlobStore, tick: timedelta = timedelta(hours=1), *,
                 canary_period: timedelta = rollout_actions.DEFAULT_CANARY_PERIOD,
                 capture_store: BlobStore | None = None, capture_retention: timedelta = CAPTURE_RETENTION) -> None:
        self.engine, self.blobs, self.tick, self.canary_period = engine, blobs, tick, canary_period
        self.capture_store, self.capture_retention = capture_store, capture_retention
        self.stopped = threading.Event()
        self.last_error: str | None = None
        self.thread = threading.Thread(target=self._loop, name="nm-hq-maintenance", daemon=True)

    def start(self) -> Scheduler:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(10)

    def _loop(self) -> None:
        while not self.stopped.is_set():
            try:
                rollout_actions.auto_widen(self.engine, self.canary_period)
                run(self.engine, self.blobs, interval=INTERVAL, capture_store=self.capture_store,
                    capture_retention=self.capture_retention)
                self.last_error = None
            except Exception as exc:  # logged by the caller's status; the next tick tries again
                self.last_error = f"{type(exc).__name__}: {exc}"
            self.stopped.wait(self.tick.total_seconds())
