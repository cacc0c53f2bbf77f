"""SQLite connections and forward-only migrations.

Every connection gets the same durability settings (WAL, synchronous=NORMAL, a busy timeout, foreign keys). Pages
are SQLite's default size (4 KiB); a database created by an older build with 1 KiB pages keeps them (a WAL
database cannot change its page size without a VACUUM, and nothing visible depends on it).
Migrations are numbered SQL files (`migrations/0001_name.sql` …) applied in order inside one transaction each;
the applied version is kept in `PRAGMA user_version`, so a database created by an older build is brought
forward at start-up and never backwards.

The database file and its -wal/-shm files are owner-only (0600): SQLite gives the -wal and -shm files the
database file's mode, so the file is made 0600 before SQLite opens it. A database that cannot be used (garbage,
cut short, from a newer build, read-only, on a full disk) raises `DataDirUnusable` from `open_database`.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from nailmirror_desktop.core.paths import (
    PRIVATE_FILE_MODE,
    DataDirUnusable,
    migrations_dir,
    reason_for_os_error,
    write_failure,
)

BUSY_TIMEOUT_MS = 5000
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class MigrationError(RuntimeError):
    pass


class NewerSchema(MigrationError):
    """The database was written by a newer build; it is never run backwards."""


# SQLite primary result codes (sqlite3.h) → DataDirUnusable reasons
_SQLITE_REASONS = {8: "READ_ONLY", 10: "UNREADABLE", 11: "DATABASE_CORRUPT", 13: "DISK_FULL", 14: "NO_PERMISSION",
                   23: "NO_PERMISSION", 26: "NOT_A_DATABASE"}


@dataclass(frozen=True)
class Migration:
    version: int
    path: Path


def discover_migrations(folder: Path | None = None) -> list[Migration]:
    folder = folder or migrations_dir()
    found = []
    for path in sorted(folder.glob("*.sql")):
        match = _MIGRATION_NAME.match(path.name)
        if not match:
            raise MigrationError(f"migration file name not understood: {path.name}")
        found.append(Migration(int(match.group(1)), path))
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise MigrationError(f"migrations must be numbered 1..N without gaps, found {versions}")
    return found


def connect(path: Path | str, *, check_same_thread: bool = True) -> sqlite3.Connection:
    """Open a connection with the kiosk's settings. Autocommit mode: callers open transactions explicitly."""
    conn = sqlite3.connect(
        str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=check_same_thread
    )
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    _set_wal(conn)
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def _set_wal(conn: sqlite3.Connection) -> None:
    """WAL mode, waiting out a brand-new file's switch by another connection.

    Turning a new file to WAL takes an exclusive lock; when two connections try at once (the kiosk and a CLI
    command on a first start, two worker threads), SQLite answers one of them "database is locked" at once
    without calling the busy handler, since waiting could deadlock (measured: 4 of 40 rounds of 6 threads opening
    one new file). The other's switch is done a moment later, and WAL is a property of the file: try again."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def error_code(exc: BaseException) -> int | None:
    """SQLite's primary result code of `exc` (sqlite3.h: SQLITE_BUSY, SQLITE_FULL …), or None for other errors."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_busy(exc: BaseException) -> bool:
    """Another connection holds what this one needs (SQLITE_BUSY "database is locked", or SQLITE_LOCKED):
    retryable, nothing was written."""
    return error_code(exc) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


