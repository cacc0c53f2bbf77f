"""The task table's real queries: index use (no temporary sorts), a claim whose cost stays flat as finished
rows pile up, the idempotency index, and the backlog counters kept by triggers."""

from __future__ import annotations

import pytest

from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine
from nailmirror_desktop.core.tasks import store

NOW = 1_800_000_000_000


def query_plan(conn, sql, params):
    return " | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))


@pytest.fixture
def conn(tmp_path):
    connection = open_database(tmp_path / "plan.db")
    yield connection
    connection.close()


def test_the_claim_rewrites_only_the_row(tmp_path):
    """A claim changes no indexed column, so its commit writes one table page (plus the WAL commit frame)."""
    with TaskEngine(tmp_path / "pages.db", config=EngineConfig(pending_limit_per_source=None)) as engine:
        engine.register_handler("GEN", lambda ctx: None, concurrency=50)
        for i in range(50):
            engine.submit("GEN", {"i": i})
        conn = engine._conn()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        for _ in range(20):
            assert engine.claim_next() is not None
        frames = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
        print("WAL frames for 20 claims:", frames)
        assert frames <= 20 * 1.5, frames


@pytest.mark.parametrize("types,blocked", [(("GEN",), ()), (("GEN", "SYNC", "UPLOAD"), ()), (("GEN", "SYNC"), ("openai",))])
def test_claim_walks_the_partial_index_without_a_temp_sort(conn, types, blocked):
    sql = store.claim_sql(tuple(sorted(types)), len(blocked))
    plan = query_plan(conn, sql, ("w", NOW, NOW, NOW, NOW, *sorted(types), *blocked))
    assert "USING INDEX task_active" in plan, plan
    assert "TEMP B-TREE" not in plan, plan
    assert "SCAN task |" not in plan + " |" and not plan.endswith("SCAN task"), plan


def test_other_hot_queries_use_their_indexes(conn):
    sweep = query_plan(conn, store.SWEEP_EXPIRED, {"cutoff": NOW, "now": NOW})
    assert "task_active" in sweep and "TEMP B-TREE" not in sweep, sweep
    dup = query_plan(conn, store.FIND_UNFINISHED_BY_KEY, ("kiosk", "r1", "GEN"))
    assert "task_idempotency" in dup, dup
    by_no = query_plan(conn, "SELECT * FROM task WHERE id = ?", (store.task_id_from_no("T0000000000000001"),))
    assert "PRIMARY KEY" in by_no, by_no
    dead = query_plan(conn, "SELECT * FROM task WHERE status = 'DEAD' AND task_type = ? ORDER BY finished_at DESC",
                      ("GEN",))
    assert "task_dead" in dead and "TEMP B-TREE" not in dead, dead


def fill_finished(conn, count: int) -> None:
    conn.execute(
        """WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
           INSERT INTO task (id, task_type, status, scheduled_time, available_at, max_attempts,
                             request_payload, created_at, updated_at, finished_at, attempt_count)
           SELECT i, 'GEN', CASE WHEN i % 10 = 0 THEN 'DEAD' ELSE 'SUCCESS' END, ? - i, ? - i, 5, '{}',
                  ? - i, ? - i, ? - i, 1
           FROM n""",
        (count, NOW, NOW, NOW, NOW, NOW),
    )


def claim_cost(conn, types=("GEN",)) -> int:
    """SQLite virtual-machine steps for one claim (a deterministic stand-in for its time)."""
    steps = [0]

    def count():
        steps[0] += 1
        return 0

    conn.set_progress_handler(count, 1)
    try:
        row = store.claim(conn, "w", NOW, types)
    finally:
        conn.set_progress_handler(None, 1)
    assert row is not None
    return steps[0]


def add_pending(conn, n: int) -> None:
    with TaskEngine(conn.execute("PRAGMA database_list").fetchone()[2], clock=ManualClock(NOW / 1000 - 10),
                    config=EngineConfig(pending_limit_per_source=None)) as engine:
        for i in range(n):
            engine.submit("GEN", {"i": i})


def test_claim_cost_stays_flat_with_100k_finished_rows(tmp_path):
    empty = open_database(tmp_path / "empty.db")
    full = open_database(tmp_path / "full.db")
    fill_finished(full, 100_000)
    for conn in (empty, full):
        add_pending(conn, 20)
    baseline = claim_cost(empty)
    loaded = claim_cost(full)
    assert loaded <= baseline * 1.2 + 20, (baseline, loaded)

    # The measure is sensitive: without the partial index the same claim visits the finished rows.
    full.execute("DROP INDEX task_active")
    assert claim_cost(full) > baseline * 50
    empty.close()
    full.close()


def test_idempotency_index_allows_one_unfinished_row_per_key(conn):
    insert = ("INSERT INTO task (id, task_type, status, scheduled_time, available_at, max_attempts, "
              "request_payload, request_source, request_source_id, created_at, updated_at, finished_at) "
              "VALUES (?, 'GEN', ?, 0, 0, 5, '{}', 'kiosk', 'r1', 0, 0, ?)")
    conn.execute(insert, (1, "SUCCESS", 5))
    conn.execute(insert, (2, "DEAD", 5))
    conn.execute(insert, (3, "PENDING", None))
    import sqlite3

    for task_id, status in enumerate(("PENDING", "FAILED", "PROCESSING"), start=10):
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            conn.execute(insert, (task_id, status, None))
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):  # finished_at and status must agree
        conn.execute(insert, (20, "SUCCESS", None))


def test_backlog_triggers_count_unfinished_rows_per_source(tmp_path):
    with TaskEngine(tmp_path / "b.db", config=EngineConfig(pending_limit_per_source=None)) as engine:
        engine.register_handler("T", lambda ctx: None)
        for _ in range(3):
            engine.submit("T", {}, request_source="kiosk")
        engine.submit("T", {}, request_source="staff")
        conn = engine._conn()
        assert store.backlog(conn, "kiosk") == 3
        engine.run_due(max_tasks=2)
        engine.cancel(engine.list(status="PENDING", request_source="kiosk")[0].task_no)
        assert store.backlog(conn, "kiosk") == 0
        assert store.backlog(conn, "staff") == 1
        recount = conn.execute(
            "SELECT count(*) FROM task WHERE request_source = 'staff' AND status IN ('PENDING','FAILED','PROCESSING')"
        ).fetchone()[0]
        assert recount == 1
