"""What a client checks on every answer, so the kiosk and any other client react to HQ the same way.

- `parse_body`: a 2xx body must be a JSON object with "nm": 1; anything else (a captive portal's HTML, a proxy's
  page) raises NotProtocol, which a client treats as a *transient* fault, never as data to apply.
- `classify`: an error answer → what to do (RETRY after a delay, RESET from the snapshot, STOP syncing,
  FIX the request and never resend it unchanged, UPLOAD the missing blobs first).
- `retry_after_s`: the Retry-After header (seconds form) of a 429/503, if any.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from nailmirror_protocol import PROTOCOL_VERSION
from nailmirror_protocol.errors import RESET_REASONS, ErrorCode


class NotProtocol(ValueError):
    """The answer is not a protocol v1 body (HTML, truncated JSON, a body without "nm": 1)."""


def parse_body(raw: bytes, content_type: str | None = None) -> dict[str, Any]:
    if content_type is not None and "json" not in content_type.lower():
        raise NotProtocol(f"content type {content_type!r} is not JSON (a captive portal or proxy?)")
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise NotProtocol("the body is not JSON") from None
    if not isinstance(body, dict) or body.get("nm") != PROTOCOL_VERSION:
        raise NotProtocol('the body has no "nm": 1')
    return body


class Action(StrEnum):
    RETRY = "retry"  # transient: back off (honour Retry-After), the same request may succeed later
    RESET = "reset"  # 410 cursor_expired: fetch the snapshot and apply it as a replace
    STOP = "stop"  # 401 / 403 store_disabled / 426: stop syncing, keep the data, tell staff
    UPLOAD = "upload"  # 422 missing_blobs: upload details.missing, then resend without counting an attempt
    GIVE_UP = "give_up"  # 400 / 403 / 409 / 413 / 415: never resend unchanged (a dead letter, staff see why)


@dataclass(frozen=True)
class Verdict:
    action: Action
    error: str
    reason: str | None = None  # the 410 reset reason, or None


_STOP = {ErrorCode.TOKEN_MISSING, ErrorCode.TOKEN_INVALID, ErrorCode.TOKEN_REVOKED, ErrorCode.UPGRADE_REQUIRED}


def classify(status: int, body: dict[str, Any] | None) -> Verdict:
    error = str((body or {}).get("error") or "")
    if status == 410 and error == ErrorCode.CURSOR_EXPIRED:
        reason = str(((body or {}).get("details") or {}).get("reason") or "")
        return Verdict(Action.RESET, error, reason if reason in RESET_REASONS else None)
    if status in (401, 426) or error in _STOP or error == "store_disabled":
        return Verdict(Action.STOP, error)
    if status == 422 and error == ErrorCode.MISSING_BLOBS:
        return Verdict(Action.UPLOAD, error)
    if status in (408, 429, 507) or status >= 500 or (body or {}).get("retryable") is True:
        return Verdict(Action.RETRY, error)
    return Verdict(Action.GIVE_UP, error)


def retry_after_s(value: str | None) -> int | None:
    """Retry-After in seconds (the HTTP-date form is not used by HQ and reads as None)."""
    if value is None or not value.strip().isdigit():
        return None
    return int(value.strip())
