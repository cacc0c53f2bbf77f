"""Proof of life for lease owners: a lease held by a process that is provably dead is reclaimed at once.

Each engine holds an exclusive lock on its own small file beside the database (`<db>-owners/<worker>.lock`) for as
long as it lives. The operating system lets go of a lock when its process dies, however it dies (kill -9, a power
cut), so another engine that can take the lock knows the owner is gone and need not wait out its lease; an owner
whose lock is held keeps the ordinary lease rules. The locks are flock (POSIX) or msvcrt (Windows) locks on
files of their own, never on the database file: a POSIX record lock on the database would be dropped by the
close of any descriptor of it (core/db.py). A worker id with no lock file (an engine of an older build) is dead
only if no process has its pid.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
from pathlib import Path

log = logging.getLogger(__name__)

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def owners_dir(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + "-owners")


def lock_path(db_path: Path, worker_id: str) -> Path:
    return owners_dir(db_path) / f"{_UNSAFE.sub('_', worker_id)[:120]}.lock"


class OwnerLock:
    """This engine's lock, held from construction until `release()` (or the process's death)."""

    def __init__(self, db_path: Path, worker_id: str) -> None:
        self.path = lock_path(db_path, worker_id)
        self._fd: int | None = None
        try:
            self.path.parent.mkdir(mode=0o700, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:  # a read-only or full data folder: this engine's leases follow the time rules
            log.warning("no owner lock for %s (%s): a crash of this process is recovered by lease time", worker_id,
                        exc.strerror or exc)
            return
        if not _try_lock(fd):
            os.close(fd)
            log.warning("owner lock %s is held by another engine", self.path.name)
            return
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()  # while still locked: no other engine can have taken it in between
        os.close(fd)


def owner_is_dead(db_path: Path, worker_id: str) -> bool:
    """True only when the process behind `worker_id` is provably gone; False when it lives or cannot be told."""
    path = lock_path(db_path, worker_id)
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return _pid_is_gone(worker_id)
    except OSError:
        return False
    try:
        if not _try_lock(fd):
            return False  # its owner holds it: alive
        with contextlib.suppress(OSError):
            path.unlink()  # the dead owner's file, removed while locked
        return True
    finally:
        os.close(fd)


def _pid_is_gone(worker_id: str) -> bool:
    pid_text, _, _ = worker_id.partition(":")
    if not pid_text.isdigit() or int(pid_text) <= 0:
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # alive, but someone else's
    return False


if sys.platform == "win32":  # pragma: no cover - the store build for Windows
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        # flock, not fcntl: a flock belongs to the open file, so two engines in one process exclude each other,
        # and no close of another descriptor drops it.
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
