"""db.write is HQ's single writer, on both engines: two write transactions never overlap, even when they touch
no row in common (on PostgreSQL that is the advisory lock's job alone; on SQLite, BEGIN IMMEDIATE's).

The feed race test (test_feed.py) cannot show this on PostgreSQL: two appends to one channel also queue on the
row lock of `UPDATE channel SET head_seq = head_seq + 1`, so it stays green without the advisory lock. These
tests fail when the lock is removed."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from sqlalchemy import text

from nailmirror_hq import db, meta
from nailmirror_hq.service import HQ

HOLD_S = 0.6


def test_two_write_transactions_on_different_rows_take_turns(hq_local_blobs: HQ) -> None:
    hq = hq_local_blobs
    first_in, times = threading.Event(), {}

    def first() -> None:
        with db.write(hq.engine) as conn:
            meta.put(conn, "test_first", "1")
            first_in.set()
            time.sleep(HOLD_S)  # hold the transaction open
            times["first_out"] = time.monotonic()

    def second() -> None:
        first_in.wait(30)
        with db.write(hq.engine) as conn:
            times["second_in"] = time.monotonic()
            meta.put(conn, "test_second", "1")  # another row: no row lock makes it wait

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert times["second_in"] >= times["first_out"], "a second writer ran inside the first's transaction"


def test_an_open_write_transaction_holds_the_lock_other_processes_see(hq_local_blobs: HQ) -> None:
    hq = hq_local_blobs
    with db.write(hq.engine) as conn:
        conn.execute(text("SELECT 1"))
        if hq.engine.dialect.name == "postgresql":
            with hq.engine.connect() as other:  # what another HQ process sees in pg_locks
                held = other.execute(text(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
                    "AND ((classid::bigint << 32) | objid::bigint) = :k"), {"k": db.FEED_LOCK}).scalar_one()
            assert held == 1
        else:
            path = hq.engine.url.database
            assert path
            other = sqlite3.connect(path, timeout=0, isolation_level=None)
            try:
                with pytest.raises(sqlite3.OperationalError, match="locked"):
                    other.execute("BEGIN IMMEDIATE")
            finally:
                other.close()


def test_the_head_revision_the_cli_checks_is_alembics_head() -> None:
    """db.HEAD_REVISION lets a command on a current database skip alembic; a new migration must move it."""
    from alembic.script import ScriptDirectory

    from nailmirror_hq import db as hq_db

    config = hq_db.alembic_config(hq_db.make_engine("sqlite://"))
    assert ScriptDirectory.from_config(config).get_current_head() == hq_db.HEAD_REVISION
