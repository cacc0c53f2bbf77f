"""The task engine's SQL: one function per verb, each statement a plain string (ARCHITECTURE.md §7).

Every function takes a connection in autocommit mode (core/db.py); a write of more than one statement runs
inside `write_transaction` (BEGIN IMMEDIATE … COMMIT). Times are UTC epoch milliseconds.

The rules kept here:
- a claim is one conditional UPDATE: a row is claimed only if that UPDATE changed it;
- every later write to a claimed row is guarded by `status = 'PROCESSING' AND version = ?`, so a worker whose
  lease was taken away cannot overwrite the new owner's state;
- a row is unfinished exactly while `finished_at IS NULL` (a CHECK in the schema); the partial indexes are
  written on that condition and the queries repeat it so the planner uses them. Finished rows are in no index
  a claim reads, so they never slow one down.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.tasks.models import task_no_from_id as task_no_from_id


def task_id_from_no(task_no: str) -> int | None:
    """task_no is 'T' + the id in 16 hex digits (models.task_no_from_id); anything else names no task."""
    if len(task_no) != 17 or task_no[0] != "T":
        return None
    try:
        return int(task_no[1:], 16)
    except ValueError:
        return None


# --- submit ---------------------------------------------------------------------------------------------------

FIND_UNFINISHED_BY_KEY = """
SELECT * FROM task INDEXED BY task_idempotency
WHERE request_source = ? AND request_source_id = ? AND task_type = ? AND request_source_id IS NOT NULL
  AND finished_at IS NULL
"""

# Backpressure: "is there a limit-th unfinished row from this source?", read from the claim index (which also
# carries request_source) as the row at OFFSET limit - 1: SQLite skips the rows before it and stops there.
# All sources first: that walk only steps the index, and below the limit in total no source can be over it,
# which settles the common case. Otherwise the same walk for the one source, which reads each entry's source.
NTH_UNFINISHED = "SELECT 1 FROM task INDEXED BY task_active WHERE finished_at IS NULL LIMIT 1 OFFSET ?"
NTH_UNFINISHED_OF_SOURCE = """
SELECT 1 FROM task INDEXED BY task_active WHERE finished_at IS NULL AND request_source = ? LIMIT 1 OFFSET ?
"""

INSERT_TASK = """
INSERT INTO task (task_type, biz_type, biz_id, priority, scheduled_time, available_at, max_attempts,
                  request_payload, provider, request_source, request_source_id, created_at, updated_at)
VALUES (:task_type, :biz_type, :biz_id, :priority, :scheduled_time, :scheduled_time, :max_attempts,
        :request_payload, :provider, :request_source, :request_source_id, :now, :now)
"""


class Backlogged(Exception):
    """The request source already has its limit of unfinished tasks (nothing was written)."""


def submit(conn: sqlite3.Connection, values: dict[str, Any], pending_limit: int | None,
           on_insert: Callable[[sqlite3.Connection, int], None] | None = None) -> int | sqlite3.Row:
    """Insert a task (`values`: INSERT_TASK's parameters) after its checks, in one transaction, which holds the
    write lock from its start, so nothing can slip in between check and insert, in this process or another.
    Returns the new row's id, or the unfinished task with the same key (a row; nothing written, `on_insert` not
    called); raises Backlogged when the request source already has `pending_limit` unfinished tasks.
    `on_insert(conn, id)` writes the caller's rows in the same transaction; whatever it raises undoes the insert."""
    with write_transaction(conn):
        if values["request_source_id"] is not None:
            existing: sqlite3.Row | None = conn.execute(FIND_UNFINISHED_BY_KEY, (
                values["request_source"], values["request_source_id"], values["task_type"])).fetchone()
            if existing is not None:
                return existing
        if pending_limit is not None and backlog_reaches(conn, values["request_source"], pending_limit):
            raise Backlogged(values["request_source"])
        task_id = conn.execute(INSERT_TASK, values).lastrowid
        assert task_id is not None
        if on_insert is not None:
            on_insert(conn, task_id)
        return task_id


def backlog_reaches(conn: sqlite3.Connection, request_source: str, limit: int) -> bool:
    """Whether `request_source` has `limit` unfinished tasks or more."""
    if conn.execute(NTH_UNFINISHED, (limit - 1,)).fetchone() is None:
        return False
    return conn.execute(NTH_UNFINISHED_OF_SOURCE, (request_source, limit - 1)).fetchone() is not None


BACKLOG = "SELECT count(*) FROM task INDEXED BY task_active WHERE finished_at IS NULL AND request_source = ?"


