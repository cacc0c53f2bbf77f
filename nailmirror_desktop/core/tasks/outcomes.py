"""Outcomes the disk had no room for (ARCHITECTURE.md §7): kept in memory and written when space returns.

A handler has run, but the write that records its outcome fails with SQLITE_FULL ("database or disk is full").
The worker must not die of it and the task must be neither lost nor run twice, so the engine keeps the outcome
(`WaitingOutcome`), keeps holding the task — its slot stays taken and the lease keeper goes on renewing its
lease, so no sweep hands it to another worker while this one still owes its outcome — and tries the write
again with backoff (`WriteBackoff`). Every write stays guarded by the claimed version: if the lease was lost
after all, the late outcome is dropped exactly as any other.
"""

from __future__ import annotations

import errno
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from nailmirror_desktop.core.db import error_code, is_busy, write_transaction
from nailmirror_desktop.core.tasks.models import Claim, TaskStatus

log = logging.getLogger(__name__)

STORAGE_FULL = "STORAGE_FULL"  # the error code a full disk is reported with


def is_storage_full(exc: BaseException | None) -> bool:
    """Whether `exc`, or an error it was raised while handling, says the disk (or SQLite's page cap) is full.

    The chain matters: SQLite rolls a transaction back by itself on SQLITE_FULL, so the ROLLBACK that
    write_transaction then issues fails with "no transaction is active", and the full disk is its context."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if error_code(exc) == sqlite3.SQLITE_FULL:
            return True
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


@dataclass(frozen=True)
class WaitingOutcome:
    """A finished attempt's outcome not yet written: `write(conn)` writes it (in a transaction; False when the
    lease was lost) and `status` is what the task becomes."""

    claim: Claim
    status: TaskStatus
    write: Callable[[sqlite3.Connection], bool]


class WriteBackoff:
    """When to try writing again after an outcome could not be written: base_s, doubling to max_s. `storage_full`
    says whether the last failure was the disk's. Not thread-safe (the engine calls it under its write lock)."""

    def __init__(self, base_s: float, max_s: float) -> None:
        self._base_s, self._max_s = base_s, max_s
        self._delay_s = 0.0
        self.failing = False
        self.storage_full = False
        self.retry_at_s = float("-inf")

    def failed(self, now_s: float, *, storage_full: bool) -> float:
        """Record a failed write; the seconds until the next try."""
        self._delay_s = min(self._max_s, self._delay_s * 2) if self.failing else self._base_s
        self.failing, self.storage_full = True, self.storage_full or storage_full
        self.retry_at_s = now_s + self._delay_s
        return self._delay_s

    def succeeded(self) -> bool:
        """A write went through (space is back). True if the disk had been full."""
        was_full = self.storage_full
        self.failing = self.storage_full = False
        self._delay_s, self.retry_at_s = 0.0, float("-inf")
        return was_full

    def blocks(self, now_s: float) -> bool:
        """Whether writing now would only fail again: wait until retry_at_s."""
        return self.failing and now_s < self.retry_at_s


class WaitingOutcomes:
    """The outcomes a full disk (or a database busy past the timeout) refused, oldest first, and when to try them
    again (`backoff`). Not thread-safe: the engine calls it under its write lock, and it holds the claims' slots."""

    def __init__(self, retry_base_s: float, retry_max_s: float) -> None:
        self.backoff = WriteBackoff(retry_base_s, retry_max_s)
        self._outcomes: list[WaitingOutcome] = []

    def __len__(self) -> int:
        return len(self._outcomes)

    def keep(self, outcome: WaitingOutcome, exc: sqlite3.OperationalError, now_s: float) -> float:
        """Keep an outcome whose write failed; the seconds until the next try. Re-raises any error other than a
        full disk or a busy database (those are the engine's to report)."""
        full = is_storage_full(exc)
        if not full and not is_busy(exc):
            raise exc
        self._outcomes.append(outcome)
        return self.backoff.failed(now_s, storage_full=full)

    def write(self, conn: sqlite3.Connection, now_s: float) -> list[tuple[WaitingOutcome, bool]]:
        """Write the kept outcomes oldest first, each in its own transaction, until one fails again (it stays, and
        the backoff grows). Returns those written, each with whether its lease still held."""
        written: list[tuple[WaitingOutcome, bool]] = []
        while self._outcomes:
            outcome = self._outcomes[0]
            try:
                with write_transaction(conn):
                    done = outcome.write(conn)
            except sqlite3.OperationalError as exc:
                full = is_storage_full(exc)
                if not full and not is_busy(exc):
                    raise
                delay_s = self.backoff.failed(now_s, storage_full=full)
                log.info("%d task outcome(s) still waiting for space; trying again in %.1f s", len(self), delay_s)
                break
            self._outcomes.pop(0)
            written.append((outcome, done))
        return written
