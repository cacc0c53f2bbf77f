"""SQLite connections and forward-only migrations.

Every connection gets the same durability settings (WAL, synchronous=NORMAL, a busy timeout, foreign keys). Pages
are SQLite's default size (4 KiB); a database created by an older build with 1 KiB pages keeps them (a WAL
database cannot change its page size without a VACUUM, and nothing visible depends on it).
Migrations are numbered SQL files (`migrations/0001_name.sql` …) applied in order inside one transaction each;
the applied version is kept in `PRAGMA user_version`, so a database created by an older build is brought
forward at start-up and never backwards.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from nailmirror_desktop.core.paths import migrations_dir

BUSY_TIMEOUT_MS = 5000
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class MigrationError(RuntimeError):
    pass


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
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


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
        except BaseException:
            conn.execute(f"ROLLBACK TO {name}")
            conn.execute(f"RELEASE {name}")
            raise
        conn.execute(f"RELEASE {name}")
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, migrations: list[Migration] | None = None, *, target: int | None = None) -> int:
    """Apply pending migrations up to `target` (default: all). Returns the resulting version."""
    migrations = discover_migrations() if migrations is None else migrations
    current = schema_version(conn)
    latest = migrations[-1].version if migrations else 0
    if current > latest:
        raise MigrationError(f"database is at version {current}, newer than this build ({latest}); refusing to run")
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
    """Connect and bring the schema up to date."""
    conn = connect(path, check_same_thread=check_same_thread)
    migrate(conn)
    return conn