def backlog(conn: sqlite3.Connection, request_source: str) -> int:
    """Unfinished tasks from one request source (what backpressure limits)."""
    return int(conn.execute(BACKLOG, (request_source,)).fetchone()[0])


def backlog_by_source(conn: sqlite3.Connection) -> dict[str, int]:
    rows = conn.execute("""SELECT request_source, count(*) FROM task INDEXED BY task_active
                           WHERE finished_at IS NULL GROUP BY request_source""")
    return {row[0]: row[1] for row in rows}


# --- claim ----------------------------------------------------------------------------------------------------

# The inner SELECT walks the partial index `task_active` in claim order (priority, due time, age) and takes the
# first row it may: rows of other types or of blocked providers are skipped, never sorted. The outer WHERE repeats
# the claimable condition, so of two claimers racing for one row only the first changes it. The two lists are
# filled with one `?` per value (`in_list`); SQLite accepts an empty one.
CLAIM = """
UPDATE task
SET status = 'PROCESSING', worker_id = ?, heartbeat_at = ?, updated_at = ?, started_at = coalesce(started_at, ?),
    attempt_count = attempt_count + 1, version = version + 1
WHERE id = (SELECT id FROM task
            WHERE finished_at IS NULL AND status <> 'PROCESSING' AND available_at <= ?
              AND task_type IN ({task_types})
              AND (provider IS NULL OR provider NOT IN ({blocked_providers}))
            ORDER BY priority DESC, available_at, id
            LIMIT 1)
  AND finished_at IS NULL AND status <> 'PROCESSING'
RETURNING id, task_type, version, attempt_count, provider, request_payload
"""


def in_list(values: Sequence[object]) -> str:
    """The inside of `IN (…)` for binding `values`: one `?` each."""
    return ", ".join("?" * len(values))


def claim_statement(worker_id: str, now_ms: int, task_types: Sequence[str],
                    blocked_providers: Sequence[str] = ()) -> tuple[str, tuple[Any, ...]]:
    """CLAIM for these lists, and its parameters."""
    sql = CLAIM.format(task_types=in_list(task_types), blocked_providers=in_list(blocked_providers))
    return sql, (worker_id, now_ms, now_ms, now_ms, now_ms, *task_types, *blocked_providers)


def claim(conn: sqlite3.Connection, worker_id: str, now_ms: int, task_types: Sequence[str],
          blocked_providers: Sequence[str] = ()) -> sqlite3.Row | None:
    """Claim the best due row of one of `task_types` whose provider is not blocked: (id, task_type, version,
    attempt_count, provider, request_payload) as claimed, or None."""
    if not task_types:
        return None
    sql, params = claim_statement(worker_id, now_ms, task_types, blocked_providers)
    row: sqlite3.Row | None = conn.execute(sql, params).fetchone()
    return row


def next_due_ms(conn: sqlite3.Connection, task_types: Sequence[str]) -> int | None:
    """When the next queued row of one of `task_types` falls due (it may be now or past), or None."""
    due: int | None = conn.execute(
        f"""SELECT min(available_at) FROM task
            WHERE finished_at IS NULL AND status <> 'PROCESSING' AND task_type IN ({in_list(task_types)})""",
        tuple(task_types)).fetchone()[0]
    return due


def unfinished_count(conn: sqlite3.Connection, task_types: Sequence[str]) -> int:
    return int(conn.execute(
        f"SELECT count(*) FROM task WHERE finished_at IS NULL AND task_type IN ({in_list(task_types)})",
        tuple(task_types)).fetchone()[0])


# --- while running (each guarded: False once the lease is lost) -----------------------------------------------

HEARTBEAT = "UPDATE task SET heartbeat_at = ? WHERE id = ? AND status = 'PROCESSING' AND version = ?"


def heartbeat_task(conn: sqlite3.Connection, task_id: int, version: int, now_ms: int) -> bool:
    return conn.execute(HEARTBEAT, (now_ms, task_id, version)).rowcount == 1


def heartbeat_many(conn: sqlite3.Connection, leases: Sequence[tuple[int, int]], now_ms: int) -> None:
    """Renew several leases, given as (id, version), in one transaction."""
    with write_transaction(conn):
        conn.executemany(HEARTBEAT, [(now_ms, task_id, version) for task_id, version in leases])


def set_progress(conn: sqlite3.Connection, task_id: int, version: int, fraction: float, note: str | None,
                 now_ms: int) -> bool:
    cur = conn.execute(
        """UPDATE task SET progress = ?, progress_note = ?, heartbeat_at = ?, updated_at = ?
           WHERE id = ? AND status = 'PROCESSING' AND version = ?""",
        (fraction, note, now_ms, now_ms, task_id, version))
    return cur.rowcount == 1


