"""Map provider answers to error classes (ARCHITECTURE.md §9).

Match on the provider's error *code*, never on message text (a prompt echoed in a message gives false
positives); fall back to the HTTP status only when the code is unknown.

Provider text enters our errors here, and leaves the drivers only through `redacting`: every field of a
ProviderError (code, message, request id) has the API key cut out and is bounded in length, and a code that does
not look like a code (white space, punctuation, the key itself) is replaced by `http_<status>` — so what reaches
the task row, its history, the log and the CLI is clean whichever field the provider echoed the key in.
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from nailmirror_desktop.core.generation.provider_config import Secret
from nailmirror_desktop.core.generation.provider_port import ProviderError
from nailmirror_desktop.core.generation.provider_port import ProviderErrorClass as C

RETRY_AFTER_CAP_S = 120.0
MAX_CODE_CHARS = 64
MAX_MESSAGE_CHARS = 500
MAX_REQUEST_ID_CHARS = 128
_CODE_SHAPE = re.compile(r"[A-Za-z][A-Za-z0-9_.:\-]*")

_OPENAI_CONTENT_CODES = frozenset({"moderation_blocked", "content_policy_violation"})
_OPENAI_QUOTA_CODES = frozenset({"insufficient_quota", "credit_balance_exhausted", "billing_hard_limit_reached"})

_DASHSCOPE_CONTENT_CODES = frozenset({"DataInspectionFailed", "IPInfringementSuspect"})
_DASHSCOPE_CONFIG_CODES = frozenset(
    {"Arrearage", "InvalidApiKey", "AccessDenied", "ModelNotFound", "Throttling.AllocationQuota"}
)


def classify_http_status(status: int) -> C:
    """The class an HTTP status implies when the body names no known code."""
    if status in (401, 403, 404):
        return C.CONFIG
    if status == 429:
        return C.RATE_LIMITED
    if status in (408, 409) or status >= 500:
        return C.TRANSIENT
    return C.INVALID_REQUEST


def classify_openai(status: int, code: str | None) -> C:
    """OpenAI Images: `error.code` first (moderation, quota), then the status (§1a)."""
    if code in _OPENAI_CONTENT_CODES:
        return C.CONTENT_REJECTED
    if code in _OPENAI_QUOTA_CODES:
        return C.CONFIG  # a 429 that is *not* a rate limit: retrying cannot help
    return classify_http_status(status)


def classify_dashscope(code: str | None, status: int | None = None) -> C:
    """DashScope Wan: the body's `code` (submit errors, poll FAILED, per-image results), else the status."""
    if code:
        if code in _DASHSCOPE_CONTENT_CODES or code.startswith("DataInspection"):
            return C.CONTENT_REJECTED
        if code in _DASHSCOPE_CONFIG_CODES or code.startswith("AccessDenied"):
            return C.CONFIG
        if code == "Throttling" or code.startswith("Throttling."):
            return C.RATE_LIMITED
        if code.startswith("InternalError"):
            return C.TRANSIENT
        if code.startswith("InvalidParameter"):
            return C.INVALID_REQUEST
    if status is None:
        # A poll-time FAILED with a code we do not know: the provider's own failure, bounded by max_attempts.
        return C.TRANSIENT
    return classify_http_status(status)


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date), capped; None if absent."""
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms:
        try:
            return _cap(float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if not raw:
        return None
    try:
        return _cap(float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    current = time.time() if now is None else now
    return _cap(when.timestamp() - current)


def _cap(seconds: float) -> float:
    return min(max(seconds, 0.0), RETRY_AFTER_CAP_S)


def error_from_http(
    provider: str,
    status: int,
    code: str | None,
    message: str,
    error_class: C,
    headers: Mapping[str, str],
    request_id: str | None = None,
    api_key: Secret | None = None,
) -> ProviderError:
    """Build the error for an HTTP failure; only rate limits carry a Retry-After. The key is cut out of the
    message (a 401 answer may quote the key it got, and the message goes to the task row and the log)."""
    retry_after = parse_retry_after(headers) if error_class is C.RATE_LIMITED else None
    if api_key:
        message = message.replace(api_key.reveal(), "****")
    code = code if code is None or _CODE_SHAPE.fullmatch(code) and len(code) <= MAX_CODE_CHARS else None
    if api_key and code and api_key.reveal() in code:
        code = None
    return ProviderError(
        code or f"http_{status}",
        f"{provider}: {message}"[:500],
        error_class,
        retry_after,
        http_status=status,
        request_id=request_id,
    )


def provider_code(value: Any) -> str | None:
    """A provider's error code as a string (None when absent or not a string: numbers and objects are no codes)."""
    return value if isinstance(value, str) and value else None


def redact(text: str, secrets: tuple[Secret, ...], limit: int) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret.reveal(), "****")
    return text[:limit]


def redact_error(error: ProviderError, secrets: tuple[Secret, ...]) -> ProviderError:
    """Cut the secrets out of every text field of `error`, bound their lengths, keep the code a code (in place)."""
    code = redact(str(error.code), secrets, MAX_CODE_CHARS + 1)
    if len(code) > MAX_CODE_CHARS or not _CODE_SHAPE.fullmatch(code):
        code = f"http_{error.http_status}" if error.http_status else "provider_error"
    error.code = code
    error.message = redact(str(error.message), secrets, MAX_MESSAGE_CHARS)
    if error.request_id is not None:
        error.request_id = redact(str(error.request_id), secrets, MAX_REQUEST_ID_CHARS)
    error.args = (f"{error.code}: {error.message}",)
    return error


@contextmanager
def redacting(*secrets: Secret) -> Iterator[None]:
    """Every ProviderError leaving the block is redacted (`redact_error`) on its way out."""
    try:
        yield
    except ProviderError as error:
        redact_error(error, secrets)
        raise
