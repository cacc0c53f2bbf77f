"""MODEL_FETCH: one offered release's model file, fetched in the background like a catalog blob (issue #27 §5).

The file is HQ's blob `/v1/blobs/{sha256}`; its size and sha256 must be the signed manifest's, so bytes HQ (or
anything between) changed are never stored. It is written to data_dir()/models/<sha256>.onnx through a temporary
file that is fsynced and renamed, so a crash or a full disk never leaves half a model under its final name; then
the row becomes "verified" (kswitch switches to it at an idle moment).

Faults: wrong bytes are fetched once more, then the release is refused with the reason; a file HQ does not have is
refused; a full disk is waited out (every 30 min, no attempt burnt, the row stays "downloading"); HQ unreachable or
answering garbage is retried by the engine's backoff, and a later cycle queues the fetch again if it died.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
from pathlib import Path

from nailmirror_desktop.core.model_releases import store
from nailmirror_desktop.core.paths import PRIVATE_FILE_MODE, data_dir, private_dir
from nailmirror_desktop.core.sync.errors import STORAGE_ERRNOS, Fault, SyncError, disk_full
from nailmirror_desktop.core.sync.port import HqPort

log = logging.getLogger(__name__)

MODEL_FETCH = "MODEL_FETCH"
WRONG_BYTES_ALLOWED = 1  # like a catalog blob: wrong bytes are fetched again once, then the release is refused


class ModelFetchFailed(Exception):
    """The fetch failed; `refused` when the release was given up (the row says why), else it may be retried."""

    def __init__(self, error: SyncError, *, refused: bool) -> None:
        super().__init__(error.one_line())
        self.error = error
        self.refused = refused


def models_dir() -> Path:
    return private_dir(data_dir() / "models")


def model_path(sha256: str) -> Path:
    return models_dir() / f"{sha256}.onnx"


def fetch(conn: sqlite3.Connection, port: HqPort, slot: str, release: int, attempt: int) -> bool:
    """Fetch, check and store the release's file; True when it became verified now. `attempt` counts this one.
    Raises ModelFetchFailed."""
    row = store.get(conn, slot, release)
    if row is None or row.state != "downloading":
        return False  # withdrawn, superseded by a resync, or done by an earlier attempt
    target = model_path(row.sha256)
    if _holds(target, row.sha256, row.size):  # the same bytes under another release (HQ re-published them)
        store.mark_verified(conn, slot, release, str(target))
        return True
    try:
        data = port.fetch_blob(row.sha256, row.size)
        if len(data) != row.size or hashlib.sha256(data).hexdigest() != row.sha256:
            raise SyncError(Fault.HASH_MISMATCH, "hash_mismatch",
                            f"model {row.sha256[:12]}… arrived as {len(data)} bytes hashing otherwise")
        _write(target, data)
    except SyncError as exc:
        refuse = (exc.fault is Fault.HASH_MISMATCH and attempt > WRONG_BYTES_ALLOWED) or exc.fault in (
            Fault.NOT_FOUND, Fault.INVALID, Fault.FORBIDDEN)
        if refuse:
            store.mark_refused(conn, slot, release, f"download refused: {exc.one_line()}")
            log.warning("model release %s/%d refused: %s", slot, release, exc.one_line())
        else:
            store.note_waiting(conn, slot, release, exc.one_line())
            log.info("model release %s/%d not fetched yet: %s", slot, release, exc.one_line())
        raise ModelFetchFailed(exc, refused=refuse) from None
    store.mark_verified(conn, slot, release, str(target))
    log.info("model release %s/%d (%s) downloaded and verified", slot, release, row.version)
    return True


def _holds(path: Path, sha256: str, size: int) -> bool:
    try:
        if path.stat().st_size != size:
            return False
        return hashlib.sha256(path.read_bytes()).hexdigest() == sha256
    except OSError:
        return False


def _write(target: Path, data: bytes) -> None:
    """Temporary file, fsync, rename, fsync the folder: the final name only ever holds the whole file."""
    temporary = target.with_name(f".{target.name}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
        with contextlib.suppress(OSError):  # not every file system lets a folder be fsynced
            folder = os.open(target.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink()
        if exc.errno in STORAGE_ERRNOS:
            raise disk_full(exc, f"model {target.stem[:12]}…") from None
        raise SyncError(Fault.INVALID, "model_not_written", f"cannot write {target.name}: {exc.strerror}") from None


def collect_unreferenced(conn: sqlite3.Connection) -> int:
    """Delete model files no release row names (a withdrawn slot's, a superseded download's); a file a running
    session still holds open on a system that forbids that is left for the next time. Returns how many went."""
    folder = data_dir() / "models"
    if not folder.is_dir():
        return 0
    kept = store.referenced_paths(conn)
    # A file named for a release still on the books stays even before its row names it: a MODEL_FETCH in
    # another thread may have renamed it into place and not yet marked the row verified.
    wanted = {r[0] for r in conn.execute("SELECT sha256 FROM model_release")}
    gone = 0
    for path in folder.iterdir():
        if (str(path) in kept or path.stem in wanted or not path.is_file()
                or not path.name.endswith(".onnx")):
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            gone += 1
    return gone
