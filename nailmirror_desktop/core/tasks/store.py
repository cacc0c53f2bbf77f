"""The task engine's SQL, in one place. Every function takes an open connection (autocommit mode, see
core/db.py) — or a cursor on one, which the engine reuses on its hot paths; multi-statement writes run inside
`BEGIN IMMEDIATE … COMMIT`. Times are UTC epoch milliseconds.

Rules kept here: a claim is one conditional UPDATE (a row counts only if it changed); every later write to a
claimed row is guarded by `status = 'PROCESSING' AND version = ?`, so a worker whose lease was taken away
cannot overwrite the new owner's state.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from functools import lru_cache
from operator import itemgetter
from typing import Any

from nailmirror_desktop.core.db import write_transaction

# Unfinished rows are exactly those with finished_at IS NULL (a CHECK in the schema); the partial indexes are
# written on that condition, and queries repeat it verbatim so the planner can use them.
UNFINISHED = "finished_at IS NULL"
CLAIMABLE = "finished_at IS NULL AND status <> 'PROCESSING'"  # PENDING, or FAILED with a retry scheduled


def task_id_from_no(task_no: str) -> int | None:
    """task_no is 'T' + the id in 16 hex digits (see the schema); anything else names no task."""
    if len(task_no) != 17 or task_no[0] != "T":
        return None
    try:
        return int(task_no[1:], 16)
    except ValueError:
        return None


def task_no_from_id(task_id: int) -> str:
    return f"T{task_id:016x}"


# --- submit ---------------------------------------------------------------------------------------------------

# One statement, in autocommit (so one transaction): the backpressure check, the idempotency check (keyed form
# only) and the insert. A write statement holds SQLite's write lock from its first step, so nothing can slip in
# between check and insert, in this process or another.
#
# Shape: `INSERT OR IGNORE … VALUES (CASE WHEN <checks pass> THEN task_type END, …)`. A failed check leaves
# task_type NULL, which NOT NULL turns into "row ignored": nothing written, rowcount 0 — "duplicate" or "refused",
# the caller tells them apart. (The engine validates every other NOT NULL / CHECK input before it gets here, so
# IGNORE can only ever drop the row for that reason.) The earlier `INSERT … SELECT … WHERE <checks>` form cost
# ~5 µs more per submit: an INSERT whose SELECT reads the target table stages its rows in a temporary table
# first, and a multi-row-capable insert opens a statement journal and probes task_event for the foreign key;
# a single-row VALUES insert does none of that.
#
# Backpressure: "is there a limit-th unfinished row from this source?" — read from the claim index, which a
# submit and a completion write anyway, so it adds no page to any commit. First "is there a limit-th unfinished
# row at all?": that walk only steps the index (~80 CPU instructions an entry), and below the limit in total no
# source can be over it — the common case, where it settles the question. Only otherwise does the per-source
# walk run, which reads each entry's request_source (~540 instructions an entry). Both stop after `limit`
# entries. (An index keyed on request_source would answer in two probes, but it put a third page into every
# submit's and every completion's commit, which cost more than it saved: measured, see the git log.)
#
# Parameters: positional (binding by name costs a lookup per parameter per call), and a None is never bound —
# Python's sqlite3 passes every parameter that is not an exact int/float/str through its adapter lookup, which
# for None fails twice with a formatted AttributeError (~0.45 µs per None, measured). Absent optional values are
# written as NULL literals instead, one cached statement per shape (submit_statement).
_SUBMIT_COLUMNS = (
    "task_type", "biz_type", "biz_id", "priority", "scheduled_time", "available_at", "max_attempts",
    "request_payload", "provider", "request_source", "request_source_id", "created_at", "updated_at",
)
# Which submit_params position fills each column above (scheduled_time fills available_at too, now_ms both times).
_COLUMN_PARAM = (0, 1, 2, 3, 4, 4, 5, 6, 7, 8, 9, 10, 10)
_OPTIONAL = (1, 2, 7, 9, 11)  # biz_type, biz_id, provider, request_source_id, pending limit


@lru_cache(maxsize=64)
def submit_statement(present: tuple[bool, ...]) -> tuple[str, Callable[[tuple], tuple]]:
    """The insert for one shape of submit_params — `present[i]` says whether optional value _OPTIONAL[i] is not
    None — and a function picking that statement's parameters out of submit_params, in order."""
    missing = {index for index, here in zip(_OPTIONAL, present) if not here}
    used = [i for i in range(12) if i not in missing]
    number = {param: n for n, param in enumerate(used, start=1)}  # compact ?N: every bound value is used
    ref = {param: f"?{n}" for param, n in number.items()}
    checks = []  # evaluated left to right, stopping at the first that fails: the one-probe key check first
    if 9 in ref:  # idempotency key
        checks.append(f"""NOT EXISTS (SELECT 1 FROM task INDEXED BY task_idempotency
                        WHERE request_source = {ref[8]} AND request_source_id = {ref[9]} AND task_type = {ref[0]}
                          AND request_source_id IS NOT NULL AND {UNFINISHED})""")
    if 11 in ref:  # backpressure: fewer than `limit` unfinished rows in all, or else from this source
        checks.append(f"""((SELECT 1 FROM task INDEXED BY task_active WHERE finished_at IS NULL
                   LIMIT 1 OFFSET {ref[11]} - 1) IS NULL
                  OR (SELECT 1 FROM task INDEXED BY task_active WHERE finished_at IS NULL AND request_source = {ref[8]}
                      LIMIT 1 OFFSET {ref[11]} - 1) IS NULL)""")
    values = [ref.get(param, "NULL") for param in _COLUMN_PARAM]
    if checks:
        values[0] = f"CASE WHEN {' AND '.join(checks)} THEN {ref[0]} END"
    sql = (f"INSERT OR IGNORE INTO task ({', '.join(_SUBMIT_COLUMNS)})\nVALUES ({', '.join(values)})")
    return sql, itemgetter(*used)


