"""This kiosk in HQ's fleet (issue #25 §7, §8): the health its sync report carries, and the fixes an HQ operator
asks of it, done at the sync that brings them (cycle.py) and answered in the report.

Health: versions (the app's, the nail model's), sync state and cursor, open dead letters by task type, free disk,
and the camera's state and frame rate. The last two are the running kiosk's (the UI process): it records them in
kiosk_health at most every few seconds (`record_health`), so a cycle run by `nailmirror sync now` reports them
too, with the time they were recorded.

Fixes (each HQ request id done once, whatever the number of hellos that carry it):
- retry_downloads      every FAILED blob queued again now (the cycle's handler queues the fetches)
- resync               the catalog replaced from HQ's snapshot, as after a 410
- replay_dead_letters  open dead letters replayed through the task engine, except generation tasks and any task
                       that ended OUTCOME_UNKNOWN: a provider may have billed those, so they stay for staff here
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.model_version import model_version
from nailmirror_desktop.core.sync import apply
from nailmirror_desktop.core.tasks.errors import InvalidTransition, TaskError
from nailmirror_desktop.core.tasks.models import Task
from nailmirror_protocol.shapes import REPORT_RESULTS_MAX, FleetRequest, FleetResult, SyncReport

log = logging.getLogger(__name__)

_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
HEALTH_EVERY_S = 5.0  # the running kiosk writes kiosk_health at most this often
# Never replayed from HQ: a generation may have been paid for, and OUTCOME_UNKNOWN means nobody knows whether the
# provider did the work (and billed it). Staff at the kiosk decide (`nailmirror tasks replay`).
STAFF_ONLY_TYPES = ("STYLE_GENERATION",)
STAFF_ONLY_ERRORS = ("OUTCOME_UNKNOWN",)
DEAD_LETTERS_AT_ONCE = 500


@dataclass(frozen=True)
class KioskFacts:
    """What the kiosk's build knows of itself, for the report: handed in by app/ (core reads no package data)."""

    app_version: str = ""
    model_version: str | None = None  # core/model_version.py: nail_segmenter-<its sha256's first 12 hex>


def kiosk_facts(app_version: str) -> KioskFacts:
    """The nail model is named as everywhere else (core/model_version.py: captures, `sync status`, the report)."""
    return KioskFacts(app_version, model_version())


@runtime_checkable
class DeadLetterDesk(Protocol):
    """The task engine's dead-letter operations (TaskEngine), as a fleet request uses them."""

    def dead_letters(self, task_type: str | None = None, *, limit: int | None = 100) -> list[Task]: ...

    def replay(self, task_no: str) -> Task: ...


# --- health ------------------------------------------------------------------------------------------------------

def record_health(conn: sqlite3.Connection, camera_state: str, fps: float | None) -> None:
    """The running kiosk's camera state (LIVE, DEMO, LOST, OFF) and the mirror's frame rate."""
    with write_transaction(conn):
        conn.execute(f"INSERT INTO kiosk_health (id, camera_state, fps, updated_at) VALUES (1, ?, ?, {_NOW})"
                     " ON CONFLICT (id) DO UPDATE SET camera_state = excluded.camera_state, fps = excluded.fps,"
                     " updated_at = excluded.updated_at", (camera_state[:40], None if fps is None else round(fps, 1)))


def dead_letters_by_type(conn: sqlite3.Connection) -> dict[str, int]:
    return {str(r[0]): int(r[1]) for r in conn.execute(
        "SELECT task_type, COUNT(*) FROM task WHERE status = 'DEAD' AND dead_letter_state = 'OPEN'"
        " GROUP BY task_type ORDER BY task_type")}


def disk_free_bytes(conn: sqlite3.Connection) -> int | None:
    """Free space on the disk that holds this database (the data directory), None for an in-memory one."""
    row = conn.execute("PRAGMA database_list").fetchone()
    if not row or not row[2]:
        return None
    try:
        return int(shutil.disk_usage(Path(row[2]).parent).free)
    except OSError:
        return None


