"""What can go wrong talking to HQ, as kinds the cycle and the task engine act on (never HTTP details)."""

from __future__ import annotations

import errno
from enum import StrEnum

# A write that failed for want of room: a full disk, a quota, a file-size cap (EFBIG), a volume gone read-only.
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})


class Fault(StrEnum):
    OFFLINE = "OFFLINE"  # no answer, a reset, a captive portal's page, a 5xx: try again later
    RETRY_LATER = "RETRY_LATER"  # 429 / 503 with Retry-After: wait that long, no attempt burnt
    REVOKED = "REVOKED"  # 401: HQ revoked (or does not know) this kiosk's token; stop until re-enrolled
    UPGRADE_REQUIRED = "UPGRADE_REQUIRED"  # 426: this build speaks no protocol HQ serves
    RESET = "RESET"  # 410 cursor_expired: fetch the snapshot and apply it as a replace
    NOT_FOUND = "NOT_FOUND"  # 404 (a blob HQ does not have)
    CONFLICT = "CONFLICT"  # 409 (a different body for the same revision, already decided)
    FORBIDDEN = "FORBIDDEN"  # 403 (another store's draft id)
    MISSING_BLOBS = "MISSING_BLOBS"  # 422: upload `missing` first, then retry (no attempt counted)
    HASH_MISMATCH = "HASH_MISMATCH"  # bytes that do not hash to their name
    INVALID = "INVALID"  # any other refusal, or an answer that is not protocol v1
    MALFORMED = "MALFORMED"  # a protocol answer with a field of the wrong shape: refused whole, tried next cycle
    NOT_ENROLLED = "NOT_ENROLLED"
    RESET_LOOP = "RESET_LOOP"  # more than three 410 resets within an hour: stop and say so
    CLOCK = "CLOCK"  # HQ's certificate is "not yet valid" or "expired" by this kiosk's clock: check the clock
    DISK_FULL = "DISK_FULL"  # no room here for a blob (ENOSPC, a quota, a file-size cap): wait for space


class SyncError(Exception):
    def __init__(self, fault: Fault, code: str, message: str, *, retry_after_s: float | None = None,
                 details: dict[str, object] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.fault = fault
        self.code = code
        self.message = message
        self.retry_after_s = retry_after_s
        self.details = details or {}

    def one_line(self) -> str:
        return f"{self.code}: {self.message}"[:300]


def disk_full(exc: OSError, what: str) -> SyncError:
    """A blob write this kiosk's disk refused, as the fault the task engine waits out (never a network one)."""
    return SyncError(Fault.DISK_FULL, "disk_full",
                     f"no room on this kiosk's disk for {what} ({exc.strerror or exc}); downloads wait for space")