# The fullest shapes, named for the query-plan tests and readers.
INSERT_TASK = submit_statement((True, True, True, False, True))[0]
INSERT_KEYED_TASK = submit_statement((True, True, True, True, True))[0]

FIND_UNFINISHED_BY_KEY = f"""
SELECT * FROM task INDEXED BY task_idempotency
WHERE request_source = ? AND request_source_id = ? AND task_type = ? AND request_source_id IS NOT NULL
  AND {UNFINISHED}
"""


def submit_params(
    task_type: str, biz_type: str | None, biz_id: str | None, priority: int, scheduled_ms: int, max_attempts: int,
    payload_json: str, provider: str | None, request_source: str, request_source_id: str | None, now_ms: int,
    pending_limit: int | None,
) -> tuple:
    """The insert's parameters, in order (see submit_statement)."""
    return (task_type, biz_type, biz_id, priority, scheduled_ms, max_attempts, payload_json, provider,
            request_source, request_source_id, now_ms, pending_limit)


def insert_task(conn: sqlite3.Connection, params: tuple) -> int | None:
    """The new row's id, or None when nothing was inserted (duplicate key or backpressure)."""
    _, biz_type, biz_id, _, _, _, _, provider, _, source_id, _, limit = params
    sql, pick = submit_statement((biz_type is not None, biz_id is not None, provider is not None,
                                  source_id is not None, limit is not None))
    cur = conn.execute(sql, pick(params))
    return cur.lastrowid if cur.rowcount == 1 else None


def find_unfinished_by_key(
    conn: sqlite3.Connection, request_source: str, request_source_id: str, task_type: str
) -> sqlite3.Row | None:
    return conn.execute(FIND_UNFINISHED_BY_KEY, (request_source, request_source_id, task_type)).fetchone()


BACKLOG = f"SELECT count(*) FROM task INDEXED BY task_active WHERE {UNFINISHED} AND request_source = ?"


def backlog(conn: sqlite3.Connection, request_source: str) -> int:
    """Unfinished tasks from one request source (what backpressure limits)."""
    return int(conn.execute(BACKLOG, (request_source,)).fetchone()[0])


def backlog_by_source(conn: sqlite3.Connection) -> dict[str, int]:
    return {row[0]: row[1] for row in conn.execute(
        f"SELECT request_source, count(*) FROM task INDEXED BY task_active WHERE {UNFINISHED} GROUP BY request_source")}


# --- claim ----------------------------------------------------------------------------------------------------