def health_fields(conn: sqlite3.Connection) -> dict[str, Any]:
    """The report's health fields this database knows (the cycle adds versions and sync state)."""
    fields: dict[str, Any] = {"dead_letters": dead_letters_by_type(conn)}
    free = disk_free_bytes(conn)
    if free is not None:
        # Rounded to MiB so the report (sent only when it changes) is not sent again for every byte written.
        fields["disk_free_bytes"] = free // 2**20 * 2**20
    row = conn.execute("SELECT camera_state, fps, updated_at FROM kiosk_health WHERE id = 1").fetchone()
    if row is not None:
        fields["camera_state"] = row["camera_state"]
        if row["fps"] is not None:
            fields["fps"] = float(row["fps"])
        fields["health_at"] = row["updated_at"]
    return fields


def lasting_part(report: SyncReport) -> dict[str, Any]:
    """What decides whether a report is sent again: all but the figures that move every few seconds (the
    frame rate, when it was recorded, the exact free space, kept to whole GiB), so a kiosk whose state did not
    change sends nothing, while the moving figures ride along with any report that goes."""
    lasting: dict[str, Any] = {k: v for k, v in report.items() if k not in ("fps", "health_at", "disk_free_bytes")}
    free = report.get("disk_free_bytes")
    if free is not None:
        lasting["disk_free_gib"] = free // 2**30
    return lasting


# --- requests ----------------------------------------------------------------------------------------------------

def take_requests(conn: sqlite3.Connection, requests: list[FleetRequest]) -> list[FleetRequest]:
    """Note HQ's requests; returns those not done yet (a request from an earlier hello that this kiosk did is not
    done again, though HQ keeps sending it until a report answers it)."""
    if not requests:
        return []
    with write_transaction(conn):
        for request in requests:
            conn.execute("INSERT OR IGNORE INTO fleet_request (id, kind) VALUES (?, ?)",
                         (request["id"], request["kind"]))
    done = {r[0] for r in conn.execute("SELECT id FROM fleet_request WHERE outcome IS NOT NULL")}
    return [r for r in requests if r["id"] not in done]


def finish(conn: sqlite3.Connection, request_id: str, outcome: str, detail: str) -> None:
    with write_transaction(conn):
        conn.execute(f"UPDATE fleet_request SET outcome = ?, detail = ?, done_at = {_NOW} WHERE id = ?",
                     (outcome, detail[:300], request_id))
    log.info("fleet request %s: %s %s", request_id, outcome, detail)


def results(conn: sqlite3.Connection, limit: int = REPORT_RESULTS_MAX) -> list[FleetResult]:
    rows = conn.execute("SELECT id, kind, outcome, COALESCE(detail, '') AS detail, done_at FROM fleet_request"
                        " WHERE outcome IS NOT NULL ORDER BY done_at DESC, id LIMIT ?", (limit,)).fetchall()
    return [{"id": r["id"], "kind": r["kind"], "outcome": r["outcome"], "detail": r["detail"],
             "done_at": r["done_at"]} for r in rows]


def retry_downloads(conn: sqlite3.Connection, request_id: str, now_s: float) -> None:
    queued = apply.revive_failed_blobs(conn, now_s, all_due=True)
    finish(conn, request_id, "DONE", f"{queued} failed download(s) queued again")


def replay_dead_letters(conn: sqlite3.Connection, request_id: str, desk: DeadLetterDesk | None) -> None:
    if desk is None:
        finish(conn, request_id, "FAILED", "this sync runs without the task engine; run it in the kiosk")
        return
    replayed = failed = left = 0
    for task in desk.dead_letters(None, limit=DEAD_LETTERS_AT_ONCE):
        if task.task_type in STAFF_ONLY_TYPES or task.last_error_code in STAFF_ONLY_ERRORS:
            left += 1
            continue
        try:
            desk.replay(task.task_no)
            replayed += 1
        except (InvalidTransition, TaskError) as exc:
            failed += 1
            log.info("fleet replay of %s refused: %s", task.task_no, exc)
    detail = f"{replayed} replayed, {left} left for staff (generation or outcome unknown)"
    if failed:
        detail += f", {failed} refused by the task engine"
    finish(conn, request_id, "FAILED" if failed and not replayed else "DONE", detail)


def do_requests(conn: sqlite3.Connection, asked: list[FleetRequest], now_s: float,
                desk: DeadLetterDesk | None) -> None:
    """The requests a cycle does after its feed and inbox (resync is done in their place, by cycle.py)."""
    for request in asked:
        if request["kind"] == "retry_downloads":
            retry_downloads(conn, request["id"], now_s)
        elif request["kind"] == "replay_dead_letters":
            replay_dead_letters(conn, request["id"], desk)