def set_provider_task_id(conn: sqlite3.Connection, task_id: int, version: int, provider_task_id: str | None,
                         now_ms: int) -> bool:
    """Record (or, with None, clear) the provider's job id on a row this worker holds."""
    cur = conn.execute(
        """UPDATE task SET provider_task_id = ?, heartbeat_at = ?, updated_at = ?
           WHERE id = ? AND status = 'PROCESSING' AND version = ?""",
        (provider_task_id, now_ms, now_ms, task_id, version))
    return cur.rowcount == 1


def set_request_sent(conn: sqlite3.Connection, task_id: int, version: int, now_ms: int) -> bool:
    """Mark a row this worker holds: a paid request is about to leave (cleared with the attempt's outcome)."""
    cur = conn.execute(
        """UPDATE task SET request_sent_at = ?, heartbeat_at = ?, updated_at = ?
           WHERE id = ? AND status = 'PROCESSING' AND version = ?""",
        (now_ms, now_ms, now_ms, task_id, version))
    return cur.rowcount == 1


def set_biz_id(conn: sqlite3.Connection, task_id: int, version: int, biz_id: str, now_ms: int) -> bool:
    """Link a row this worker holds to the business row its work created (the task's biz_type names the table)."""
    cur = conn.execute(
        """UPDATE task SET biz_id = ?, heartbeat_at = ?, updated_at = ?
           WHERE id = ? AND status = 'PROCESSING' AND version = ?""",
        (biz_id, now_ms, now_ms, task_id, version))
    return cur.rowcount == 1


def is_cancel_requested(conn: sqlite3.Connection, task_id: int) -> bool:
    row = conn.execute("SELECT cancel_requested FROM task WHERE id = ?", (task_id,)).fetchone()
    return bool(row and row[0])


# --- finishing an attempt -------------------------------------------------------------------------------------

COMPLETE = """
UPDATE task
SET status = 'SUCCESS', result_payload = ?, progress = 1.0, finished_at = ?, updated_at = ?,
    next_retry_time = NULL, request_sent_at = NULL, version = version + 1
WHERE id = ? AND status = 'PROCESSING' AND version = ?
"""


def complete(conn: sqlite3.Connection, task_id: int, version: int, result_json: str | None, now_ms: int) -> bool:
    return conn.execute(COMPLETE, (result_json, now_ms, now_ms, task_id, version)).rowcount == 1


RECORD_FAILURE = """
UPDATE task
SET status = :status,
    available_at = coalesce(:retry_at, available_at),
    next_retry_time = :retry_at,
    attempt_count = attempt_count - :give_back,
    rate_limited_count = rate_limited_count + :rate_limited,
    provider_task_id = CASE WHEN :clear_provider THEN NULL ELSE provider_task_id END,
    request_sent_at = NULL,
    last_error_class = :error_class, last_error_code = :error_code, last_error_message = :error_message,
    dead_letter_state = CASE WHEN :status = 'DEAD' THEN 'OPEN' ELSE NULL END,
    finished_at = CASE WHEN :status IN ('DEAD', 'CANCELED') THEN :now ELSE NULL END,
    worker_id = NULL, updated_at = :now, version = version + 1
WHERE id = :id AND status = 'PROCESSING' AND version = :version
"""

INSERT_EVENT = """
INSERT INTO task_event (task_id, at, kind, attempt, error_class, error_code, error_message, worker_id)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
"""

Event = tuple[int, int, str, int, str | None, str | None, str | None, str | None]  # INSERT_EVENT's parameters


def record_failure(conn: sqlite3.Connection, values: dict[str, Any], event: Event) -> bool:
    """Move a claimed row to FAILED/DEAD/CANCELED and append the history entry, atomically."""
    with write_transaction(conn):
        if conn.execute(RECORD_FAILURE, values).rowcount != 1:
            return False
        conn.execute(INSERT_EVENT, event)
    return True


def add_event(conn: sqlite3.Connection, event: Event) -> None:
    conn.execute(INSERT_EVENT, event)


def count_events_since_replay(conn: sqlite3.Connection, task_id: int, error_class: str) -> int:
    """Failures of one class in the current run of the task (a replay starts a new run)."""
    return int(conn.execute(
        """SELECT count(*) FROM task_event
           WHERE task_id = ? AND error_class = ?
             AND id > coalesce((SELECT max(id) FROM task_event WHERE task_id = ? AND kind = 'REPLAYED'), 0)""",
        (task_id, error_class, task_id),
    ).fetchone()[0])