def one_of(column: str, first_param: int, count: int) -> str:
    """`column` equal to one of `count` parameters numbered from ?first_param, as an OR chain. Not an IN list:
    outside an index lookup SQLite builds a temporary table for `x IN (a, b, c)` every time the statement runs —
    in the claim, with three task types registered, that was ~35k more CPU instructions per claim+complete (~143k
    instead of ~108k, callgrind). (A single-value IN is an equality already.)"""
    return "(" + " OR ".join(f"{column} = ?{first_param + i}" for i in range(count)) + ")"


@lru_cache(maxsize=64)
def claim_sql(task_types: tuple[str, ...], blocked_providers: int, captured: bool = False) -> str:
    """The claim for a set of task types, skipping providers whose breaker is open. The inner SELECT walks the
    partial index `task_active` in claim order (priority, due time, age); rows it cannot take are skipped, never
    sorted, and finished rows are not in it at all. Parameters: claim_params.

    `captured`: the same UPDATE, but the claimed row reaches Python through ClaimCapture (see there) instead of
    RETURNING."""
    types = one_of("task_type", 3, len(task_types))
    provider_guard = ""
    if blocked_providers:
        provider_guard = f" AND (provider IS NULL OR NOT {one_of('provider', 3 + len(task_types), blocked_providers)})"
    version = (f"{CAPTURE_FUNCTION}(id, task_type, version, attempt_count, provider, request_payload)" if captured
               else "version + 1")
    returning = "" if captured else "RETURNING id, task_type, version, attempt_count, provider, request_payload"
    return f"""
UPDATE task
SET status = 'PROCESSING', worker_id = ?1, heartbeat_at = ?2, updated_at = ?2,
    started_at = coalesce(started_at, ?2), attempt_count = attempt_count + 1, version = {version}
WHERE id = (SELECT id FROM task
            WHERE {CLAIMABLE} AND available_at <= ?2 AND {types}{provider_guard}
            ORDER BY priority DESC, available_at, id
            LIMIT 1)
  AND {CLAIMABLE}
{returning}"""


def claim_params(worker_id: str, now_ms: int, task_types: tuple[str, ...], blocked_providers: Sequence[str]) -> tuple:
    """claim_sql's parameters, in order: ?1 the worker, ?2 now (bound once rather than four times: ~0.8k fewer CPU
    instructions per claim), then the types and the blocked providers."""
    return (worker_id, now_ms, *task_types, *blocked_providers)


def claim(
    conn: sqlite3.Connection, worker_id: str, now_ms: int, task_types: Sequence[str],
    blocked_providers: Sequence[str] = (),
) -> sqlite3.Row | None:
    """Claim the best due row: (id, task_type, version, attempt_count, provider, request_payload) as claimed,
    or None."""
    if not task_types:
        return None
    types = tuple(task_types)
    sql = claim_sql(types, len(blocked_providers))
    return conn.execute(sql, claim_params(worker_id, now_ms, types, blocked_providers)).fetchone()


# The engine's hot path claims without RETURNING. SQLite runs a RETURNING statement to its end into a temporary
# b-tree it opens and frees per call, then pages the rows back; for one row that was ~36k of the ~124k CPU
# instructions of a claim+complete (callgrind), the largest single cost. Instead the UPDATE's SET passes the
# row's values through a function of ours on its way to `version`: SQLite evaluates SET only for a row the WHERE
# has taken, once, right before writing it, and a statement that fails raises, so what the function saw is the
# claimed row exactly when the statement reports one changed row. It is still the one conditional UPDATE —
# nothing is read before the write decides — and SET sees the row as it was, so version and attempt_count are
# the stored values plus one, as the UPDATE writes them. (The function returns the new version, an integer:
# cheaper for SQLite to take back than a string.)
CAPTURE_FUNCTION = "claimed_row"


class ClaimCapture:
    """Installed on one connection (install_claim_capture); not thread-safe — the engine uses it under its
    write lock."""

    __slots__ = ("row",)

    def __init__(self) -> None:
        self.row: tuple | None = None

    def __call__(self, task_id: int, task_type: str, version: int, attempt_count: int, provider: str | None,
                 payload: str | None) -> int:
        self.row = (task_id, task_type, version + 1, attempt_count + 1, provider, payload)
        return version + 1


