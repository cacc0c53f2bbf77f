"""The durable task engine (DESIGN.md §6): SQLite-backed, Qt-free. See engine.py for the threading model."""

from nailmirror_desktop.core.tasks.engine import TaskContext, TaskEngine
from nailmirror_desktop.core.tasks.errors import (
    ErrorClass,
    InvalidTransition,
    TaskCancelled,
    TaskError,
    TaskNotFound,
    TooManyPendingTasks,
)
from nailmirror_desktop.core.tasks.models import (
    TERMINAL_STATUSES,
    UNFINISHED_STATUSES,
    DeadLetterState,
    EngineConfig,
    Task,
    TaskEventRecord,
    TaskStatus,
)

__all__ = [
    "DeadLetterState", "EngineConfig", "ErrorClass", "InvalidTransition", "TERMINAL_STATUSES", "Task",
    "TaskCancelled", "TaskContext", "TaskEngine", "TaskError", "TaskEventRecord", "TaskNotFound", "TaskStatus",
    "TooManyPendingTasks", "UNFINISHED_STATUSES",
]
