"""Forward-only numbered migrations: a database made by the first migration is brought to the latest with its
data intact; a newer database is refused; every connection runs in WAL with a busy timeout."""

from __future__ import annotations

import sqlite3

import pytest

from nailmirror_desktop.core.db import (
    MigrationError,
    connect,
    discover_migrations,
    migrate,
    open_database,
    schema_version,
    write_transaction,
)
from nailmirror_desktop.core.tasks import TaskEngine, TaskStatus
from nailmirror_desktop.core.tasks.store import task_no_from_id


def test_migrations_are_numbered_without_gaps_and_start_with_the_task_table():
    migrations = discover_migrations()
    assert [m.version for m in migrations] == list(range(1, len(migrations) + 1))
    assert migrations[0].path.name == "0001_tasks.sql"


def test_upgrade_from_the_first_migration_keeps_the_data(tmp_path):
    path = tmp_path / "old.db"
    old = connect(path)
    assert migrate(old, target=1) == 1
    old.execute(
        "INSERT INTO task (id, task_type, status, scheduled_time, available_at, max_attempts, request_payload,"
        " created_at, updated_at) VALUES (77, 'GEN', 'PENDING', 1, 1, 5, '{\"prompt\": \"贝壳\"}', 1, 1)"
    )
    old_no = task_no_from_id(old.execute("SELECT id FROM task").fetchone()[0])
    old.close()

    latest = discover_migrations()[-1].version
    upgraded = open_database(path)
    assert schema_version(upgraded) == latest
    upgraded.close()
    with TaskEngine(path) as engine:
        task = engine.get(old_no)
        assert task.status is TaskStatus.PENDING and task.payload == {"prompt": "贝壳"}
        engine.register_handler("GEN", lambda ctx: {"ok": 1})
        engine.run_due()
        assert engine.get(old_no).status is TaskStatus.SUCCESS


def test_a_database_newer_than_the_build_is_refused(tmp_path):
    conn = open_database(tmp_path / "new.db")
    conn.execute(f"PRAGMA user_version = {discover_migrations()[-1].version + 1}")
    with pytest.raises(MigrationError):
        migrate(conn)
    conn.close()


def test_migrating_twice_is_a_no_op_and_two_openers_do_not_collide(tmp_path):
    path = tmp_path / "twice.db"
    first, second = connect(path), connect(path)
    migrate(first)
    assert migrate(second) == discover_migrations()[-1].version
    first.close()
    second.close()