def install_claim_capture(conn: sqlite3.Connection) -> ClaimCapture:
    capture = ClaimCapture()
    conn.create_function(CAPTURE_FUNCTION, 6, capture)
    return capture


def claim_captured(
    cur: sqlite3.Cursor | sqlite3.Connection, capture: ClaimCapture, worker_id: str, now_ms: int,
    task_types: tuple[str, ...], blocked_providers: Sequence[str] = (),
) -> tuple | None:
    """claim() on a connection with install_claim_capture: the same row tuple, or None. `task_types` is a tuple
    (the engine keeps one ready)."""
    if not task_types:
        return None
    capture.row = None
    sql = claim_sql(task_types, len(blocked_providers), True)
    if cur.execute(sql, claim_params(worker_id, now_ms, task_types, blocked_providers)).rowcount != 1:
        return None
    return capture.row


def next_due_ms(conn: sqlite3.Connection, task_types: Sequence[str]) -> int | None:
    types = tuple(task_types)
    if not types:
        return None
    row = conn.execute(
        f"SELECT min(available_at) FROM task WHERE {CLAIMABLE} AND {one_of('task_type', 1, len(types))}", types
    ).fetchone()
    return row[0]


def unfinished_count(conn: sqlite3.Connection, task_types: Sequence[str]) -> int:
    types = tuple(task_types)
    if not types:
        return 0
    return int(conn.execute(
        f"SELECT count(*) FROM task WHERE {UNFINISHED} AND {one_of('task_type', 1, len(types))}", types
    ).fetchone()[0])


# --- while running --------------------------------------------------------------------------------------------

_GUARD = "id = ? AND status = 'PROCESSING' AND version = ?"


def heartbeat_task(conn: sqlite3.Connection, task_id: int, version: int, now_ms: int) -> bool:
    cur = conn.execute(f"UPDATE task SET heartbeat_at = ? WHERE {_GUARD}", (now_ms, task_id, version))
    return cur.rowcount == 1


def heartbeat_many(conn: sqlite3.Connection, leases: Sequence[tuple[int, int]], now_ms: int) -> None:
    """Renew several leases, given as (id, version), in one transaction."""
    with write_transaction(conn):
        conn.executemany(f"UPDATE task SET heartbeat_at = ? WHERE {_GUARD}",
                         [(now_ms, task_id, version) for task_id, version in leases])


def set_progress(
    conn: sqlite3.Connection, task_id: int, version: int, fraction: float, note: str | None, now_ms: int
) -> bool:
    cur = conn.execute(
        f"UPDATE task SET progress = ?, progress_note = ?, heartbeat_at = ?, updated_at = ? WHERE {_GUARD}",
        (fraction, note, now_ms, now_ms, task_id, version),
    )
    return cur.rowcount == 1


def set_provider_task_id(
    conn: sqlite3.Connection, task_id: int, version: int, provider_task_id: str | None, now_ms: int
) -> bool:
    """Record (or, with None, clear) the provider's job id on a row this worker holds."""
    cur = conn.execute(
        f"UPDATE task SET provider_task_id = ?, heartbeat_at = ?, updated_at = ? WHERE {_GUARD}",
        (provider_task_id, now_ms, now_ms, task_id, version),
    )
    return cur.rowcount == 1


def set_biz_id(conn: sqlite3.Connection, task_id: int, version: int, biz_id: str, now_ms: int) -> bool:
    """Link a row this worker holds to the business row its work created (the task's biz_type names the table)."""
    cur = conn.execute(
        f"UPDATE task SET biz_id = ?, heartbeat_at = ?, updated_at = ? WHERE {_GUARD}",
        (biz_id, now_ms, now_ms, task_id, version),
    )
    return cur.rowcount == 1


def is_cancel_requested(conn: sqlite3.Connection, task_id: int) -> bool:
    row = conn.execute("SELECT cancel_requested FROM task WHERE id = ?", (task_id,)).fetchone()
    return bool(row and row[0])


# --- finishing an attempt -------------------------------------------------------------------------------------

COMPLETE = f"""
UPDATE task
SET status = 'SUCCESS', result_payload = ?, progress = 1.0, finished_at = ?, updated_at = ?,
    next_retry_time = NULL, version = version + 1
WHERE {_GUARD}
"""


