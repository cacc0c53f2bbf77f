"""The durable task engine (ARCHITECTURE.md §7): SQLite-backed, Qt-free. See engine.py for the threading model."""

from nailmirror_desktop.core.tasks.context import LeaseWriter, TaskContext
from nailmirror_desktop.core.tasks.engine import TaskEngine
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
    Claim,
    DeadLetterState,
    EngineConfig,
    Task,
    TaskEventRecord,
    TaskStatus,
)

__all__ = [
    "Claim", "DeadLetterState", "EngineConfig", "ErrorClass", "InvalidTransition", "LeaseWriter",
    "TERMINAL_STATUSES", "Task", "TaskCancelled", "TaskContext", "TaskEngine", "TaskError", "TaskEventRecord",
    "TaskNotFound", "TaskStatus", "TooManyPendingTasks", "UNFINISHED_STATUSES",
]
