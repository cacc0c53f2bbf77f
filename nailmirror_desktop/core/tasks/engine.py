"""The durable task engine (ARCHITECTURE.md §7): submit, claim, run, retry, dead-letter — on SQLite, without Qt.

States: PENDING → PROCESSING → SUCCESS | FAILED (retry scheduled, claimed again when due) | CANCELED | DEAD
(a dead letter, which an operator may replay, ignore or resolve). store.py holds the SQL of each step.

Threads: the engine opens one connection per thread (core.db.open_database) for everything that thread does:
claims, outcomes, reads, operator actions and handlers' own writes. Writes from this process go through one
lock, so its threads hand the database over in microseconds instead of meeting in SQLite's busy handler (which
sleeps in milliseconds); other processes still meet there (busy timeout). "Busy" and "full" are told apart by
SQLite's result codes (core.db.is_busy, outcomes.is_storage_full), never by the wording of a message.

Leases: a claimed row records `heartbeat_at`; a background thread renews every lease this engine holds, in
one transaction, every `heartbeat_interval_s`. A row silent for `lease_s` is returned to PENDING (attempt
counted) by the sweep, which claims run every `sweep_interval_s` (and the first claim of an engine at once).
The sweep also returns at once every lease of a worker whose process is provably gone — its owner lock is free
(owners.py) — so a restarted kiosk resumes its work without waiting out the dead process's leases; a live
owner's leases keep the time rules. Every later write to a claimed row is guarded by its version, so a worker
that lost its lease cannot overwrite the new owner's outcome.

Commits: a submit, a claim and an outcome are each committed, in its own transaction, before anything depends
on them; nothing is batched across tasks.

A full disk (outcomes.py, WaitingOutcomes): an outcome the disk has no room for is kept in memory, its task
still held (slot taken, lease renewed), and written with backoff until space returns; meanwhile nothing new is
claimed and `storage_full` says so. A submit on a full disk raises TaskError STORAGE_FULL (retryable, nothing written).

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
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.clock import Clock, SystemClock, to_ms
from nailmirror_desktop.core.db import is_busy, open_database, write_transaction
from nailmirror_desktop.core.tasks import owners, store
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
from nailmirror_desktop.core.tasks.hooks import OnInsert, TaskEnd, TaskHooks
from nailmirror_desktop.core.tasks.models import Claim, DeadLetterState, EngineConfig, Task, TaskEventRecord, TaskStatus
from nailmirror_desktop.core.tasks.outcomes import STORAGE_FULL, WaitingOutcome, WaitingOutcomes, is_storage_full
from nailmirror_desktop.core.tasks.retry import decide

log = logging.getLogger(__name__)

Handler = Callable[[TaskContext], "dict[str, Any] | None"]
StatusListener = Callable[[str, str], None]
ProgressListener = Callable[[str, float, "str | None"], None]
StatusFilter = TaskStatus | str | list[TaskStatus | str] | None


@dataclass(frozen=True)
class _Registration:
    handler: Handler
    concurrency: int
    provider: str | None


class TaskEngine:
    def __init__(self, db_path: Path | str, *, clock: Clock | None = None, config: EngineConfig | None = None,
                 worker_id: str | None = None,
                 on_connect: Callable[[sqlite3.Connection], None] | None = None) -> None:
        """`on_connect(conn)` runs on each connection the engine opens (one per thread), after its settings."""
        self.db_path = Path(db_path)
        self._on_connect = on_connect
        self.clock: Clock = clock or SystemClock()
        self.config = config or EngineConfig()
        # The database is local to this machine: process id and a random token name a worker uniquely.
        self.worker_id = worker_id or f"{os.getpid()}:{secrets.token_hex(3)}"
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        # This process's writes, and the bookkeeping of running tasks (_running, _running_by_type, breakers).
        # Re-entrant: a handler's ctx.write_transaction may call back into the engine. Never held while a
        # handler runs.
        self._write_lock = threading.RLock()
        self._handlers: dict[str, _Registration] = {}
        self._hooks: dict[str, TaskHooks] = {}  # hooks.py: writes in the transactions that end or replay a task
        self._running: dict[int, Claim] = {}
        self._running_by_type: Counter[str] = Counter()
        self._status_listeners: list[StatusListener] = []
        self._progress_listeners: list[ProgressListener] = []
        self._breakers = BreakerBoard(self.config.breaker_cooldown_s, self.config.breaker_cooldown_max_s)
        self._rng = random.Random()
        self._last_sweep_s = float("-inf")
        self._closed = threading.Event()
        self._lease_keeper: threading.Thread | None = None
        # Outcomes the disk refused, oldest first, and when to try them again (under _write_lock).
        self._waiting = WaitingOutcomes(self.config.storage_retry_base_s, self.config.storage_retry_max_s)
        self._backoff = self._waiting.backoff
        self._conn()  # create / migrate the database now, not inside the first worker thread
        # Held while this engine lives: when its process dies, other engines reclaim its leases at once.
        self._owner_lock = owners.OwnerLock(self.db_path, self.worker_id)

    # --- set-up -----------------------------------------------------------------------------------------------

    def register_handler(self, task_type: str, handler: Handler, *, concurrency: int = 1,
                         provider: str | None = None) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        with self._write_lock:
            self._handlers[task_type] = _Registration(handler, concurrency, provider)

    def register_hooks(self, task_type: str, hooks: TaskHooks) -> None:
        """Have `hooks` write in the transaction that ends (or replays) every task of `task_type` (hooks.py).
        Independent of the handler: an engine that only manages tasks (a CLI cancel) still settles them."""
        with self._write_lock:
            self._hooks[task_type] = hooks

    def hooks_for(self, task_type: str) -> TaskHooks | None:
        return self._hooks.get(task_type)

    @property
    def task_types(self) -> tuple[str, ...]:
        return tuple(self._handlers)

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

    @property
    def storage_full(self) -> bool:
        """True from a write this engine could not make for lack of space (disk full, or SQLite's page cap)
        until one goes through again; meanwhile finished tasks' outcomes wait in memory (`stats()`)."""
        return self._backoff.storage_full

    def close(self) -> None:
        if self._waiting:
            with suppress(sqlite3.Error):
                self._write_waiting_outcomes()
            if self._waiting:
                log.warning("closing with %d task outcome(s) not written (no space); those tasks run again once "
                            "their leases expire", len(self._waiting))
        self._closed.set()
        keeper = self._lease_keeper
        if keeper is not None and keeper is not threading.current_thread():
            keeper.join(timeout=5)
        with self._connections_lock:
            for conn in self._connections:
                with suppress(sqlite3.Error):
                    conn.close()
            self._connections.clear()
        self._local = threading.local()
        self._owner_lock.release()

    def __enter__(self) -> TaskEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- submit -----------------------------------------------------------------------------------------------

    def submit(self, task_type: str, payload: dict[str, Any], *, biz_type: str | None = None,
               biz_id: str | int | None = None, priority: int = 0, request_source: str = "kiosk",
               request_source_id: str | None = None, max_attempts: int | None = None,
               scheduled_time: datetime | float | None = None, provider: str | None = None,
               on_insert: OnInsert | None = None) -> Task:
        """Queue a task. A duplicate (same source, source id and type) of an unfinished task returns that task.
        Raises TooManyPendingTasks (nothing written) past the per-source limit, and TaskError DATABASE_BUSY
        (retryable, nothing written) if another process holds the database longer than the busy timeout.
        `on_insert(conn, task_id)` writes the caller's rows in the insert's transaction (not called for a
        duplicate); what it raises propagates and nothing is written (hooks.py)."""
        if not isinstance(payload, dict):
            raise TypeError("payload must be a dict")
        if not isinstance(task_type, str) or not isinstance(request_source, str):
            raise TypeError("task_type and request_source must be strings")
        attempts = max_attempts or self.config.default_max_attempts
        if attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if provider is None and task_type in self._handlers:
            provider = self._handlers[task_type].provider
        now_ms = to_ms(self.clock.now())
        values = {
            "task_type": task_type, "biz_type": biz_type, "biz_id": None if biz_id is None else str(biz_id),
            "priority": int(priority), "max_attempts": attempts, "request_payload": _to_json(payload),
            "scheduled_time": now_ms if scheduled_time is None else to_ms(_epoch_seconds(scheduled_time)),
            "provider": provider, "request_source": request_source, "request_source_id": request_source_id,
            "now": now_ms,
        }
        limit = self.config.pending_limit_per_source
        try:
            with self._write_lock:
                inserted = store.submit(self._conn(), values, limit, on_insert)
        except store.Backlogged:
            raise TooManyPendingTasks(request_source, limit or 0) from None
        except sqlite3.OperationalError as exc:
            if is_storage_full(exc):
                with self._write_lock:
                    self._backoff.failed(self.clock.now(), storage_full=True)
                raise TaskError(STORAGE_FULL, "the disk is full; nothing was written", ErrorClass.TRANSIENT) from exc
            if not is_busy(exc):
                raise
            # Another process held the write lock past the busy timeout: retryable, nothing was written.
            raise TaskError("DATABASE_BUSY", str(exc), ErrorClass.TRANSIENT) from exc
        if self._backoff.failing and not self._waiting:
            with self._write_lock:
                self._space_is_back()
        if not isinstance(inserted, int):
            return Task.from_row(inserted)  # the unfinished task with the same key
        task = Task.submitted(inserted, values)
        self._notify(task.task_no, TaskStatus.PENDING.value)
        return task

    # --- reading ----------------------------------------------------------------------------------------------

    def get(self, task_no: str) -> Task | None:
        row = store.get_by_no(self._conn(), task_no)
        return Task.from_row(row) if row else None

    def list_tasks(self, status: StatusFilter = None, task_type: str | None = None, *, limit: int | None = 100,
                   offset: int = 0, **filters: Any) -> list[Task]:
        """Newest first. Extra filters: biz_type, biz_id, request_source, provider, dead_letter_state, …"""
        filters = {"status": _status_values(status), "task_type": task_type, **filters}
        return [Task.from_row(row) for row in store.list_tasks(self._conn(), filters, limit, offset)]

    def count(self, status: StatusFilter = None, task_type: str | None = None, **filters: Any) -> int:
        filters = {"status": _status_values(status), "task_type": task_type, **filters}
        return store.count_tasks(self._conn(), filters)

    def dead_letters(self, task_type: str | None = None, *, error_code: str | None = None,
                     state: DeadLetterState | str | None = DeadLetterState.OPEN,
                     limit: int | None = 100) -> list[Task]:
        state_value = state.value if isinstance(state, DeadLetterState) else state
        return self.list_tasks(TaskStatus.DEAD, task_type, limit=limit, last_error_code=error_code,
                               dead_letter_state=state_value)

    def history(self, task_no: str) -> list[TaskEventRecord]:
        task = self._require(task_no)
        return [TaskEventRecord.from_row(row) for row in store.events(self._conn(), task.id)]

    def stats(self) -> dict[str, Any]:
        conn = self._conn()
        by_status = {s.value: 0 for s in TaskStatus}
        by_type: dict[str, dict[str, int]] = {}
        for row in store.counts_by_type_and_status(conn):
            by_status[row["status"]] += row["n"]
            by_type.setdefault(row["task_type"], {})[row["status"]] = row["n"]
        oldest = store.oldest_claimable_ms(conn)
        now_ms = to_ms(self.clock.now())
        return {
            "total": sum(by_status.values()),
            "by_status": by_status,
            "by_type": by_type,
            "open_dead_letters": store.open_dead_letters(conn),
            "oldest_waiting_age_s": None if oldest is None else max(0.0, (now_ms - oldest) / 1000),
            "backlog_by_source": store.backlog_by_source(conn),
            "breakers": self._breakers.snapshot(),
            "storage_full": self.storage_full,
            "outcomes_waiting": len(self._waiting),
        }

    def breaker_states(self) -> dict[str, dict[str, Any]]:
        return self._breakers.snapshot()

    # --- operator actions -------------------------------------------------------------------------------------

    def cancel(self, task_no: str) -> Task:
        """Queued → CANCELED now; running → cancel requested (the handler may stop early). Finished: refused."""
        task = self._require(task_no)
        hooks = self._hooks.get(task.task_type)
        with self._write_lock, write_transaction(self._conn()) as conn:
            now_ms = self._now_ms()
            status = store.cancel(conn, task.id, now_ms)
            if hooks is not None and status == TaskStatus.CANCELED.value:
                hooks.task_did_finish(conn, TaskEnd(task.id, task.task_type, TaskStatus.CANCELED, now_ms, False))
        if status is None:
            raise InvalidTransition("NOT_CANCELABLE", f"task {task_no} is {task.status.value}")
        if status == TaskStatus.CANCELED.value:
            self._notify(task_no, status)
        return self._require(task_no)

    def replay(self, task_no: str, *, max_attempts: int | None = None) -> Task:
        """A dead letter runs again with a fresh attempt budget and the same idempotency key."""
        task = self._require(task_no)
        hooks = self._hooks.get(task.task_type)
        try:
            with self._write_lock, write_transaction(self._conn()) as conn:
                now_ms = self._now_ms()
                row = store.replay(conn, task.id, now_ms, max_attempts)
                if row is not None and hooks is not None:
                    hooks.task_will_replay(conn, task.id, now_ms)  # raising refuses the replay: nothing written
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
            done = store.set_dead_letter_state(self._conn(), task.id, state.value, self._now_ms(), note)
        if not done:
            raise InvalidTransition("NOT_A_DEAD_LETTER", f"task {task_no} is {task.status.value}")
        return self._require(task_no)

    def recover_expired_leases(self) -> int:
        """Return to PENDING (attempt counted) the PROCESSING rows silent for longer than the lease, and at once
        those of a worker whose process is provably gone (owners.py)."""
        now_s = self.clock.now()
        now_ms = to_ms(now_s)
        dead = [owner for owner in store.other_owners(self._conn(), self.worker_id)
                if owners.owner_is_dead(self.db_path, owner)]
        with self._write_lock, write_transaction(self._conn()) as conn:
            rows = store.sweep_expired(conn, to_ms(now_s - self.config.lease_s), now_ms)
            for owner in dead:
                rows += store.sweep_owner(conn, owner, now_ms)
            for row in rows:
                hooks = self._hooks.get(row["task_type"])
                if hooks is not None and row["status"] in (TaskStatus.DEAD.value, TaskStatus.CANCELED.value):
                    hooks.task_did_finish(conn, TaskEnd(row["id"], row["task_type"], TaskStatus(row["status"]),
                                                        now_ms, True, None, "LEASE_EXPIRED",
                                                        "the worker stopped heart-beating"))
        self._last_sweep_s = now_s
        for row in rows:
            task_no = store.task_no_from_id(row["id"])
            log.warning("task %s lease recovered; now %s", task_no, row["status"])
            self._notify(task_no, row["status"])
        return len(rows)

    # --- running (synchronous mode) ---------------------------------------------------------------------------

    def run_due(self, max_tasks: int | None = None, *, types: Collection[str] | None = None) -> int:
        """Claim and run due tasks on the calling thread until none is due (or `max_tasks` ran); `types`: only
        tasks of these types."""
        if max_tasks is not None and max_tasks <= 0:
            return 0
        ran = 0
        while max_tasks is None or ran < max_tasks:
            claim = self.claim_next(types=types)
            if claim is None:
                break
            self.execute(claim)
            ran += 1
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
        if next_due is not None and next_due / 1000 > now_s:
            wait = min(wait, next_due / 1000 - now_s)
        if self._backoff.failing:
            wait = min(wait, self._backoff.retry_at_s - now_s)
        for registration in self._handlers.values():
            reopens = self._breakers.reopens_at(registration.provider) if registration.provider else None
            if reopens is not None and reopens > now_s:
                wait = min(wait, reopens - now_s)
        return max(0.001, wait)

    # --- claim / execute (used by run_due and by the Qt executor's worker threads) ------------------------------

    def claim_next(self, *, types: Collection[str] | None = None) -> Claim | None:
        """Claim the best due task this engine can run now (priority, due time, age), or None; `types`: only
        among these types."""
        if self._closed.is_set():
            return None
        # After a failed write: the outcomes owed first, and nothing new until they are in.
        if self._backoff.failing and (self._backoff.blocks(self.clock.now()) or not self._write_waiting_outcomes()):
            return None
        try:
            now_s = self._sweep_if_due()
            with self._write_lock:
                row = self._claim_row(self._conn(), now_s, types)
                claim = None if row is None else self._hold(row, now_s)
                if claim is not None and self._backoff.failing:
                    self._space_is_back()
        except sqlite3.OperationalError as exc:
            if not is_storage_full(exc):
                raise
            with self._write_lock:
                delay_s = self._backoff.failed(self.clock.now(), storage_full=True)
            log.warning("no space to claim tasks; trying again in %.1f s", delay_s)
            return None
        if claim is not None:
            self._announce_claim(claim)
        return claim

    def execute(self, claim: Claim) -> TaskStatus | None:
        """Run the handler for a claimed task and record the outcome. Returns the new status (None: lease lost, or
        the outcome waits for space)."""
        try:
            result_json, error, cancelled = self._run_handler(claim)
            if error is None:
                return self._finish_success(claim, result_json)
            return self._finish_failure(claim, error, cancelled=cancelled)
        except BaseException:
            with self._write_lock:
                self._release(claim)
            raise

    def _run_handler(self, claim: Claim) -> tuple[str | None, TaskError | None, bool]:
        """(result JSON, None, False) on success; (None, the classified error, cancelled?) otherwise."""
        if claim.payload is None:
            return None, TaskError("PAYLOAD_CORRUPT", claim.payload_error or "payload unreadable",
                                   ErrorClass.INVALID_REQUEST), False
        registration = self._handlers.get(claim.task_type)
        if registration is None:
            return None, TaskError("NO_HANDLER", f"no handler for {claim.task_type}", ErrorClass.CONFIG), False
        try:
            return _result_json(registration.handler(TaskContext(self, claim))), None, False
        except TaskError as error:
            return None, error, False
        except TaskCancelled:
            return None, TaskError("CANCELED", "stopped after a cancel request", ErrorClass.TRANSIENT), True
        except Exception as exc:  # noqa: BLE001 — any handler bug becomes a classified, retried failure
            if is_storage_full(exc):  # the handler's own writes met the full disk: retried like any transient
                log.warning("handler for %s: no space left: %s", claim.task_no, exc)
                return None, TaskError(STORAGE_FULL, f"{type(exc).__name__}: {exc}"[:1000],
                                       ErrorClass.TRANSIENT), False
            log.exception("handler for %s failed", claim.task_no)
            return None, TaskError("HANDLER_EXCEPTION", f"{type(exc).__name__}: {exc}"[:1000],
                                   ErrorClass.TRANSIENT), False

    def _finish_success(self, claim: Claim, result_json: str | None) -> TaskStatus | None:
        if claim.provider:
            self._breakers.on_success(claim.provider)
        finished_ms = to_ms(self.clock.now())
        hooks = self._hooks.get(claim.task_type)

        def write(conn: sqlite3.Connection) -> bool:
            completed = store.complete(conn, claim.id, claim.version, result_json, finished_ms)
            if completed and hooks is not None:
                hooks.task_did_finish(conn, TaskEnd(claim.id, claim.task_type, TaskStatus.SUCCESS, finished_ms,
                                                    True, result_json))
            return completed

        with self._write_lock:
            self._release(claim)
            try:
                with write_transaction(self._conn()) as conn:
                    done = write(conn)
            except sqlite3.OperationalError as exc:
                self._keep_outcome(WaitingOutcome(claim, TaskStatus.SUCCESS, write), exc)
                return None
        self._outcome_written(claim, TaskStatus.SUCCESS if done else None)
        return TaskStatus.SUCCESS if done else None

    def _finish_failure(self, claim: Claim, error: TaskError, *, cancelled: bool) -> TaskStatus | None:
        now_s = self.clock.now()
        conn = self._conn()
        task = self._require(claim.task_no)  # as claimed (this worker holds it), and whether a cancel came since
        not_before = None
        if claim.provider and error.error_class is ErrorClass.CONFIG:
            not_before = self._breakers.on_config_error(claim.provider, now_s, error.code)
        elif claim.provider:
            self._breakers.on_other_outcome(claim.provider)
        prior_ambiguous = 0
        if error.error_class is ErrorClass.AMBIGUOUS:
            prior_ambiguous = store.count_events_since_replay(conn, claim.id, ErrorClass.AMBIGUOUS.value)
        if cancelled:
            task = replace(task, cancel_requested=True)
        outcome = decide(task, error, config=self.config, now_s=now_s, rng=self._rng,
                         prior_ambiguous=prior_ambiguous, not_before_s=not_before)
        now_ms = to_ms(now_s)
        values = {
            "status": outcome.status.value,
            "retry_at": None if outcome.retry_at_s is None else to_ms(outcome.retry_at_s),
            "give_back": 0 if outcome.burn_attempt else 1,
            "rate_limited": 1 if error.error_class is ErrorClass.RATE_LIMITED else 0,
            "clear_provider": 1 if outcome.clear_provider_task_id else 0,
            "error_class": error.error_class.value, "error_code": error.code, "error_message": error.message,
            "now": now_ms, "id": claim.id, "version": claim.version,
        }
        event = (claim.id, now_ms, outcome.event_kind, claim.attempt_count, error.error_class.value, error.code,
                 error.message, self.worker_id)
        hooks = self._hooks.get(claim.task_type) if outcome.status.is_terminal else None

        def write(c: sqlite3.Connection) -> bool:
            if hooks is None:
                return store.record_failure(c, values, event)
            with write_transaction(c):
                recorded = store.record_failure(c, values, event)
                if recorded:
                    hooks.task_did_finish(c, TaskEnd(claim.id, claim.task_type, outcome.status, now_ms, True, None,
                                                     error.code, error.message))
                return recorded

        with self._write_lock:
            self._release(claim)
            try:
                done = write(conn)
            except sqlite3.OperationalError as exc:
                self._keep_outcome(WaitingOutcome(claim, outcome.status, write), exc)
                return None
        if done:
            log.info("task %s %s: %s %s", claim.task_no, outcome.status.value, error.code, error.message)
        self._outcome_written(claim, outcome.status if done else None)
        return outcome.status if done else None

    # --- outcomes the disk had no room for (outcomes.py) ----------------------------------------------------------

    def _keep_outcome(self, outcome: WaitingOutcome, exc: sqlite3.OperationalError) -> None:
        """Under _write_lock, after the outcome's write failed: hold the task again and keep the outcome, to be
        written with backoff (claim_next). Errors other than a full disk or a busy database are re-raised."""
        delay_s = self._waiting.keep(outcome, exc, self.clock.now())
        self._running[outcome.claim.id] = outcome.claim  # the lease keeper renews it while the outcome waits
        self._running_by_type[outcome.claim.task_type] += 1
        log.warning("task %s: its %s outcome could not be written (%s); kept, trying again in %.1f s",
                    outcome.claim.task_no, outcome.status.value, exc, delay_s)

    def _write_waiting_outcomes(self) -> bool:
        """Write the outcomes kept for lack of space, oldest first; True when none is left waiting."""
        with self._write_lock:
            written = self._waiting.write(self._conn(), self.clock.now())
            for outcome, _ in written:
                self._release(outcome.claim)
            if written and not self._waiting:  # a write went through: there is space again
                self._space_is_back(len(written))
        for outcome, done in written:
            self._outcome_written(outcome.claim, outcome.status if done else None)
        return not self._waiting

    def _space_is_back(self, written: int = 0) -> None:
        if self._backoff.succeeded():
            log.warning("storage has space again; %d waiting task outcome(s) written", written)

    def _outcome_written(self, claim: Claim, status: TaskStatus | None) -> None:
        if status is None:
            self._lease_lost(claim)
        else:
            self._notify(claim.task_no, status.value)

    def _lease_lost(self, claim: Claim) -> None:
        # Someone recovered the row while we ran: our outcome is dropped; the new owner's run counts.
        log.warning("task %s: lease lost before the outcome was recorded", claim.task_no)
        try:
            with self._write_lock:
                store.add_event(self._conn(), (claim.id, self._now_ms(), "LEASE_LOST", claim.attempt_count, None,
                                               "LEASE_LOST", "outcome dropped: the lease had been recovered",
                                               self.worker_id))
        except sqlite3.OperationalError as exc:  # history only: the outcome itself was settled by the guard
            log.warning("task %s: the LEASE_LOST event could not be written: %s", claim.task_no, exc)

    # --- running tasks: slots, breakers, leases (under self._write_lock) ----------------------------------------

    def _claim_row(self, conn: sqlite3.Connection, now_s: float,
                   only: Collection[str] | None = None) -> sqlite3.Row | None:
        """Claim on `conn` among the types with a free slot (of `only`, when given) and the providers whose
        breaker allows it."""
        types = [t for t, reg in self._handlers.items()
                 if self._running_by_type[t] < reg.concurrency and (only is None or t in only)]
        return store.claim(conn, self.worker_id, to_ms(now_s), types, self._breakers.blocked(now_s))

    def _hold(self, row: sqlite3.Row, now_s: float) -> Claim:
        """Take up a slot for a claimed (and committed) row."""
        claim = Claim.from_row(row)
        self._running[claim.id] = claim
        self._running_by_type[claim.task_type] += 1
        if claim.provider:
            self._breakers.on_claimed(claim.provider, now_s)
        return claim

    def _release(self, claim: Claim) -> None:
        if self._running.pop(claim.id, None) is not None:
            self._running_by_type[claim.task_type] -= 1

    def _announce_claim(self, claim: Claim) -> None:
        self._ensure_lease_keeper()
        self._notify(claim.task_no, TaskStatus.PROCESSING.value)

    def _sweep_if_due(self) -> float:
        now_s = self.clock.now()
        if now_s - self._last_sweep_s >= self.config.sweep_interval_s:
            self.recover_expired_leases()
        return now_s

    def _ensure_lease_keeper(self) -> None:
        if self._lease_keeper is not None:
            return
        with self._connections_lock:
            if self._lease_keeper is None and not self._closed.is_set():
                self._lease_keeper = threading.Thread(target=self._keep_leases, name="task-lease-keeper", daemon=True)
                self._lease_keeper.start()

    def _keep_leases(self) -> None:
        while not self._closed.wait(self.config.heartbeat_interval_s):
            with self._write_lock:
                leases = [(claim.id, claim.version) for claim in self._running.values()]
            if not leases:
                continue
            try:
                with self._write_lock:
                    store.heartbeat_many(self._conn(), leases, self._now_ms())
            except Exception as exc:  # noqa: BLE001 — the keeper must outlive a failed heartbeat
                if is_storage_full(exc):
                    log.warning("heartbeat failed, no space left; will retry")
                else:
                    log.exception("heartbeat failed; will retry")

    # --- what a TaskContext calls (context.LeaseWriter) -------------------------------------------------------

    def connection(self) -> sqlite3.Connection:
        """This thread's connection (reads, operator actions, handlers' own writes)."""
        return self._conn()

    @contextmanager
    def write_transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT on this thread's connection (nests), under the engine's write lock."""
        with self._write_lock, write_transaction(self._conn()) as conn:
            yield conn

    def renew_lease(self, task: Claim) -> bool:
        with self._write_lock:
            return store.heartbeat_task(self._conn(), task.id, task.version, self._now_ms())

    def save_progress(self, task: Claim, fraction: float, note: str | None) -> bool:
        with self._write_lock:
            held = store.set_progress(self._conn(), task.id, task.version, fraction, note, self._now_ms())
        if held:
            for listener in list(self._progress_listeners):
                try:
                    listener(task.task_no, fraction, note)
                except Exception:  # noqa: BLE001 — a broken listener must not break the engine
                    log.exception("progress listener failed")
        return held

    def save_request_sent(self, task: Claim) -> bool:
        with self._write_lock:
            return store.set_request_sent(self._conn(), task.id, task.version, self._now_ms())

    def save_provider_task_id(self, task: Claim, provider_task_id: str | None) -> bool:
        with self._write_lock:
            return store.set_provider_task_id(self._conn(), task.id, task.version, provider_task_id, self._now_ms())

    def save_biz_id(self, task: Claim, biz_id: str) -> bool:
        with self._write_lock:
            return store.set_biz_id(self._conn(), task.id, task.version, biz_id, self._now_ms())

    def is_cancel_requested(self, task: Claim) -> bool:
        return store.is_cancel_requested(self._conn(), task.id)

    # --- plumbing ---------------------------------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._open_connection()
        return conn

    def _open_connection(self) -> sqlite3.Connection:
        conn = open_database(self.db_path, check_same_thread=False)
        # A larger page cache than SQLite's 2 MB default, so a busy queue's pages stay in memory (huey's
        # SqliteStorage uses the same figure).
        conn.execute(f"PRAGMA cache_size = -{self.config.cache_kib}")
        if self._on_connect is not None:
            self._on_connect(conn)
        with self._connections_lock:
            self._connections.append(conn)
        return conn

    def _now_ms(self) -> int:
        return to_ms(self.clock.now())

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


def _epoch_seconds(moment: datetime | float) -> float:
    if isinstance(moment, datetime):
        if moment.tzinfo is None:
            raise ValueError("scheduled_time must be timezone-aware (UTC)")
        return moment.timestamp()
    return float(moment)


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # compact, and Chinese prompts stay readable


def _to_json(value: dict[str, Any]) -> str:
    return _JSON.encode(value)


def _result_json(result: object) -> str | None:
    if result is None:
        return None
    if not isinstance(result, dict):
        raise TaskError("RESULT_NOT_A_DICT", f"handler returned {type(result).__name__}", ErrorClass.INVALID_REQUEST)
    try:
        return _to_json(result)
    except (TypeError, ValueError) as exc:
        raise TaskError("RESULT_NOT_JSON", str(exc), ErrorClass.INVALID_REQUEST) from exc


def _status_values(status: StatusFilter) -> str | list[str] | None:
    if status is None:
        return None
    if isinstance(status, (list, tuple, set, frozenset)):
        return [TaskStatus(s).value for s in status]
    return TaskStatus(status).value