_savepoint_ids = itertools.count(1)


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Commit everything inside on success, undo all of it on any exception; nests.

    Connections from `connect` are in autocommit mode, so a multi-statement write needs an explicit transaction.
    The outermost level opens `BEGIN IMMEDIATE` (the write lock up front, so a later write in the block cannot
    fail with SQLITE_BUSY after reads were made under an older snapshot) and is the only one that commits;
    a nested level is a SAVEPOINT, so an inner failure undoes only its own writes (and re-raises).
    """
    if conn.in_transaction:
        name = f"sp_{next(_savepoint_ids)}"
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield conn
            conn.execute(f"RELEASE {name}")
        except BaseException:
            if conn.in_transaction:  # SQLite may have rolled the whole transaction back itself (a full disk)
                conn.execute(f"ROLLBACK TO {name}")
                conn.execute(f"RELEASE {name}")
            raise
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        # Inside the try: a COMMIT that fails (a deferred constraint, a full disk, an I/O error) can leave the
        # connection in its transaction, and every later write on it would become a savepoint never committed.
        conn.execute("COMMIT")
    except BaseException:
        # After SQLITE_FULL or an I/O error SQLite has already rolled back, and a ROLLBACK now would raise
        # "no transaction is active" in place of the real error.
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, migrations: list[Migration] | None = None, *, target: int | None = None) -> int:
    """Apply pending migrations up to `target` (default: all). Returns the resulting version."""
    migrations = discover_migrations() if migrations is None else migrations
    current = schema_version(conn)
    latest = migrations[-1].version if migrations else 0
    if current > latest:
        raise NewerSchema(f"database is at version {current}, newer than this build ({latest}); refusing to run")
    for migration in migrations:
        if migration.version <= current or (target is not None and migration.version > target):
            continue
        script = migration.path.read_text(encoding="utf-8")
        conn.execute("BEGIN IMMEDIATE")
        if schema_version(conn) >= migration.version:  # another process applied it while we waited
            conn.execute("COMMIT")
            current = migration.version
            continue
        try:
            # executescript would commit our transaction; run statement by statement instead.
            for statement in _split_statements(script):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {migration.version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        current = migration.version
    return current


def _split_statements(script: str) -> list[str]:
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip() and not buffer.strip().startswith("--"):
        statements.append(buffer.strip())
    return statements


def open_database(path: Path | str, *, check_same_thread: bool = True) -> sqlite3.Connection:
    """Connect and bring the schema up to date. Raises DataDirUnusable when the database cannot be used."""
    path = Path(path)
    conn: sqlite3.Connection | None = None
    try:
        _make_database_files_private(path)
        conn = connect(path, check_same_thread=check_same_thread)
        migrate(conn)
        return conn
    except (sqlite3.Error, OSError, NewerSchema) as exc:
        if conn is not None:
            conn.close()
        raise database_unusable(exc, path) from exc


def database_unusable(exc: BaseException, path: Path | str) -> DataDirUnusable:
    """What a failed database operation means for the data directory (the CLI reports it in one line)."""
    if isinstance(exc, NewerSchema):
        return DataDirUnusable(path, "NEWER_SCHEMA", str(exc))
    if isinstance(exc, OSError):
        return DataDirUnusable(path, reason_for_os_error(exc), exc.strerror or str(exc))
    code = getattr(exc, "sqlite_errorcode", None)
    reason = _SQLITE_REASONS.get(code & 0xFF, "UNREADABLE") if isinstance(code, int) else "UNREADABLE"
    if reason in ("UNREADABLE", "READ_ONLY", "NO_PERMISSION"):  # a full disk or read-only mount looks like these
        reason = write_failure(Path(path).parent) or reason
    return DataDirUnusable(path, reason, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)


def _make_database_files_private(path: Path) -> None:
    """Make the database and its -wal/-shm/-journal files owner-only without ever opening a file SQLite may hold.

    POSIX record locks belong to the process: closing *any* descriptor of the database file drops every lock this
    process holds on it, including those of its live connections (sqlite.org/howtocorrupt.html §2.2). Another
    process — a CLI command beside the kiosk — then believes it is the last connection, checkpoints and deletes
    the -wal this process is still writing into. So a missing file is created with O_EXCL (nobody can hold a file
    that did not exist) and closed before any connection exists, under a lock that keeps this process's other
    threads from connecting to it in between; an existing file is only ever chmod-ed, by path."""
    if path.is_dir():
        raise IsADirectoryError(21, "is a folder, not a database file", str(path))
    with _creating:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
        except FileExistsError:
            _chmod_private(path)
        else:
            try:
                os.fchmod(fd, PRIVATE_FILE_MODE)  # O_CREAT's mode is masked by the umask
            finally:
                os.close(fd)
    for suffix in ("-wal", "-shm", "-journal"):
        side = path.with_name(path.name + suffix)
        if side.is_file() and not side.is_symlink():
            _chmod_private(side)


# Held while a missing database file is created and closed: a thread of this process that connected to the
# half-made file in between would lose its locks at the close.
_creating = threading.Lock()


def _chmod_private(path: Path) -> None:
    # Another connection closing may delete a -wal/-shm between the look and the chmod.
    with contextlib.suppress(FileNotFoundError):
        if stat.S_IMODE(os.stat(path).st_mode) != PRIVATE_FILE_MODE:
            os.chmod(path, PRIVATE_FILE_MODE)
