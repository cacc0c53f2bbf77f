"""What a handler sees while it runs: its task and payload, and the calls that report back — heartbeat,
progress, the provider's job id (committed at once), cancel checks — plus the engine's connection for the
handler's own idempotent writes."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any, Protocol

from nailmirror_desktop.core.tasks.errors import ErrorClass, TaskCancelled, TaskError
from nailmirror_desktop.core.tasks.models import Claim, Task


class LeaseWriter(Protocol):
    """What a TaskContext needs from the engine (TaskEngine implements it). The writes apply to a task this
    worker holds, each committed at once, and return False once its lease was lost (recovered by someone else)."""

    def get(self, task_no: str) -> Task | None: ...

    def connection(self) -> sqlite3.Connection:
        """This thread's connection to the engine database."""
        ...

    def write_transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT on connection() (nests), holding the engine's in-process write lock."""
        ...

    def renew_lease(self, task: Claim) -> bool: ...

    def save_progress(self, task: Claim, fraction: float, note: str | None) -> bool: ...

    def save_provider_task_id(self, task: Claim, provider_task_id: str | None) -> bool: ...

    def save_biz_id(self, task: Claim, biz_id: str) -> bool: ...

    def save_request_sent(self, task: Claim) -> bool: ...

    def is_cancel_requested(self, task: Claim) -> bool: ...


class TaskContext:
    """What a handler sees: its task, its payload, and the calls that report back while it runs."""

    __slots__ = ("_engine", "_claim", "_task", "payload")

    def __init__(self, engine: LeaseWriter, claim: Claim) -> None:
        self._engine = engine
        self._claim = claim
        self._task: Task | None = None  # read on first use: quick handlers usually need only the payload
        self.payload: dict[str, Any] = claim.payload or {}

    @property
    def task(self) -> Task:
        """The task's row as this run sees it: as claimed (attempt_count counts this attempt), plus what this run
        has saved (progress, provider job id, business link)."""
        if self._task is None:
            task = self._engine.get(self._claim.task_no)
            if task is None:
                raise TaskError("LEASE_LOST", "the task row is gone", ErrorClass.TRANSIENT)
            self._task = task
        return self._task

    @property
    def task_no(self) -> str:
        return self._claim.task_no

    @property
    def connection(self) -> sqlite3.Connection:
        """This thread's connection to the engine database (for the handler's own idempotent writes)."""
        return self._engine.connection()

    def write_transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT on `connection` (nests, see core.db.write_transaction), holding the engine's
        in-process write lock."""
        return self._engine.write_transaction()

    def heartbeat(self) -> bool:
        """Renew this task's lease now. False: the lease was lost."""
        return self._engine.renew_lease(self._claim)

    def report_progress(self, fraction: float, note: str | None = None) -> bool:
        fraction = min(1.0, max(0.0, float(fraction)))
        held = self._engine.save_progress(self._claim, fraction, note)
        if held:
            self._update(progress=fraction, progress_note=note)
        return held

    def set_provider_task_id(self, provider_task_id: str) -> None:
        """Commit the provider's job id before doing anything else, so a restart resumes instead of resubmitting."""
        if not self._engine.save_provider_task_id(self._claim, provider_task_id):
            raise TaskError("LEASE_LOST", "task lease lost before the provider task id was saved", ErrorClass.TRANSIENT)
        self._update(provider_task_id=provider_task_id)

    def clear_provider_task_id(self) -> None:
        """Forget the provider's job id, committed at once: the provider task ended without a usable result, so
        the next attempt (or a replay) must submit anew instead of polling it again."""
        if not self._engine.save_provider_task_id(self._claim, None):
            raise TaskError("LEASE_LOST", "task lease lost before the provider task id was cleared",
                            ErrorClass.TRANSIENT)
        self._update(provider_task_id=None)

    def mark_request_sent(self) -> None:
        """Commit that a paid request is about to leave the machine, before it is sent: if this attempt dies
        before it records an outcome, no later attempt sends it again (it polls, or ends OUTCOME_UNKNOWN)."""
        if not self._engine.save_request_sent(self._claim):
            raise TaskError("LEASE_LOST", "task lease lost before the request was marked sent", ErrorClass.TRANSIENT)

    def link_business(self, biz_id: str | int) -> None:
        """Record which business row this task's work created (biz_type was given at submit), committed at once.
        For tasks whose business row only exists once the work is done, such as a generated style."""
        if not self._engine.save_biz_id(self._claim, str(biz_id)):
            raise TaskError("LEASE_LOST", "task lease lost before the business link was saved", ErrorClass.TRANSIENT)
        self._update(biz_id=str(biz_id))

    def is_cancelled(self) -> bool:
        return self._engine.is_cancel_requested(self._claim)

    def raise_if_cancelled(self) -> None:
        if self.is_cancelled():
            raise TaskCancelled(self._claim.task_no)

    def _update(self, **saved: Any) -> None:
        """Keep a row already read in step with what this run has just committed (one not read yet will be
        read with it)."""
        if self._task is not None:
            self._task = replace(self._task, **saved)
