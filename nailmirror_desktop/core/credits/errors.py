"""Why a paid generation or a grant is refused: codes, never words (the UI and the CLI turn codes into text)."""

from __future__ import annotations

from nailmirror_desktop.core.tasks.errors import ErrorClass, TaskError

INSUFFICIENT_CREDITS = "INSUFFICIENT_CREDITS"
DAILY_CAP_REACHED = "DAILY_CAP_REACHED"
SESSION_CAP_REACHED = "SESSION_CAP_REACHED"
REFUSAL_CODES = (INSUFFICIENT_CREDITS, DAILY_CAP_REACHED, SESSION_CAP_REACHED)  # the order they are checked in


class CreditRefused(TaskError):
    """A paid generation that may not start: raised inside the task's insert transaction, so nothing is written.

    A TaskError (class INVALID_REQUEST: asking again does not help) so every front end that already reports a
    refused submit by its code (`nailmirror generate`, the generate panel) reports this one too."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message, ErrorClass.INVALID_REQUEST)


class GrantRejected(ValueError):
    """A grant that cannot be applied (not a positive whole number, no reason, no grant id). `code` for output."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
