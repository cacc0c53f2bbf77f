"""The database: engine per URL, migrations, and the transactions the rest of HQ writes in.

`write(engine)` is the only way to change HQ's state. On SQLite it starts with BEGIN IMMEDIATE, so it holds the
database's writer lock from its first statement; on PostgreSQL it takes `pg_advisory_xact_lock(FEED_LOCK)`.
Either way, write transactions are serialised, so feed seqs are assigned and committed in order: a reader that
polls `seq > cursor` can never see seq n+1 committed before seq n and skip n forever (catalog_sync.md R6).
Publishing is rare (dozens a day), so the serialisation costs nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import DBAPIError

if TYPE_CHECKING:
    from alembic.config import Config

FEED_LOCK = 0x4E4D4851  # "NMHQ": the advisory lock id every HQ process writes under
SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
                                                  "check_same_thread": False})
        _sqlite_transactions(engine)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


def _sqlite_transactions(engine: Engine) -> None:
    """pysqlite's own BEGIN handling is switched off, so HQ decides: BEGIN IMMEDIATE to write, BEGIN to read."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable at checkpoints, never corrupt
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get("nm_read") else "BEGIN IMMEDIATE")


@contextmanager
def write(engine: Engine) -> Iterator[Connection]:
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": FEED_LOCK})
        yield conn


@contextmanager
def read(engine: Engine) -> Iterator[Connection]:
    """One consistent read: a SQLite read transaction under WAL, REPEATABLE READ on PostgreSQL."""
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn, conn.begin():
            yield conn
    else:
        with engine.connect().execution_options(nm_read=True) as conn, conn.begin():
            yield conn


# The newest migration (migrations/versions/): a database at it needs no migration, and then neither alembic nor
# its environment is loaded (about 0.3 s of every CLI command). tests/hq/test_db.py checks it is alembic's head.
HEAD_REVISION = "0016_models"


def schema_revision(engine: Engine) -> str | None:
    """The database's migration revision, or None when it has none yet (a new database)."""
    try:
        with read(engine) as conn:  # a read transaction: on SQLite, not the writer's BEGIN IMMEDIATE
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except DBAPIError:  # no alembic_version table yet
        return None


def alembic_config(engine: Engine) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.attributes["engine"] = engine
    return config


MIGRATE_LOCK = FEED_LOCK + 1


def migrate(engine: Engine, signing_kek: bytes | None = None) -> None:
    """Bring the schema to the newest revision (nothing is loaded when it is there). Several HQ processes starting
    at once take turns: a session advisory lock on PostgreSQL; on SQLite the migration's BEGIN IMMEDIATE.
    `signing_kek` (the config file's key, keys.py) lets revision 0008 sign the grants HQ already holds."""
    if schema_revision(engine) == HEAD_REVISION:
        return
    from alembic import command

    config = alembic_config(engine)
    config.attributes["signing_kek"] = signing_kek
    if engine.dialect.name != "postgresql":
        command.upgrade(config, "head")
        return
    with engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATE_LOCK})
        conn.commit()
        try:
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
            conn.commit()
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATE_LOCK})
            conn.commit()
