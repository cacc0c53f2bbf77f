"""Per-task-type hooks that write in the engine's own transactions (ARCHITECTURE.md §7, §14).

A business domain that must stay exactly in step with a task's fate — the credit ledger pays for a generation
and is settled when it ends — registers hooks for that task type (`TaskEngine.register_hooks`). The engine
calls them on the connection and inside the transaction that changes the task, so the two writes commit or
vanish together, whatever process is killed when:

- `task_did_finish(conn, end)`: the row has just become SUCCESS, DEAD or CANCELED (a worker's outcome, the
  lease sweep, an operator's cancel of a queued task);
- `task_will_replay(conn, task_id, now_ms)`: a dead letter is about to run again; raising refuses the replay
  (nothing is written).

Task types without hooks pay nothing: the engine looks the type up in a dict and moves on. The submit side is
the caller's: `TaskEngine.submit(..., on_insert=...)` runs in the insert's transaction, and raising there
undoes the insert.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from nailmirror_desktop.core.tasks.models import TaskStatus

OnInsert = Callable[[sqlite3.Connection, int], None]  # (the insert's connection, the new task's id)


@dataclass(frozen=True)
class TaskEnd:
    """How a task ended. `was_running`: an attempt was under way (its request may have reached a provider);
    False for a task canceled while queued. `result_json` is the handler's result (SUCCESS only)."""

    task_id: int
    task_type: str
    status: TaskStatus
    at_ms: int
    was_running: bool
    result_json: str | None = None
    error_code: str | None = None
    error_message: str | None = None


class TaskHooks(Protocol):
    def task_did_finish(self, conn: sqlite3.Connection, end: TaskEnd) -> None: ...

    def task_will_replay(self, conn: sqlite3.Connection, task_id: int, now_ms: int) -> None: ...
