"""The durable task engine (DESIGN.md §6): submit, claim, run, retry, dead-letter — on SQLite, without Qt.

Threads: the engine opens one connection per thread (core.db.open_database) for reads, operator actions and
handlers' own writes, plus one shared connection for the hot path (claims and successful outcomes from every
worker thread), whose page cache therefore stays warm. Writes from this process go through one lock, so threads
of one process hand the database over in microseconds instead of meeting in SQLite's busy handler (which sleeps
in milliseconds); other processes still meet there (busy timeout).

Leases: a claimed row records `heartbeat_at`; a background thread renews every lease this engine holds, in
one transaction, every `heartbeat_interval_s`. A row silent for `lease_s` is returned to PENDING (attempt
counted) by the sweep, which claims run every `sweep_interval_s`. Every later write to a claimed row is
guarded by its version, so a worker that lost its lease cannot overwrite the new owner's outcome.

Commits: a submit, a claim and an outcome are each committed before anything depends on them. A worker that
stays busy records one task's outcome and claims the next in the same transaction (execute_and_claim_next):
both are committed before the next handler starts, and nothing is batched across tasks. Each commit writes two
pages in the common case (the row's and the claim index's), as huey's SqliteStorage does, of 1 KiB each
(core/db.py PAGE_SIZE).

Idempotent business writes (the pattern handlers follow): key business rows by `ctx.task.task_no` with a
UNIQUE constraint and insert them with `ON CONFLICT DO NOTHING` (or look them up first). A handler killed
after its side effect runs again after recovery, finds its row, and returns the same result.
"""

from __future__ import annotations

import json
import logging
import os
import random
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from json.encoder import JSONEncoder, c_make_encoder, encode_basestring
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.clock import Clock, SystemClock, from_ms, to_ms
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.tasks import store
from nailmirror_desktop.core.tasks.breaker import BreakerBoard
from nailmirror_desktop.core.tasks.context import TaskContext
from nailmirror_desktop.core.tasks.errors import (
    ErrorClass,
    InvalidTransition,
    TaskCancelled,
    TaskError,
    TaskNotFound,
    TooManyPendingTasks,
)
from nailmirror_desktop.core.tasks.models import (
    Claim,
    DeadLetterState,
    EngineConfig,
    Task,
    TaskEventRecord,
    TaskStatus,
)
from nailmirror_desktop.core.tasks.retry import decide

log = logging.getLogger(__name__)
_PENDING = TaskStatus.PENDING.value
_PROCESSING = TaskStatus.PROCESSING.value
_SUCCESS = TaskStatus.SUCCESS.value
_SUCCESS_STATUS = TaskStatus.SUCCESS
# One encoder for every payload and result: json.dumps / JSONEncoder.encode build a new C encoder on every call
# (~1.9 µs for a small dict; this ~0.6 µs). No circular-reference bookkeeping (it is shared between threads, and
# that state is per call): a cyclic structure ends in RecursionError, turned into ValueError below.
_c_encoder = c_make_encoder(None, JSONEncoder().default, encode_basestring, None, ":", ",", False, False, True) \
    if c_make_encoder is not None else None


def _encode_json(value: Any) -> str:
    if _c_encoder is None or type(value) is not dict:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        return "".join(_c_encoder(value, 0))
    except RecursionError:
        raise ValueError("Circular reference detected") from None

Handler = Callable[[TaskContext], "dict[str, Any] | None"]
StatusListener = Callable[[str, str], None]
ProgressListener = Callable[[str, float, "str | None"], None]


@dataclass(frozen=True)
class _Registration:
    handler: Handler
    concurrency: int
    provider: str | None


