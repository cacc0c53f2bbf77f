"""What a handler sees while it runs: its task and payload, and the calls that report back — heartbeat,
progress, the provider's job id (committed at once), cancel checks — plus the engine's connection for the
handler's own idempotent writes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.tasks import store
from nailmirror_desktop.core.tasks.errors import ErrorClass, TaskCancelled, TaskError
from nailmirror_desktop.core.tasks.models import Claim, Task

if TYPE_CHECKING:
    from nailmirror_desktop.core.tasks.engine import TaskEngine


class TaskContext:
    """What a handler sees: its task, its payload, and the calls that report back while it runs."""

    __slots__ = ("_engine", "_claim", "_provider_task_id", "_cleared_provider_task_id", "payload")  # one per task

    def __init__(self, engine: TaskEngine, claim: Claim) -> None:
        self._engine = engine
        self._claim = claim
        self._provider_task_id: str | None = None
        self._cleared_provider_task_id = False
        self.payload: dict[str, Any] = claim.payload or {}

    @property
    def task(self) -> Task:
        """The task as claimed (attempt_count counts this attempt)."""
        task = self._claim.task
        if self._provider_task_id is not None or self._cleared_provider_task_id:
            task = replace(task, provider_task_id=self._provider_task_id)
        return task

    @property
    def task_no(self) -> str:
        return self._claim.task_no

    @property
    def connection(self) -> sqlite3.Connection:
        """This thread's connection to the engine database (for the handler's own idempotent writes)."""
        return self._engine._conn()

    @contextmanager
    def write_transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT on `connection` (nests, see core.db.write_transaction), holding the engine's
        in-process write lock."""
        with self._engine._write_lock, write_transaction(self.connection) as conn:
            yield conn

    def heartbeat(self) -> bool:
        """Renew this task's lease now. False: the lease was lost (recovered by someone else)."""
        return self._engine._guarded_write(store.heartbeat_task, self._claim)

    def report_progress(self, fraction: float, note: str | None = None) -> bool:
        fraction = min(1.0, max(0.0, float(fraction)))
        held = self._engine._guarded_write(store.set_progress, self._claim, fraction, note)
        if held:
            self._engine._notify_progress(self._claim.task_no, fraction, note)
        return held

    def set_provider_task_id(self, provider_task_id: str) -> None:
        """Commit the provider's job id before doing anything else, so a restart resumes instead of resubmitting."""
        if not self._engine._guarded_write(store.set_provider_task_id, self._claim, provider_task_id):
            raise TaskError("LEASE_LOST", "task lease lost before the provider task id was saved", ErrorClass.TRANSIENT)
        self._provider_task_id = provider_task_id
        self._cleared_provider_task_id = False

    def clear_provider_task_id(self) -> None:
        """Forget the provider's job id, committed at once: the provider task ended without a usable result, so
        the next attempt (or a replay) must submit anew instead of polling it again."""
        if not self._engine._guarded_write(store.set_provider_task_id, self._claim, None):
            raise TaskError("LEASE_LOST", "task lease lost before the provider task id was cleared", ErrorClass.TRANSIENT)
        self._provider_task_id = None
        self._cleared_provider_task_id = True

    def link_business(self, biz_id: str | int) -> None:
        """Record which business row this task's work created (biz_type was given at submit), committed at once.
        For tasks whose business row only exists once the work is done, such as a generated style."""
        if not self._engine._guarded_write(store.set_biz_id, self._claim, str(biz_id)):
            raise TaskError("LEASE_LOST", "task lease lost before the business link was saved", ErrorClass.TRANSIENT)

    def is_cancelled(self) -> bool:
        return store.is_cancel_requested(self._engine._conn(), self._claim.id)

    def raise_if_cancelled(self) -> None:
        if self.is_cancelled():
            raise TaskCancelled(self._claim.task_no)
