"""Error codes of protocol v1 and the body every error answer carries.

    {"nm": 1, "error": "cursor_expired", "message": "...", "retryable": false,
     "details": {"reason": "epoch_changed", "snapshot": "/v1/catalog/snapshot"}}

`retryable` tells the kiosk whether the same request may succeed later unchanged (5xx, 429, 507); a 401, 403,
409 or 410 never does. 429 and 503 also carry `Retry-After: <seconds>`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from nailmirror_protocol.shapes import ErrorBody


class ErrorCode(StrEnum):
    BAD_REQUEST = "bad_request"
    BAD_CURSOR = "bad_cursor"
    CURSOR_EXPIRED = "cursor_expired"  # 410, details.reason is one of ResetReason
    TOKEN_MISSING = "token_missing"  # 401
    TOKEN_INVALID = "token_invalid"  # 401: unknown token (e.g. HQ restored without it)
    TOKEN_REVOKED = "token_revoked"  # 401: HQ revoked this kiosk or its store
    UPGRADE_REQUIRED = "upgrade_required"  # 426
    # 400 for an unknown, used or expired code alike (one answer, so a guesser learns nothing of which codes were).
    ENROLL_CODE_INVALID = "enroll_code_invalid"
    ENROLL_CODE_USED = "enroll_code_used"  # 410 from HQs before the one answer; a kiosk treats it as invalid
    ENROLL_CODE_EXPIRED = "enroll_code_expired"  # 410, likewise
    TOO_MANY_ATTEMPTS = "too_many_attempts"  # 429 + Retry-After: refused unchecked until then (enrollment)
    NOT_FOUND = "not_found"  # 404 (e.g. a blob HQ does not have)
    HASH_MISMATCH = "hash_mismatch"  # 400 on blob upload; details.computed
    BLOB_TOO_LARGE = "blob_too_large"  # 413
    MEDIA_TYPE_NOT_ALLOWED = "media_type_not_allowed"  # 415
    STORAGE_FULL = "storage_full"  # 507, retryable
    INVALID_DRAFT = "invalid_draft"  # 400
    MISSING_BLOBS = "missing_blobs"  # 422; details.missing: upload them, retry without counting an attempt
    REVISION_CONFLICT = "revision_conflict"  # 409: same id+rev, different body; never retry
    ALREADY_DECIDED = "already_decided"  # 409
    NOT_YOUR_DRAFT = "not_your_draft"  # 403: the draft id belongs to another store
    SUBMISSION_QUOTA_EXCEEDED = "submission_quota_exceeded"  # 429 + Retry-After
    INVALID_LEDGER_ENTRY = "invalid_ledger_entry"  # 400
    LEDGER_ENTRY_CONFLICT = "ledger_entry_conflict"  # 409: same entry id, different body; never retry
    CAPTURE_CONFLICT = "capture_conflict"  # 409: a capture code HQ holds under another image; never retry
    CAPTURE_WITHDRAWN = "capture_withdrawn"  # 410: the customer withdrew it; the kiosk deletes its copy
    INVALID_CAPTURE = "invalid_capture"  # 400
    NOT_IMPLEMENTED = "not_implemented"  # 501: a capability hello declares as reserved
    UNAVAILABLE = "unavailable"  # 503 + Retry-After


class ResetReason(StrEnum):
    """Why a cursor gets 410: each one means "fetch the snapshot and apply it as a replace"."""

    EPOCH_CHANGED = "epoch_changed"  # HQ restored from a backup or its log rebuilt
    COMPACTED = "compacted"  # the cursor is below the channel's retention horizon (min_seq)
    AHEAD_OF_SERVER = "ahead_of_server"  # the cursor is past HQ's head: HQ went back in time
    PROTOCOL_UPGRADED = "protocol_upgraded"
    CHANNEL_CHANGED = "channel_changed"


RESET_REASONS = frozenset(ResetReason)
RETRYABLE = frozenset({ErrorCode.STORAGE_FULL, ErrorCode.UNAVAILABLE, ErrorCode.SUBMISSION_QUOTA_EXCEEDED,
                       ErrorCode.TOO_MANY_ATTEMPTS})


def error_body(code: ErrorCode, message: str, details: dict[str, Any] | None = None) -> ErrorBody:
    body: ErrorBody = {"nm": 1, "error": str(code), "message": message, "retryable": code in RETRYABLE}
    if details is not None:
        body["details"] = details
    return body