# Without a result: NULL written as a literal, not bound (a bound None costs ~0.45 µs, see submit_statement).
COMPLETE_WITHOUT_RESULT = """
UPDATE task
SET status = 'SUCCESS', result_payload = NULL, progress = 1.0, finished_at = ?1, updated_at = ?1,
    next_retry_time = NULL, version = version + 1
WHERE id = ?2 AND status = 'PROCESSING' AND version = ?3
"""


def complete(conn: sqlite3.Connection, task_id: int, version: int, result_json: str | None, now_ms: int) -> bool:
    if result_json is None:
        return conn.execute(COMPLETE_WITHOUT_RESULT, (now_ms, task_id, version)).rowcount == 1
    return conn.execute(COMPLETE, (result_json, now_ms, now_ms, task_id, version)).rowcount == 1


RECORD_FAILURE = """
UPDATE task
SET status = :status,
    available_at = coalesce(:retry_at, available_at),
    next_retry_time = :retry_at,
    attempt_count = attempt_count - :give_back,
    rate_limited_count = rate_limited_count + :rate_limited,
    provider_task_id = CASE WHEN :clear_provider THEN NULL ELSE provider_task_id END,
    last_error_class = :error_class, last_error_code = :error_code, last_error_message = :error_message,
    dead_letter_state = CASE WHEN :status = 'DEAD' THEN 'OPEN' ELSE NULL END,
    finished_at = CASE WHEN :status = 'DEAD' OR :status = 'CANCELED' THEN :now ELSE NULL END,
    worker_id = NULL, updated_at = :now, version = version + 1
WHERE id = :id AND status = 'PROCESSING' AND version = :version
"""

INSERT_EVENT = """
INSERT INTO task_event (task_id, at, kind, attempt, error_class, error_code, error_message, worker_id)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
"""


def record_failure(conn: sqlite3.Connection, values: dict[str, Any], event: tuple) -> bool:
    """Move a claimed row to FAILED/DEAD/CANCELED and append the history entry, atomically."""
    with write_transaction(conn):
        cur = conn.execute(RECORD_FAILURE, values)
        if cur.rowcount != 1:
            return False
        conn.execute(INSERT_EVENT, event)
    return True


def add_event(conn: sqlite3.Connection, event: tuple) -> None:
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

SWEEP_EXPIRED = """
UPDATE task
SET status = CASE WHEN cancel_requested THEN 'CANCELED'
                  WHEN attempt_count >= max_attempts THEN 'DEAD'
                  ELSE 'PENDING' END,
    dead_letter_state = CASE WHEN NOT cancel_requested AND attempt_count >= max_attempts THEN 'OPEN' END,
    finished_at = CASE WHEN cancel_requested OR attempt_count >= max_attempts THEN :now END,
    last_error_class = 'TRANSIENT', last_error_code = 'LEASE_EXPIRED',
    last_error_message = 'worker ' || coalesce(worker_id, '?') || ' stopped heart-beating',
    worker_id = NULL, updated_at = :now, version = version + 1
WHERE id IN (SELECT id FROM task INDEXED BY task_active
             WHERE finished_at IS NULL AND status = 'PROCESSING' AND heartbeat_at < :cutoff)
RETURNING id, 'T' || printf('%016x', id) AS task_no, status, attempt_count
"""


def sweep_expired(conn: sqlite3.Connection, cutoff_ms: int, now_ms: int) -> list[sqlite3.Row]:
    """Return expired leases to PENDING (the attempt stays counted; out of attempts → DEAD)."""
    with write_transaction(conn):
        rows = conn.execute(SWEEP_EXPIRED, {"cutoff": cutoff_ms, "now": now_ms}).fetchall()
        conn.executemany(INSERT_EVENT, [
            (row["id"], now_ms, "LEASE_EXPIRED", row["attempt_count"], "TRANSIENT", "LEASE_EXPIRED",
             "lease expired without a heartbeat", None)
            for row in rows
        ])
    return rows


# --- operator actions -----------------------------------------------------------------------------------------