def test_connections_use_wal_and_a_busy_timeout(tmp_path):
    conn = open_database(tmp_path / "wal.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    conn.close()


def test_new_databases_get_sqlites_default_pages_and_old_ones_keep_theirs(tmp_path):
    fresh = open_database(tmp_path / "fresh.db")
    assert fresh.execute("PRAGMA page_size").fetchone()[0] == 4096
    fresh.close()

    old = sqlite3.connect(tmp_path / "old.db")  # as an older build made it: 1 KiB pages, then WAL
    old.execute("PRAGMA page_size = 1024")
    old.execute("PRAGMA journal_mode = WAL")
    old.close()
    reopened = open_database(tmp_path / "old.db")
    assert reopened.execute("PRAGMA page_size").fetchone()[0] == 1024
    reopened.close()
    with TaskEngine(tmp_path / "old.db") as engine:
        assert engine.connection().execute("PRAGMA page_size").fetchone()[0] == 1024
        engine.register_handler("T", lambda ctx: None)
        task = engine.submit("T", {})
        engine.run_due()
        assert engine.get(task.task_no).status is TaskStatus.SUCCESS


def test_many_connections_opening_a_new_file_at_once_all_get_wal(tmp_path):
    """The first switch of a new file to WAL: SQLite refuses a second connection's switch at once ("database is
    locked", no busy wait) — before the retry, 4 of 40 such rounds failed here."""
    import threading

    from nailmirror_desktop.core.db import connect

    failures: list[str] = []
    for round_no in range(40):
        path = tmp_path / f"new-{round_no}.db"
        start = threading.Barrier(6)

        def open_it(path=path, start=start, round_no=round_no) -> None:
            start.wait()
            try:
                conn = connect(path)
                try:
                    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
                finally:
                    conn.close()
            except Exception as exc:  # noqa: BLE001 — collected and asserted below, with the round
                failures.append(f"round {round_no}: {exc!r}")

        threads = [threading.Thread(target=open_it) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []


def test_a_commit_that_fails_leaves_the_connection_out_of_its_transaction(tmp_path):
    """A deferred foreign key is checked at COMMIT, which then fails and leaves SQLite inside the transaction.
    The next write_transaction must be a real one, committed for other connections to see."""
    path = tmp_path / "commit.db"
    conn = open_database(path)
    conn.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
    conn.execute("CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER"
                 " REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)")
    with pytest.raises(sqlite3.IntegrityError), write_transaction(conn):
        conn.execute("INSERT INTO child (id, parent_id) VALUES (1, 99)")  # no parent 99: refused at COMMIT
    assert not conn.in_transaction
    with write_transaction(conn):
        conn.execute("INSERT INTO parent (id) VALUES (7)")
    other = connect(path)
    try:
        assert [row[0] for row in other.execute("SELECT id FROM parent")] == [7]
        assert other.execute("SELECT count(*) FROM child").fetchone()[0] == 0
    finally:
        other.close()
        conn.close()


def test_the_upgrade_counts_a_paid_generation_caught_mid_request_as_sent(tmp_path):
    """Migration 8: a paid generation running (or recovered from an expired lease) under the old build may have
    sent its request, so it is marked sent; free, finished and untouched tasks are not."""
    path = tmp_path / "upgrade.db"
    old = connect(path)
    migrate(old, target=7)
    rows = [  # id, provider, status, last_error_code, finished_at
        (1, "openai", "PROCESSING", None, None),
        (2, "dashscope", "PENDING", "LEASE_EXPIRED", None),
        (3, "offline", "PROCESSING", None, None),
        (4, "openai", "PENDING", None, None),
        (5, "openai", "SUCCESS", None, 9),
    ]
    for task_id, provider, status, code, finished in rows:
        old.execute(
            "INSERT INTO task (id, task_type, status, scheduled_time, available_at, max_attempts, request_payload,"
            " created_at, updated_at, provider, last_error_code, finished_at)"
            " VALUES (?, 'STYLE_GENERATION', ?, 1, 1, 5, '{}', 1, 7, ?, ?, ?)",
            (task_id, status, provider, code, finished))
    old.close()
    upgraded = open_database(path)
    marked = dict(upgraded.execute("SELECT id, request_sent_at FROM task").fetchall())
    upgraded.close()
    assert marked == {1: 7, 2: 7, 3: None, 4: None, 5: None}


def test_the_latest_schema_keeps_what_the_books_export_relies_on(tmp_path):
    """Read through sqlite-utils' introspection: a column a migration adds comes last (the export's column order
    only grows at the end), the ledger's and the tasks' times are INTEGER milliseconds (the export makes them
    ISO 8601) while the audit log's are ISO text already, and the audit log stays append-only."""
    from sqlite_utils import Database

    conn = open_database(tmp_path / "latest.db")
    db = Database(conn, recursive_triggers=False, execute_plugins=False)
    assert {"task", "task_event", "credit_account", "credit_entry", "audit_log"} <= set(db.table_names())
    assert [c.name for c in db["credit_entry"].columns][-4:] == ["upload_id", "uploaded_at", "upload_error",
                                                                 "grant_sig"]
    assert [c.name for c in db["task"].columns][-1] == "request_sent_at"
    for table in ("task", "credit_entry"):
        times = {c.name: c.type for c in db[table].columns if c.name.endswith(("_at", "_time"))}
        assert set(times.values()) == {"INTEGER"}, (table, times)
    assert db["audit_log"].columns_dict["created_at"] is str
    assert {t.name for t in db["audit_log"].triggers} == {"audit_log_no_update", "audit_log_no_delete"}
    assert {i.name for i in db["credit_entry"].indexes if i.unique} >= {"credit_entry_upload_id"}
    conn.close()


def test_a_database_upgraded_one_migration_at_a_time_has_the_schema_of_a_new_one(tmp_path):
    from sqlite_utils import Database

    stepped = connect(tmp_path / "stepped.db")
    for version in range(1, discover_migrations()[-1].version + 1):
        migrate(stepped, target=version)
        assert schema_version(stepped) == version
    fresh = open_database(tmp_path / "fresh.db")
    read = [Database(c, recursive_triggers=False, execute_plugins=False) for c in (stepped, fresh)]
    assert read[0].schema == read[1].schema
    stepped.close()
    fresh.close()
