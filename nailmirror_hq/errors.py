"""HQ's domain error: a protocol error code, an HTTP status, a message; the API and the CLI both render it."""

from __future__ import annotations

from typing import Any

from nailmirror_protocol.errors import ErrorCode


class HQError(Exception):
    def __init__(self, status: int, code: ErrorCode | str, message: str, details: dict[str, Any] | None = None,
                 retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.retry_after = retry_after


def not_found(what: str) -> HQError:
    return HQError(404, ErrorCode.NOT_FOUND, f"no such {what}")