# --- recovery -------------------------------------------------------------------------------------------------

_SWEEP = """
UPDATE task
SET status = CASE WHEN cancel_requested THEN 'CANCELED'
                  WHEN attempt_count >= max_attempts THEN 'DEAD'
                  ELSE 'PENDING' END,
    dead_letter_state = CASE WHEN NOT cancel_requested AND attempt_count >= max_attempts THEN 'OPEN' END,
    finished_at = CASE WHEN cancel_requested OR attempt_count >= max_attempts THEN :now END,
    last_error_class = 'TRANSIENT', last_error_code = 'LEASE_EXPIRED',
    last_error_message = 'worker ' || coalesce(worker_id, '?') || :why,
    worker_id = NULL, updated_at = :now, version = version + 1
WHERE id IN (SELECT id FROM task INDEXED BY task_active
             WHERE finished_at IS NULL AND status = 'PROCESSING' AND {which})
RETURNING id, task_type, status, attempt_count
"""
SWEEP_EXPIRED = _SWEEP.format(which="heartbeat_at < :cutoff")
SWEEP_OWNER = _SWEEP.format(which="worker_id = :worker")
SILENT = " stopped heart-beating"
GONE = " is gone: its process ended"

OTHER_OWNERS = """
SELECT DISTINCT worker_id FROM task INDEXED BY task_active
WHERE finished_at IS NULL AND status = 'PROCESSING' AND worker_id IS NOT NULL AND worker_id != ?
"""


def sweep_expired(conn: sqlite3.Connection, cutoff_ms: int, now_ms: int) -> list[sqlite3.Row]:
    """Return expired leases to PENDING (the attempt stays counted; out of attempts → DEAD)."""
    with write_transaction(conn):
        rows = conn.execute(SWEEP_EXPIRED, {"cutoff": cutoff_ms, "now": now_ms, "why": SILENT}).fetchall()
        _add_sweep_events(conn, rows, now_ms, "lease expired without a heartbeat")
    return rows


def other_owners(conn: sqlite3.Connection, worker_id: str) -> list[str]:
    """The workers other than `worker_id` that hold a lease now."""
    return [row[0] for row in conn.execute(OTHER_OWNERS, (worker_id,))]


def sweep_owner(conn: sqlite3.Connection, worker_id: str, now_ms: int) -> list[sqlite3.Row]:
    """Return every lease of a worker whose process is gone to PENDING at once (as an expired lease)."""
    with write_transaction(conn):
        rows = conn.execute(SWEEP_OWNER, {"worker": worker_id, "now": now_ms, "why": GONE}).fetchall()
        _add_sweep_events(conn, rows, now_ms, f"worker {worker_id}{GONE}"[:200])
    return rows


def _add_sweep_events(conn: sqlite3.Connection, rows: list[sqlite3.Row], now_ms: int, message: str) -> None:
    conn.executemany(INSERT_EVENT, [
        (row["id"], now_ms, "LEASE_EXPIRED", row["attempt_count"], "TRANSIENT", "LEASE_EXPIRED", message, None)
        for row in rows
    ])


# --- operator actions -----------------------------------------------------------------------------------------


def cancel(conn: sqlite3.Connection, task_id: int, now_ms: int) -> str | None:
    """Cancel a queued task at once; ask a running one to stop. Returns the resulting status, or None."""
    with write_transaction(conn):
        row = conn.execute(
            """UPDATE task SET status = 'CANCELED', finished_at = ?, updated_at = ?, version = version + 1
               WHERE id = ? AND finished_at IS NULL AND status <> 'PROCESSING' RETURNING status, attempt_count""",
            (now_ms, now_ms, task_id),
        ).fetchone()
        if row is None:
            row = conn.execute(
                """UPDATE task SET cancel_requested = 1, updated_at = ?
                   WHERE id = ? AND status = 'PROCESSING' RETURNING status, attempt_count""",
                (now_ms, task_id),
            ).fetchone()
        if row is None:
            return None
        kind = "CANCELED" if row["status"] == "CANCELED" else "CANCEL_REQUESTED"
        conn.execute(INSERT_EVENT, (task_id, now_ms, kind, row["attempt_count"], None, None, None, None))
        status: str = row["status"]
        return status


class DuplicateUnfinished(Exception):
    """A replay would make a second unfinished task with the same idempotency key."""