def cancel(conn: sqlite3.Connection, task_id: int, now_ms: int) -> str | None:
    """Cancel a queued task at once; ask a running one to stop. Returns the resulting status, or None."""
    with write_transaction(conn):
        row = conn.execute(
            f"""UPDATE task SET status = 'CANCELED', finished_at = ?, updated_at = ?, version = version + 1
                WHERE id = ? AND {CLAIMABLE} RETURNING status, attempt_count""",
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
        return row["status"]


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
        row = conn.execute(
            """UPDATE task
               SET status = 'PENDING', attempt_count = 0, rate_limited_count = 0,
                   max_attempts = coalesce(?, max_attempts), available_at = ?, next_retry_time = NULL,
                   dead_letter_state = NULL, finished_at = NULL, cancel_requested = 0, worker_id = NULL,
                   replay_count = replay_count + 1, updated_at = ?, version = version + 1
               WHERE id = ? AND status = 'DEAD' RETURNING *""",
            (max_attempts, now_ms, now_ms, task_id),
        ).fetchone()
        if row is not None:
            conn.execute(INSERT_EVENT, (task_id, now_ms, "REPLAYED", 0, None, None, None, None))
        return row


def set_dead_letter_state(conn: sqlite3.Connection, task_id: int, state: str, now_ms: int, note: str | None) -> bool:
    with write_transaction(conn):
        cur = conn.execute(
            "UPDATE task SET dead_letter_state = ?, updated_at = ? WHERE id = ? AND status = 'DEAD'",
            (state, now_ms, task_id),
        )
        if cur.rowcount != 1:
            return False
        conn.execute(INSERT_EVENT, (task_id, now_ms, state, 0, None, None, note, None))
    return True


# --- reading --------------------------------------------------------------------------------------------------


def get_by_no(conn: sqlite3.Connection, task_no: str) -> sqlite3.Row | None:
    task_id = task_id_from_no(task_no)
    return None if task_id is None else get_by_id(conn, task_id)


def get_by_id(conn: sqlite3.Connection, task_id: int) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM task WHERE id = ?", (task_id,)).fetchone()


def _filters(filters: dict[str, Any]) -> tuple[str, list[Any]]:
    clauses, params = [], []
    for column, value in filters.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple, set, frozenset)):
            values = list(value)
            clauses.append(f"{column} IN ({', '.join('?' for _ in values)})")
            params.extend(values)
        else:
            clauses.append(f"{column} = ?")
            params.append(value)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


LISTABLE_COLUMNS = frozenset({
    "status", "task_type", "biz_type", "biz_id", "request_source", "request_source_id", "provider",
    "provider_task_id", "dead_letter_state", "last_error_code",
})


def list_tasks(conn: sqlite3.Connection, filters: dict[str, Any], limit: int | None, offset: int) -> list[sqlite3.Row]:
    unknown = set(filters) - LISTABLE_COLUMNS
    if unknown:
        raise ValueError(f"cannot filter on {sorted(unknown)}")
    where, params = _filters(filters)
    sql = f"SELECT * FROM task{where} ORDER BY id DESC"
    if limit is not None:
        sql += " LIMIT ? OFFSET ?"
        params += [limit, offset]
    return conn.execute(sql, params).fetchall()


def count_tasks(conn: sqlite3.Connection, filters: dict[str, Any]) -> int:
    unknown = set(filters) - LISTABLE_COLUMNS
    if unknown:
        raise ValueError(f"cannot filter on {sorted(unknown)}")
    where, params = _filters(filters)
    return int(conn.execute(f"SELECT count(*) FROM task{where}", params).fetchone()[0])


def counts_by_type_and_status(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT task_type, status, count(*) AS n FROM task GROUP BY task_type, status ORDER BY task_type, status"
    ).fetchall()


def oldest_claimable_ms(conn: sqlite3.Connection) -> int | None:
    return conn.execute(f"SELECT min(created_at) FROM task WHERE {CLAIMABLE}").fetchone()[0]


def open_dead_letters(conn: sqlite3.Connection) -> int:
    return int(conn.execute(
        "SELECT count(*) FROM task WHERE status = 'DEAD' AND dead_letter_state = 'OPEN'").fetchone()[0])


def events(conn: sqlite3.Connection, task_id: int) -> list[sqlite3.Row]:
    return conn.execute(
        """SELECT e.*, 'T' || printf('%016x', e.task_id) AS task_no FROM task_event e
           WHERE e.task_id = ? ORDER BY e.id""",
        (task_id,),
    ).fetchall()
