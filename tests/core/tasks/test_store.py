"""The task table's real queries: index use (no temporary sorts), a claim whose cost stays flat as finished
rows pile up, the idempotency rule, and the per-source backlog counted from the claim index."""

from __future__ import annotations

import pytest

from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine, store

NOW = 1_800_000_000_000


def query_plan(conn, sql, params):
    return " | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))


@pytest.fixture
def conn(tmp_path):
    connection = open_database(tmp_path / "plan.db")
    yield connection
    connection.close()


def wal_page_numbers(wal_path) -> list[int]:
    """The database page number of every frame in a WAL file (format: 32-byte header, then frames of a 24-byte
    header — page number first, big-endian — and one page)."""
    data = wal_path.read_bytes()
    if len(data) < 32:
        return []
    page_size = int.from_bytes(data[8:12], "big")
    return [int.from_bytes(data[offset:offset + 4], "big")
            for offset in range(32, len(data) - 24 - page_size + 1, 24 + page_size)]


def test_the_claim_rewrites_only_the_table(tmp_path):
    """A claim changes no indexed column, so its commits write pages of the task table only — the row's leaf
    (and, when the grown row no longer fits its page, the neighbours the b-tree rebalances with) — and no
    index page. Checked on the WAL itself: which b-tree owns each page the 20 claims wrote."""
    with TaskEngine(tmp_path / "pages.db", config=EngineConfig(pending_limit_per_source=None)) as engine:
        engine.register_handler("GEN", lambda ctx: None, concurrency=50)
        for i in range(50):
            engine.submit("GEN", {"i": i})
        conn = engine.connection()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        for _ in range(20):
            assert engine.claim_next() is not None
        pages = wal_page_numbers(tmp_path / "pages.db-wal")
        owners = dict(conn.execute("SELECT pageno, name FROM dbstat"))
        print("WAL frames for 20 claims:", len(pages), "owners:", sorted({owners[p] for p in pages}))
        # Page 1 is the file header too: rewritten when a rebalance grows the file (the size lives there).
        assert {owners[p] for p in pages if p != 1} == {"task"}
        assert 20 <= len(pages) <= 20 * 2.5, len(pages)


@pytest.mark.parametrize("types,blocked",
                         [(("GEN",), ()), (("GEN", "SYNC", "UPLOAD"), ()), (("GEN", "SYNC"), ("openai",))])
def test_claim_walks_the_partial_index_without_a_temp_sort(conn, types, blocked):
    plan = query_plan(conn, *store.claim_statement("w", NOW, types, blocked))
    assert "USING INDEX task_active" in plan, plan
    assert "TEMP B-TREE" not in plan, plan
    assert "SCAN task |" not in plan + " |" and not plan.endswith("SCAN task"), plan


def test_other_hot_queries_use_their_indexes(conn):
    sweep = query_plan(conn, store.SWEEP_EXPIRED, {"cutoff": NOW, "now": NOW, "why": store.SILENT})
    assert "task_active" in sweep and "TEMP B-TREE" not in sweep, sweep
    gone = query_plan(conn, store.SWEEP_OWNER, {"worker": "1:ab", "now": NOW, "why": store.GONE})
    assert "task_active" in gone and "TEMP B-TREE" not in gone, gone
    owners = query_plan(conn, store.OTHER_OWNERS, ("1:ab",))
    assert "task_active" in owners, owners
    dup = query_plan(conn, store.FIND_UNFINISHED_BY_KEY, ("kiosk", "r1", "GEN"))
    assert "task_idempotency" in dup, dup
    backlog = query_plan(conn, store.BACKLOG, ("kiosk",))
    assert "COVERING INDEX task_active" in backlog, backlog
    for count_sql, params in ((store.NTH_UNFINISHED, (199,)), (store.NTH_UNFINISHED_OF_SOURCE, ("kiosk", 199))):
        limited = query_plan(conn, count_sql, params)
        assert "COVERING INDEX task_active" in limited, limited
    by_no = query_plan(conn, "SELECT * FROM task WHERE id = ?", (store.task_id_from_no("T0000000000000001"),))
    assert "PRIMARY KEY" in by_no, by_no
    dead = query_plan(conn, "SELECT * FROM task WHERE dead_letter_state IS NOT NULL AND task_type = ?"
                            " ORDER BY id DESC", ("GEN",))
    assert "task_dead" in query_plan(conn, "SELECT count(*) FROM task WHERE dead_letter_state = 'OPEN'", ())
    assert "task_dead" in dead and "TEMP B-TREE" not in dead, dead