def replay(conn: sqlite3.Connection, task_id: int, now_ms: int, max_attempts: int | None) -> sqlite3.Row | None:
    """A dead letter back to PENDING with a fresh attempt budget; the history keeps the earlier attempts.
    Raises DuplicateUnfinished (nothing written) if a newer unfinished task holds the same key."""
    with write_transaction(conn):
        key = conn.execute("SELECT request_source, request_source_id, task_type FROM task WHERE id = ?",
                           (task_id,)).fetchone()
        if key is not None and key[1] is not None and conn.execute(FIND_UNFINISHED_BY_KEY, tuple(key)).fetchone():
            raise DuplicateUnfinished(task_id)
        row: sqlite3.Row | None = conn.execute(
            """UPDATE task
               SET status = 'PENDING', attempt_count = 0, rate_limited_count = 0,
                   max_attempts = coalesce(?, max_attempts), available_at = ?, next_retry_time = NULL,
                   dead_letter_state = NULL, finished_at = NULL, cancel_requested = 0, worker_id = NULL,
                   request_sent_at = NULL, replay_count = replay_count + 1, updated_at = ?, version = version + 1
               WHERE id = ? AND status = 'DEAD' RETURNING *""",
            (max_attempts, now_ms, now_ms, task_id),
        ).fetchone()
        if row is not None:
            conn.execute(INSERT_EVENT, (task_id, now_ms, "REPLAYED", 0, None, None, None, None))
        return row


def set_dead_letter_state(conn: sqlite3.Connection, task_id: int, state: str, now_ms: int, note: str | None) -> bool:
    with write_transaction(conn):
        cur = conn.execute("UPDATE task SET dead_letter_state = ?, updated_at = ? WHERE id = ? AND status = 'DEAD'",
                           (state, now_ms, task_id))
        if cur.rowcount != 1:
            return False
        conn.execute(INSERT_EVENT, (task_id, now_ms, state, 0, None, None, note, None))
    return True


# --- reading --------------------------------------------------------------------------------------------------


def get_by_id(conn: sqlite3.Connection, task_id: int) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute("SELECT * FROM task WHERE id = ?", (task_id,)).fetchone()
    return row


def get_by_no(conn: sqlite3.Connection, task_no: str) -> sqlite3.Row | None:
    task_id = task_id_from_no(task_no)
    return None if task_id is None else get_by_id(conn, task_id)


LISTABLE_COLUMNS = frozenset({
    "status", "task_type", "biz_type", "biz_id", "request_source", "request_source_id", "provider",
    "provider_task_id", "dead_letter_state", "last_error_code",
})


def _where(filters: dict[str, Any]) -> tuple[str, list[Any]]:
    """An operator's filters as a WHERE clause: column = value, or column IN (values) for a list. Columns are
    checked against LISTABLE_COLUMNS; None means "any"."""
    unknown = set(filters) - LISTABLE_COLUMNS
    if unknown:
        raise ValueError(f"cannot filter on {sorted(unknown)}")
    clauses, params = [], []
    for column, value in filters.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple, set, frozenset)):
            values = list(value)
            clauses.append(f"{column} IN ({in_list(values)})")
            params.extend(values)
        else:
            clauses.append(f"{column} = ?")
            params.append(value)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def list_tasks(conn: sqlite3.Connection, filters: dict[str, Any], limit: int | None, offset: int) -> list[sqlite3.Row]:
    where, params = _where(filters)
    sql = f"SELECT * FROM task{where} ORDER BY id DESC"
    if limit is not None:
        sql += " LIMIT ? OFFSET ?"
        params += [limit, offset]
    return conn.execute(sql, params).fetchall()


def count_tasks(conn: sqlite3.Connection, filters: dict[str, Any]) -> int:
    where, params = _where(filters)
    return int(conn.execute(f"SELECT count(*) FROM task{where}", params).fetchone()[0])


def counts_by_type_and_status(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT task_type, status, count(*) AS n FROM task GROUP BY task_type, status ORDER BY task_type, status"
    ).fetchall()


def oldest_claimable_ms(conn: sqlite3.Connection) -> int | None:
    oldest: int | None = conn.execute(
        "SELECT min(created_at) FROM task WHERE finished_at IS NULL AND status <> 'PROCESSING'").fetchone()[0]
    return oldest


def open_dead_letters(conn: sqlite3.Connection) -> int:
    return int(conn.execute(
        "SELECT count(*) FROM task WHERE status = 'DEAD' AND dead_letter_state = 'OPEN'").fetchone()[0])


def events(conn: sqlite3.Connection, task_id: int) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM task_event WHERE task_id = ? ORDER BY id", (task_id,)).fetchall()