class TaskEngine:
    def __init__(
        self,
        db_path: Path | str,
        *,
        clock: Clock | None = None,
        config: EngineConfig | None = None,
        worker_id: str | None = None,
    ) -> None:
        self.db_path = Path(db_path)
        self.clock: Clock = clock or SystemClock()
        self.config = config or EngineConfig()
        # Process id and a random token: the database is local to this machine, so a host name would add nothing but
        # bytes — and every claim writes this into the task row, which then outgrows its 1 KiB page more often
        # (a Windows-style "DESKTOP-XXXXXXX:pid:token" id: 2.95 WAL frames per claim+complete; "pid:token": 2.85).
        self.worker_id = worker_id or f"{os.getpid()}:{secrets.token_hex(3)}"
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        # One lock for this process's writes and for the claim bookkeeping below (_running, _running_by_type,
        # breakers): a busy worker records an outcome, frees its slot and claims the next task under one acquire.
        # (Two locks, taken nested, were ~5% of the engine's own Python time per task.) Re-entrant because a
        # handler's ctx.write_transaction may call back into the engine. Never held while a handler runs.
        self._write_lock = threading.RLock()
        self._handlers: dict[str, _Registration] = {}
        self._running_by_type: dict[str, int] = {}
        self._running: dict[int, Claim] = {}
        # Types at their concurrency limit. Usually empty at claim time (a busy worker frees its slot before it
        # claims again), and then the claim's type list is simply every registered type, kept ready as a tuple.
        self._full_types: set[str] = set()
        self._all_types: tuple[str, ...] = ()
        self._status_listeners: list[StatusListener] = []
        self._progress_listeners: list[ProgressListener] = []
        self._breakers = BreakerBoard(self.config.breaker_cooldown_s, self.config.breaker_cooldown_max_s)
        self._rng = random.Random()
        self._last_sweep_s = float("-inf")
        self._closed = threading.Event()
        self._closing = False  # = self._closed.is_set(), as a plain attribute: read twice per task on the hot path
        self._lease_keeper: threading.Thread | None = None
        self._lease_keeper_running = False
        self._load_task_by_id = self._load_task  # bound once: every claim hands it to its Claim
        self._conn()  # create / migrate the database now, not inside the first worker thread
        # Claims and successful outcomes from every worker thread go through this one connection, used only under
        # self._write_lock. SQLite empties a connection's page cache whenever another connection has committed,
        # so with a connection per worker every claim began by re-reading its pages (4 workers ran at 0.54x huey,
        # whose storage shares one connection the same way).
        self._hot_conn = self._open_connection()
        self._hot_conn.row_factory = None  # plain tuples: claims are read by position (models.Claim)
        # One cursor for all of it: Connection.execute makes (and registers, and frees) a new Cursor on every call,
        # a few µs per task over its four statements. Used only under the write lock, like the connection.
        self._hot_cur = self._hot_conn.cursor()
        self._hot_capture = store.install_claim_capture(self._hot_conn)  # claims without RETURNING (see store)

    # --- set-up -----------------------------------------------------------------------------------------------

    def register_handler(
        self, task_type: str, handler: Handler, *, concurrency: int = 1, provider: str | None = None
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        with self._write_lock:
            self._handlers[task_type] = _Registration(handler, concurrency, provider)
            self._all_types = tuple(self._handlers)
            running = self._running_by_type.setdefault(task_type, 0)
            if running >= concurrency:
                self._full_types.add(task_type)
            else:
                self._full_types.discard(task_type)

    @property
    def task_types(self) -> tuple[str, ...]:
        return self._all_types

    def worker_slots(self) -> int:
        """How many tasks may run at once over all registered types (the sum of their concurrency limits)."""
        return sum(registration.concurrency for registration in self._handlers.values())

    def add_listener(self, listener: StatusListener) -> None:
        """`listener(task_no, status)` after every state change this process commits (any thread)."""
        self._status_listeners.append(listener)

    def remove_listener(self, listener: StatusListener) -> None:
        self._status_listeners.remove(listener)

    def add_progress_listener(self, listener: ProgressListener) -> None:
        """`listener(task_no, fraction, note)` after a handler's progress report is committed (worker thread)."""
        self._progress_listeners.append(listener)

    def remove_progress_listener(self, listener: ProgressListener) -> None:
        self._progress_listeners.remove(listener)

    def close(self) -> None:
        self._closing = True
        self._closed.set()
        keeper = self._lease_keeper
        if keeper is not None and keeper is not threading.current_thread():
            keeper.join(timeout=5)
        with self._connections_lock:
            for conn in self._connections:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._connections.clear()
        self._local = threading.local()

    def __enter__(self) -> TaskEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- submit -----------------------------------------------------------------------------------------------

    def submit(
        self,
        task_type: str,
        payload: dict[str, Any],
        *,
        biz_type: str | None = None,
        biz_id: str | None = None,
        priority: int = 0,
        request_source: str = "kiosk",
        request_source_id: str | None = None,
        max_attempts: int | None = None,
        scheduled_time: datetime | float | None = None,
        provider: str | None = None,
    ) -> Task:
        """Queue a task. A duplicate (same source, source id and type) of an unfinished task returns that task.
        Raises TooManyPendingTasks (nothing written) past the per-source limit, and TaskError DATABASE_BUSY
        (retryable, nothing written) if another process holds the database longer than the busy timeout."""
        if not isinstance(payload, dict):
            raise TypeError("payload must be a dict")
        # The insert drops a row whose NOT NULL / CHECK columns fail (store.submit_statement), so those inputs are
        # checked here, where a bad one is a caller's error, not a refusal.
        if not isinstance(task_type, str) or not isinstance(request_source, str):
            raise TypeError("task_type and request_source must be strings")
        attempts = max_attempts or self.config.default_max_attempts
        if attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if provider is None:
            registration = self._handlers.get(task_type)
            if registration is not None:
                provider = registration.provider
        now_ms = to_ms(self.clock.now())
        params = (
            task_type, biz_type, None if biz_id is None else str(biz_id), int(priority),
            now_ms if scheduled_time is None else to_ms(_epoch_seconds(scheduled_time)), attempts,
            _encode_json(payload), provider, request_source, request_source_id, now_ms,
            self.config.pending_limit_per_source,
        )  # = store.submit_params(...), built inline on this hot path
        cur = self._cursor()
        for _ in range(3):
            try:
                with self._write_lock:
                    new_id = store.insert_task(cur, params)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                # Another process held the write lock past the busy timeout: a retryable refusal, as for
                # backpressure; nothing was written.
                raise TaskError("DATABASE_BUSY", str(exc), ErrorClass.TRANSIENT) from exc
            if new_id is not None:
                task = Task.just_submitted(new_id, params)
                if self._status_listeners:
                    self._notify(task.task_no, _PENDING)
                return task
            conn = self._conn()
            if request_source_id is not None:
                existing = store.find_unfinished_by_key(conn, request_source, request_source_id, task_type)
                if existing is not None:
                    return Task.from_row(existing)
            limit = self.config.pending_limit_per_source
            if limit is not None and store.backlog(conn, request_source) >= limit:
                raise TooManyPendingTasks(request_source, limit)
            # Neither: the duplicate finished between the two statements. Try again.
        raise RuntimeError("could not insert the task after three tries")

    # --- reading ----------------------------------------------------------------------------------------------

    def get(self, task_no: str) -> Task | None:
        row = store.get_by_no(self._conn(), task_no)
        return Task.from_row(row) if row else None

    def list(
        self,
        status: TaskStatus | str | list | None = None,
        task_type: str | None = None,
        *,
        limit: int | None = 100,
        offset: int = 0,
        **filters: Any,
    ) -> list[Task]:
        """Newest first. Extra filters: biz_type, biz_id, request_source, provider, dead_letter_state, …"""
        filters = {"status": _status_filter(status), "task_type": task_type, **filters}
        return [Task.from_row(r) for r in store.list_tasks(self._conn(), filters, limit, offset)]

    def count(self, status: TaskStatus | str | list | None = None, task_type: str | None = None, **filters: Any) -> int:
        filters = {"status": _status_filter(status), "task_type": task_type, **filters}
        return store.count_tasks(self._conn(), filters)

    def dead_letters(
        self, task_type: str | None = None, *, error_code: str | None = None,
        state: DeadLetterState | str | None = DeadLetterState.OPEN, limit: int | None = 100,
    ) -> list[Task]:
        state_value = state.value if isinstance(state, DeadLetterState) else state
        return self.list(TaskStatus.DEAD, task_type, limit=limit, last_error_code=error_code,
                         dead_letter_state=state_value)

    def history(self, task_no: str) -> list[TaskEventRecord]:
        task = self._require(task_no)
        return [
            TaskEventRecord(r["task_no"], from_ms(r["at"]), r["kind"], r["attempt"], r["error_class"],
                            r["error_code"], r["error_message"], r["worker_id"])
            for r in store.events(self._conn(), task.id)
        ]

    def stats(self) -> dict[str, Any]:
        conn = self._conn()
        by_status = {s.value: 0 for s in TaskStatus}
        by_type: dict[str, dict[str, int]] = {}
        for row in store.counts_by_type_and_status(conn):
            by_status[row["status"]] += row["n"]
            by_type.setdefault(row["task_type"], {})[row["status"]] = row["n"]
        oldest = store.oldest_claimable_ms(conn)
        now_ms = to_ms(self.clock.now())
        backlog = store.backlog_by_source(conn)
        return {
            "total": sum(by_status.values()),
            "by_status": by_status,
            "by_type": by_type,
            "open_dead_letters": store.open_dead_letters(conn),
            "oldest_waiting_age_s": None if oldest is None else max(0.0, (now_ms - oldest) / 1000),
            "backlog_by_source": backlog,
            "breakers": self._breakers.snapshot(),
        }

    def breaker_states(self) -> dict[str, dict]:
        return self._breakers.snapshot()

    # --- operator actions -------------------------------------------------------------------------------------

    def cancel(self, task_no: str) -> Task:
        """Queued → CANCELED now; running → cancel requested (the handler may stop early). Finished: refused."""
        task = self._require(task_no)
        with self._write_lock:
            status = store.cancel(self._conn(), task.id, to_ms(self.clock.now()))
        if status is None:
            raise InvalidTransition("NOT_CANCELABLE", f"task {task_no} is {task.status.value}")
        if status == TaskStatus.CANCELED.value:
            self._notify(task_no, status)
        return self._require(task_no)

    def replay(self, task_no: str, *, max_attempts: int | None = None) -> Task:
        """A dead letter runs again with a fresh attempt budget and the same idempotency key."""
        task = self._require(task_no)
        try:
            with self._write_lock:
                row = store.replay(self._conn(), task.id, to_ms(self.clock.now()), max_attempts)
        except store.DuplicateUnfinished as exc:
            raise InvalidTransition("DUPLICATE_UNFINISHED", "an unfinished task with the same key exists") from exc
        if row is None:
            raise InvalidTransition("NOT_A_DEAD_LETTER", f"task {task_no} is {task.status.value}")
        self._notify(task_no, TaskStatus.PENDING.value)
        return Task.from_row(row)

    def ignore(self, task_no: str, note: str | None = None) -> Task:
        return self._set_dead_letter_state(task_no, DeadLetterState.IGNORED, note)

    def resolve(self, task_no: str, note: str | None = None) -> Task:
        return self._set_dead_letter_state(task_no, DeadLetterState.RESOLVED, note)

    def _set_dead_letter_state(self, task_no: str, state: DeadLetterState, note: str | None) -> Task:
        task = self._require(task_no)
        with self._write_lock:
            done = store.set_dead_letter_state(self._conn(), task.id, state.value, to_ms(self.clock.now()), note)
        if not done:
            raise InvalidTransition("NOT_A_DEAD_LETTER", f"task {task_no} is {task.status.value}")
        return self._require(task_no)

    def recover_expired_leases(self) -> int:
        """Return PROCESSING rows silent for longer than the lease to PENDING (attempt counted)."""
        now_s = self.clock.now()
        with self._write_lock:
            rows = store.sweep_expired(self._conn(), to_ms(now_s - self.config.lease_s), to_ms(now_s))
        self._last_sweep_s = now_s
        for row in rows:
            log.warning("task %s lease expired; now %s", row["task_no"], row["status"])
            self._notify(row["task_no"], row["status"])
        return len(rows)

    # --- running (synchronous mode) ---------------------------------------------------------------------------

    def run_due(self, max_tasks: int | None = None) -> int:
        """Claim and run due tasks on the calling thread until none is due (or `max_tasks` ran)."""
        if max_tasks is not None and max_tasks <= 0:
            return 0
        ran = 0
        claim = self.claim_next()
        while claim is not None:
            ran += 1
            if max_tasks is not None and ran >= max_tasks:
                self.execute(claim)
                break
            _, claim = self.execute_and_claim_next(claim)
        return ran

    def run_until_idle(self, timeout_s: float = 30.0) -> int:
        """run_due in a loop, sleeping (on the engine's clock) until the next retry is due, until no task of a
        registered type is waiting or running. Returns the number of attempts run; stops at the timeout."""
        deadline = time.monotonic() + timeout_s
        ran = 0
        while True:
            ran += self.run_due()
            if store.unfinished_count(self._conn(), self.task_types) == 0:
                return ran
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return ran
            self.clock.sleep(min(self.seconds_until_next_work(), remaining))

    def seconds_until_next_work(self) -> float:
        """How long nothing can happen: until the next retry is due or a breaker may be probed (capped)."""
        now_s = self.clock.now()
        wait = self.config.idle_poll_s
        next_due = store.next_due_ms(self._conn(), self.task_types)
        if next_due is not None:
            until_due = next_due / 1000 - now_s
            if until_due > 0:
                wait = min(wait, until_due)
        for reg in self._handlers.values():
            reopens = self._breakers.reopens_at(reg.provider) if reg.provider else None
            if reopens is not None and reopens > now_s:
                wait = min(wait, reopens - now_s)
        return max(0.001, wait)

    # --- claim / execute (used by run_due and by the Qt executor's worker threads) ------------------------------

    def claim_next(self) -> Claim | None:
        """Claim the best due task this engine can run now (priority, due time, age), or None."""
        if self._closing:
            return None
        now_s = self._sweep_if_due()
        with self._write_lock:
            types, blocked = self._claimable_now(now_s)
            row = store.claim_captured(self._hot_cur, self._hot_capture, self.worker_id, to_ms(now_s), types,
                                       blocked)
            claim = None if row is None else self._hold(row, now_s)
        if claim is not None:
            self._announce_claim(claim)
        return claim

    def execute(self, claim: Claim) -> TaskStatus | None:
        """Run the handler for a claimed task and record the outcome. Returns the new status (None: lease lost)."""
        status, _ = self._execute(claim, lambda: False)
        return status

    def execute_and_claim_next(
        self, claim: Claim, more: Callable[[], bool] | None = None
    ) -> tuple[TaskStatus | None, Claim | None]:
        """Run the handler, then record its outcome and claim the next due task (if `more()` allows) in one
        transaction. Durability is unchanged — the outcome is committed before the next handler starts and the
        next claim before it runs — but a worker that keeps busy pays one commit per task instead of two."""
        return self._execute(claim, more or _always)

    def _execute(self, claim: Claim, more: Callable[[], bool]) -> tuple[TaskStatus | None, Claim | None]:
        released = False
        try:
            result_json, error, cancelled = self._run_handler(claim)
            if error is None:
                released = True  # _finish_success frees the slot itself, under the write lock
                return self._finish_success(claim, result_json, more)
            status = self._finish_failure(claim, error, cancelled=cancelled)
        finally:
            if not released:
                with self._write_lock:
                    self._release(claim)
        return status, (self.claim_next() if more() else None)

    def _run_handler(self, claim: Claim) -> tuple[str | None, TaskError | None, bool]:
        """(result JSON, None, False) on success; (None, the classified error, cancelled?) otherwise."""
        if claim.payload is None:
            return None, TaskError("PAYLOAD_CORRUPT", claim.payload_error or "payload unreadable",
                                   ErrorClass.INVALID_REQUEST), False
        registration = self._handlers.get(claim.task_type)
        if registration is None:
            return None, TaskError("NO_HANDLER", f"no handler for {claim.task_type}", ErrorClass.CONFIG), False
        try:
            return _encode_result(registration.handler(TaskContext(self, claim))), None, False
        except TaskError as error:
            return None, error, False
        except TaskCancelled:
            return None, TaskError("CANCELED", "stopped after a cancel request", ErrorClass.TRANSIENT), True
        except Exception as exc:  # noqa: BLE001 — any handler bug becomes a classified, retried failure
            log.exception("handler for %s failed", claim.task_no)
            return None, TaskError("HANDLER_EXCEPTION", f"{type(exc).__name__}: {exc}"[:1000],
                                   ErrorClass.TRANSIENT), False

    def _finish_success(
        self, claim: Claim, result_json: str | None, more: Callable[[], bool]
    ) -> tuple[TaskStatus | None, Claim | None]:
        if claim.provider:
            self._breakers.on_success(claim.provider)
        closed = self._closing
        claim_next = not closed and more()
        now_s = self._sweep_if_due() if claim_next else self.clock.now()
        now_ms = to_ms(now_s)
        # After close() the shared connection is gone; a handler that finishes anyway still records its outcome
        # (on a fresh connection of its own thread) and claims nothing.
        if closed or self._closing:
            conn, claim_next = self._conn().cursor(), False
        else:
            conn = self._hot_cur
        row = next_claim = None
        with self._write_lock:
            self._release(claim)
            types, blocked = self._claimable_now(now_s) if claim_next else ((), ())
            # The outcome and the next claim in one transaction: one commit per task for a busy worker. Both are
            # committed before the next handler starts, and nothing outside this worker depends on the outcome
            # being committed a few microseconds earlier, so durability is that of two commits.
            conn.execute("BEGIN IMMEDIATE")
            try:
                done = store.complete(conn, claim.id, claim.version, result_json, now_ms)
                if types and claim_next:
                    row = store.claim_captured(conn, self._hot_capture, self.worker_id, now_ms, types, blocked)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            if row is not None:
                next_claim = self._hold(row, now_s)
        if not done:
            self._lease_lost(claim, now_ms)
        elif self._status_listeners:
            self._notify(claim.task_no, _SUCCESS)
        if next_claim is not None:
            self._announce_claim(next_claim)
        return (_SUCCESS_STATUS if done else None), next_claim

    # --- in-process bookkeeping (under self._write_lock) --------------------------------------------------------

    def _claimable_now(self, now_s: float) -> tuple[tuple[str, ...], list[str]]:
        """Task types with a free slot, and providers whose breaker forbids a claim now."""
        types = self._all_types
        if self._full_types:
            types = tuple([t for t in types if t not in self._full_types])
        blocked = self._breakers.blocked(now_s) if self._breakers.any_tripped else []
        return types, blocked

    def _hold(self, row: tuple, now_s: float) -> Claim:
        claim = Claim(row, self._load_task_by_id)
        task_type = claim.task_type
        running = self._running_by_type[task_type] + 1
        self._running_by_type[task_type] = running
        if running >= self._handlers[task_type].concurrency:
            self._full_types.add(task_type)
        self._running[claim.id] = claim
        if claim.provider:
            self._breakers.on_claimed(claim.provider, now_s)
        return claim

    def _release(self, claim: Claim) -> None:
        if self._running.pop(claim.id, None) is not None:
            task_type = claim.task_type
            self._running_by_type[task_type] -= 1
            self._full_types.discard(task_type)

    def _announce_claim(self, claim: Claim) -> None:
        if not self._lease_keeper_running:
            self._ensure_lease_keeper()
        if self._status_listeners:
            self._notify(claim.task_no, _PROCESSING)

    def _sweep_if_due(self) -> float:
        now_s = self.clock.now()
        if now_s - self._last_sweep_s >= self.config.sweep_interval_s:
            self.recover_expired_leases()
        return now_s

    def _load_task(self, task_id: int) -> Task:
        row = store.get_by_id(self._conn(), task_id)
        if row is None:
            raise TaskNotFound(store.task_no_from_id(task_id))
        return Task.from_row(row)

    def _finish_failure(self, task: Claim, error: TaskError, *, cancelled: bool = False) -> TaskStatus | None:
        now_s = self.clock.now()
        conn = self._conn()
        not_before = None
        if task.provider and error.error_class is ErrorClass.CONFIG:
            not_before = self._breakers.on_config_error(task.provider, now_s, error.code)
        elif task.provider:
            self._breakers.on_other_outcome(task.provider)
        prior_ambiguous = 0
        if error.error_class is ErrorClass.AMBIGUOUS:
            prior_ambiguous = store.count_events_since_replay(conn, task.id, ErrorClass.AMBIGUOUS.value)
        cancel_requested = cancelled or store.is_cancel_requested(conn, task.id)
        outcome = decide(replace(task.task, cancel_requested=cancel_requested), error, config=self.config, now_s=now_s,
                         rng=self._rng, prior_ambiguous=prior_ambiguous, not_before_s=not_before)
        now_ms = to_ms(now_s)
        values = {
            "status": outcome.status.value,
            "retry_at": None if outcome.retry_at_s is None else to_ms(outcome.retry_at_s),
            "give_back": 0 if outcome.burn_attempt else 1,
            "rate_limited": 1 if error.error_class is ErrorClass.RATE_LIMITED else 0,
            "clear_provider": 1 if outcome.clear_provider_task_id else 0,
            "error_class": error.error_class.value, "error_code": error.code, "error_message": error.message,
            "now": now_ms, "id": task.id, "version": task.version,
        }
        event = (task.id, now_ms, outcome.event_kind, task.attempt_count, error.error_class.value, error.code,
                 error.message, self.worker_id)
        with self._write_lock:
            done = store.record_failure(conn, values, event)
        if not done:
            self._lease_lost(task, now_ms)
            return None
        log.info("task %s %s: %s %s", task.task_no, outcome.status.value, error.code, error.message)
        self._notify(task.task_no, outcome.status.value)
        return outcome.status

    def _lease_lost(self, task: Claim, now_ms: int) -> None:
        # Someone recovered the row while we ran: our outcome is dropped; the new owner's run counts.
        log.warning("task %s: lease lost before the outcome was recorded", task.task_no)
        with self._write_lock:
            store.add_event(self._conn(), (task.id, now_ms, "LEASE_LOST", task.attempt_count, None, "LEASE_LOST",
                                           "outcome dropped: the lease had been recovered", self.worker_id))

    # --- leases -----------------------------------------------------------------------------------------------

    def _guarded_write(self, write: Callable[..., bool], task: Claim, *args: Any) -> bool:
        with self._write_lock:
            return write(self._conn(), task.id, task.version, *args, to_ms(self.clock.now()))

    @property
    def _lease_keeper_alive(self) -> bool:
        return self._lease_keeper is not None and self._lease_keeper.is_alive()

    def _ensure_lease_keeper(self) -> None:
        with self._connections_lock:
            if self._lease_keeper_alive or self._closed.is_set():
                return
            self._lease_keeper = threading.Thread(target=self._keep_leases, name="task-lease-keeper", daemon=True)
            self._lease_keeper_running = True
            self._lease_keeper.start()

    def _keep_leases(self) -> None:
        try:
            self._renew_leases_until_closed()
        finally:
            self._lease_keeper_running = False  # read on every claim, where Thread.is_alive() would be too slow

    def _renew_leases_until_closed(self) -> None:
        while not self._closed.wait(self.config.heartbeat_interval_s):
            with self._write_lock:
                leases = [(claim.id, claim.version) for claim in self._running.values()]
            if not leases:
                continue
            try:
                with self._write_lock:
                    store.heartbeat_many(self._conn(), leases, to_ms(self.clock.now()))
            except sqlite3.Error:
                log.exception("heartbeat failed; will retry")

    # --- plumbing ---------------------------------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection (reads, operator actions, handlers' own writes)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._open_connection()
        return conn

    def _cursor(self) -> sqlite3.Cursor:
        """A reusable cursor on this thread's connection (for submit: saves creating one per statement)."""
        cur = getattr(self._local, "cur", None)
        if cur is None:
            cur = self._local.cur = self._conn().cursor()
        return cur

    def _open_connection(self) -> sqlite3.Connection:
        conn = open_database(self.db_path, check_same_thread=False)
        # 8 MB page cache (SQLite's default is 2 MB): a busy queue's hot pages stay in memory. huey's
        # SqliteStorage uses the same figure.
        conn.execute(f"PRAGMA cache_size = -{self.config.cache_kib}")
        with self._connections_lock:
            self._connections.append(conn)
        return conn

    def _require(self, task_no: str) -> Task:
        task = self.get(task_no)
        if task is None:
            raise TaskNotFound(task_no)
        return task

    def _notify(self, task_no: str, status: str) -> None:
        for listener in list(self._status_listeners):
            try:
                listener(task_no, status)
            except Exception:  # noqa: BLE001 — a broken listener must not break the engine
                log.exception("task listener failed")

    def _notify_progress(self, task_no: str, fraction: float, note: str | None) -> None:
        for listener in list(self._progress_listeners):
            try:
                listener(task_no, fraction, note)
            except Exception:  # noqa: BLE001
                log.exception("progress listener failed")


def _always() -> bool:
    return True


def _epoch_seconds(moment: datetime | float) -> float:
    if isinstance(moment, datetime):
        if moment.tzinfo is None:
            raise ValueError("scheduled_time must be timezone-aware (UTC)")
        return moment.timestamp()
    return float(moment)


def _encode_result(result: Any) -> str | None:
    if result is None:
        return None
    if not isinstance(result, dict):
        raise TaskError("RESULT_NOT_A_DICT", f"handler returned {type(result).__name__}", ErrorClass.INVALID_REQUEST)
    try:
        return _encode_json(result)
    except (TypeError, ValueError) as exc:
        raise TaskError("RESULT_NOT_JSON", str(exc), ErrorClass.INVALID_REQUEST) from exc


def _status_filter(status: Any) -> Any:
    if status is None:
        return None
    if isinstance(status, (list, tuple, set, frozenset)):
        return [TaskStatus(s).value for s in status]
    return TaskStatus(status).value
