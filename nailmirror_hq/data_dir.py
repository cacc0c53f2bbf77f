"""HQ's data directory: owner-only, and bound to the backend it belongs to.

Private: the directory 0700; HQ's SQLite database and its -wal, -shm and -journal files 0600; the filesystem blob
store's folder 0700; whatever the umask, at creation and at every start (an older build left 0755/0644). Modes
are set by path (os.chmod): HQ never opens its SQLite file to do it, since closing any descriptor of a file drops
every POSIX lock this process holds on it, SQLite's own included. The directory is made private before the
database is created in it, so the database is never readable by others, not even before its own chmod.

Bound: BACKEND_RECORD names the kind of database (sqlite, postgresql) and of blob store (file, s3) the directory
belongs to, and a start with other kinds is refused with one line (`WrongBackend`): an HQ on PostgreSQL + S3
whose NAILMIRROR_HQ_DATABASE_URL and NAILMIRROR_HQ_BLOBS were forgotten must not quietly start a second, empty
HQ on SQLite in its directory. A directory without the record is stamped at its first start: a new one quietly,
one an older build used with a line saying what it recorded. Moving HQ to another backend on purpose: delete it.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from nailmirror_hq import clock
from nailmirror_hq.config import ENV_BLOBS, ENV_DATABASE_URL, Settings

BACKEND_RECORD = "backend.json"
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")
DEFAULT_KINDS = {"database": "sqlite", "blobs": "file"}  # what HQ opens when the variables are not set
ENV_FOR = {"database": ENV_DATABASE_URL, "blobs": ENV_BLOBS}


class WrongBackend(Exception):
    """This start's backend is not the one the data directory belongs to (or its record is unreadable)."""


@dataclass(frozen=True)
class Backend:
    database: str  # the database URL's kind: "sqlite", "postgresql"
    blobs: str  # "file" or "s3"

    def __str__(self) -> str:
        return f"{self.database} + {self.blobs}"


def backend_of(settings: Settings) -> Backend:
    database = settings.database_url.split(":", 1)[0].split("+", 1)[0].lower()
    blobs = settings.blobs_url.split(":", 1)[0].lower()
    return Backend(database, blobs)


def sqlite_path(settings: Settings) -> Path | None:
    if not settings.is_sqlite:
        return None
    path = settings.database_url.split("///", 1)[1] if "///" in settings.database_url else ""
    return Path(path) if path and path != ":memory:" else None


def file_blob_root(settings: Settings) -> Path | None:
    parsed = urlparse(settings.blobs_url)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" else None


def make_private_dir(path: Path) -> None:
    """Create `path` (and missing parents) and make it owner-only."""
    path.mkdir(parents=True, exist_ok=True)
    _chmod(path, PRIVATE_DIR_MODE)


def make_private_files(settings: Settings) -> None:
    """After the database is open: its files 0600 and the blob store's folder 0700 (by path, never opened)."""
    database = sqlite_path(settings)
    if database is not None:
        for path in (database, *(Path(f"{database}{suffix}") for suffix in SQLITE_SIDE_FILES)):
            with contextlib.suppress(FileNotFoundError):  # the side files come and go with SQLite's own work
                _chmod(path, PRIVATE_FILE_MODE)
    blob_root = file_blob_root(settings)
    if blob_root is not None and blob_root.is_dir():
        _chmod(blob_root, PRIVATE_DIR_MODE)


def _chmod(path: Path, mode: int) -> None:
    if stat.S_IMODE(path.stat().st_mode) != mode:
        os.chmod(path, mode)


def check_backend(settings: Settings) -> str | None:
    """Refuse (WrongBackend) a start whose backend is not the directory's; stamp a directory without a record.
    Returns the line to print when it stamped an existing HQ's directory, else None (a new, empty directory is
    stamped quietly). Runs before the database is opened."""
    record = settings.data_dir / BACKEND_RECORD
    current = backend_of(settings)
    recorded = _read(record)
    if recorded is None:
        older = any(settings.data_dir.iterdir())  # an HQ from before the record: say what it is now bound to
        recorded = _stamp(record, current)
        if recorded == current and older:
            return (f"recorded in {record}: this data directory belongs to an HQ on {current} (database "
                    f"{current.database}, blobs {current.blobs}); a start with other backends will be refused")
    if recorded != current:
        raise WrongBackend(_refusal(settings.data_dir, record, recorded, current))
    return None


def _refusal(data_dir: Path, record: Path, recorded: Backend, current: Backend) -> str:
    fixes = []
    for part in ("database", "blobs"):
        want = getattr(recorded, part)
        if want != getattr(current, part):
            variable = ENV_FOR[part]
            fixes.append(f"unset {variable}" if want == DEFAULT_KINDS[part] else f"set {variable} (its {want} URL)")
    return (f"data directory {data_dir} belongs to an HQ on {recorded}, but this start would open {current}: "
            f"{' and '.join(fixes)}, or use another --data (moving that HQ to {current} on purpose: delete "
            f"{record})")


def _read(record: Path) -> Backend | None:
    try:
        text = record.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise WrongBackend(f"cannot read {record}: {exc.strerror or exc}") from None
    try:
        body = json.loads(text)
        return Backend(str(body["database"]), str(body["blobs"]))
    except (ValueError, KeyError, TypeError):
        raise WrongBackend(f"{record} is not HQ's backend record: restore it, or delete it to record this "
                           "start's backend") from None


def _stamp(record: Path, backend: Backend) -> Backend:
    """Write the record whole or not at all (a temp file linked into place): two HQ processes stamping at once
    both end up reading the first one's record. Returns the record that is there now."""
    body = {"database": backend.database, "blobs": backend.blobs, "recorded_at": clock.now_text()}
    fd, tmp = tempfile.mkstemp(dir=record.parent, prefix=".backend-")  # 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(body, handle)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):  # stamped by another process meanwhile: theirs stays
            os.link(tmp, record)
    finally:
        os.unlink(tmp)
    found = _read(record)
    assert found is not None
    return found