def fill_finished(conn, count: int) -> None:
    conn.execute(
        """WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
           INSERT INTO task (id, task_type, status, scheduled_time, available_at, max_attempts,
                             request_payload, created_at, updated_at, finished_at, attempt_count,
                             dead_letter_state)
           SELECT i, 'GEN', CASE WHEN i % 10 = 0 THEN 'DEAD' ELSE 'SUCCESS' END, ? - i, ? - i, 5, '{}',
                  ? - i, ? - i, ? - i, 1, CASE WHEN i % 10 = 0 THEN 'OPEN' END
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


def test_the_keyed_insert_allows_one_unfinished_row_per_key(conn):
    """The idempotency rule lives in the submit's transaction (checked under the write lock): a key may be
    requested again only once its earlier task finished, whatever that task's terminal state."""
    def submit(source_id="r1", source="kiosk", task_type="GEN"):
        inserted = store.submit(conn, {
            "task_type": task_type, "biz_type": None, "biz_id": None, "priority": 0, "scheduled_time": 0,
            "max_attempts": 5, "request_payload": "{}", "provider": None, "request_source": source,
            "request_source_id": source_id, "now": 0}, None)
        return inserted if isinstance(inserted, int) else None

    first = submit()
    assert first is not None
    for status in ("PENDING", "FAILED", "PROCESSING"):
        conn.execute("UPDATE task SET status = ? WHERE id = ?", (status, first))
        assert submit() is None, status
    assert submit(source="staff") is not None and submit(task_type="SYNC") is not None
    assert submit(source_id="r2") is not None
    assert submit(source_id=None) is not None and submit(source_id=None) is not None  # no key: no rule
    for terminal in ("SUCCESS", "DEAD"):
        conn.execute("UPDATE task SET status = ?1, finished_at = 5,"
                     " dead_letter_state = CASE WHEN ?1 = 'DEAD' THEN 'OPEN' END WHERE id = ?2", (terminal, first))
        again = submit()
        assert again is not None
        conn.execute("UPDATE task SET status = 'CANCELED', finished_at = 6 WHERE id = ?", (again,))
    import sqlite3

    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):  # finished_at and status must agree
        conn.execute("UPDATE task SET status = 'SUCCESS', finished_at = NULL, dead_letter_state = NULL WHERE id = ?",
                     (first,))
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):  # dead_letter_state is set exactly while DEAD
        conn.execute("UPDATE task SET status = 'SUCCESS' WHERE id = ?", (first,))  # still 'OPEN'


def test_completions_and_claims_leave_the_secondary_indexes_alone(conn):
    """The index's columns and condition are not written by a claim or a completion, so SQLite skips it there
    (each commit writes fewer pages). Assert on the program SQLite compiles for those statements."""
    def touches_index(sql, params, index):
        opcodes = conn.execute(f"EXPLAIN {sql}", params).fetchall()
        roots = {row[0] for row in conn.execute("SELECT rootpage FROM sqlite_schema WHERE name = ?", (index,))}
        return any(op[1] in ("OpenWrite", "OpenRead") and op[3] in roots for op in opcodes)

    submit = {"task_type": "GEN", "biz_type": None, "biz_id": None, "priority": 0, "scheduled_time": 0,
              "max_attempts": 5, "request_payload": "{}", "provider": None, "request_source": "kiosk",
              "request_source_id": "r1", "now": 0}
    for index in ("task_idempotency", "task_dead", "task_biz", "task_provider_task"):
        assert not touches_index(store.COMPLETE, (None, NOW, NOW, 1, 1), index), index
        assert not touches_index(*store.claim_statement("w", NOW, ("GEN",)), index), index
    assert touches_index(store.INSERT_TASK, submit, "task_idempotency")


def test_backlog_counts_unfinished_rows_per_source(tmp_path):
    with TaskEngine(tmp_path / "b.db", config=EngineConfig(pending_limit_per_source=None)) as engine:
        engine.register_handler("T", lambda ctx: None)
        for _ in range(3):
            engine.submit("T", {}, request_source="kiosk")
        engine.submit("T", {}, request_source="staff")
        conn = engine.connection()
        assert store.backlog(conn, "kiosk") == 3
        engine.run_due(max_tasks=2)
        engine.cancel(engine.list_tasks(status="PENDING", request_source="kiosk")[0].task_no)
        assert store.backlog(conn, "kiosk") == 0
        assert store.backlog(conn, "staff") == 1
        recount = conn.execute(
            "SELECT count(*) FROM task WHERE request_source = 'staff' AND status IN ('PENDING','FAILED','PROCESSING')"
        ).fetchone()[0]
        assert recount == 1
