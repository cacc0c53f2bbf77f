"""Task errors and their classes. Handlers raise `TaskError`; the class decides what happens next.

Codes are machine strings (the UI translates them); messages are for logs and the task history.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorClass(StrEnum):
    TRANSIENT = "TRANSIENT"  # network blip, 5xx: retried with backoff
    RATE_LIMITED = "RATE_LIMITED"  # 429: wait Retry-After, no attempt burnt
    CONTENT_REJECTED = "CONTENT_REJECTED"  # moderation: permanent → DEAD
    CONFIG = "CONFIG"  # bad key, no quota: trips the provider breaker, retried after its cool-down
    INVALID_REQUEST = "INVALID_REQUEST"  # our request is wrong: permanent → DEAD
    AMBIGUOUS = "AMBIGUOUS"  # timed out after sending: retried once (billing may double)
    EXPIRED = "EXPIRED"  # provider forgot the job or the result expired: resubmit (provider id cleared)


PERMANENT_CLASSES = frozenset({ErrorClass.CONTENT_REJECTED, ErrorClass.INVALID_REQUEST})


class TaskError(Exception):
    """A classified failure raised by a handler (or by the engine itself)."""

    def __init__(
        self, code: str, message: str, error_class: ErrorClass | str, retry_after_s: float | None = None
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.error_class = ErrorClass(error_class)
        self.retry_after_s = retry_after_s

    @property
    def retryable(self) -> bool:
        return self.error_class not in PERMANENT_CLASSES


class TooManyPendingTasks(TaskError):
    """Backpressure: the request source has too many unfinished tasks. Retryable; nothing was written."""

    def __init__(self, request_source: str, limit: int) -> None:
        super().__init__(
            "TOO_MANY_PENDING_TASKS",
            f"request source {request_source!r} already has {limit} unfinished tasks",
            ErrorClass.RATE_LIMITED,
        )
        self.request_source = request_source
        self.limit = limit


class TaskNotFound(LookupError):
    code = "TASK_NOT_FOUND"


class InvalidTransition(RuntimeError):
    """An operator action that does not apply to the task's current state (e.g. replaying a SUCCESS)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class TaskCancelled(Exception):
    """Raised by a handler (via ctx.raise_if_cancelled) to stop early after a cancel request."""
