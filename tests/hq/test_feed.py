"""The feed's single writer: concurrent publishes never commit seqs out of order, so a reader polling in a
tight loop during them sees every seq, in order, with no gap (catalog_sync.md R6, failure case 25).

On PostgreSQL the appends also queue on the channel row's lock (head_seq + 1), so this test alone stays green
without the advisory lock; test_db.py is the one that fails when db.write's lock is removed."""

from __future__ import annotations

import threading
import time

import pytest

from nailmirror_hq import db, feed
from nailmirror_hq.service import HQ

WRITERS = 3
CHANGES_EACH = 15


@pytest.mark.slow
def test_concurrent_writers_never_make_a_polling_reader_skip_a_seq(hq: HQ) -> None:
    done = threading.Event()
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(CHANGES_EACH):
                with db.write(hq.engine) as conn:
                    feed.append(conn, "all", "tag", "upsert", f"w{n}-{i}", 1, {"code": f"w{n}-{i}"})
                    time.sleep(0.002)  # hold the transaction open: widen the window a race would need
        except BaseException as exc:
            errors.append(exc)

    seen: list[int] = []

    def reader() -> None:
        cursor = 0
        while True:
            finished = done.is_set()
            with db.read(hq.engine) as conn:
                changes, _ = feed.page(conn, "all", cursor, 500)
            for change in changes:
                seen.append(change["seq"])
                cursor = change["seq"]
            if finished and not changes:
                return

    with db.read(hq.engine) as conn:
        start = feed.head(conn, "all").head_seq  # type: ignore[union-attr]
    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    poller = threading.Thread(target=reader)
    poller.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    done.set()
    poller.join(120)
    assert not errors
    total = WRITERS * CHANGES_EACH
    assert [s for s in seen if s > start] == list(range(start + 1, start + total + 1))


def test_compaction_keeps_the_newest_change_per_entity(hq: HQ) -> None:
    with db.write(hq.engine) as conn:
        base = feed.head(conn, "all").head_seq  # type: ignore[union-attr]
        for version in (1, 2, 3):
            feed.append(conn, "all", "tag", "upsert", "gloss", version, {"code": "gloss", "v": version})
        feed.append(conn, "all", "tag", "upsert", "matte", 1, {"code": "matte"})
        dropped = feed.compact(conn, "all", base + 4)
    with db.read(hq.engine) as conn:
        changes, _ = feed.page(conn, "all", base, 100)
        head = feed.head(conn, "all")
    assert dropped == 2
    assert [(c["id"], c["version"]) for c in changes] == [("gloss", 3), ("matte", 1)]
    assert head is not None and head.min_seq == base + 4


def test_every_query_of_an_empty_poll_is_an_index_lookup(hq_sqlite: HQ) -> None:
    """What keeps the poll flat in the feed's size (benchmarks/sync.py): each statement the changes route runs
    for an up-to-date kiosk — token, epoch, channel head, the cursor query — is a SEARCH on an index (the
    cursor one on (channel, seq)), never a SCAN, a COUNT or a MAX over catalog_change."""
    from fastapi.testclient import TestClient
    from sqlalchemy import event

    from nailmirror_hq import meta
    from nailmirror_hq.api.app import create_app
    from tests.support.hq_fixtures import new_kiosk

    hq = hq_sqlite
    client = TestClient(create_app(hq))
    _, headers = new_kiosk(hq, client)
    with db.write(hq.engine) as conn:
        for i in range(50):
            feed.append(conn, "all", "tag", "upsert", f"t{i}", 1, {"code": f"t{i}"})
    with db.read(hq.engine) as conn:
        cursor = f"{meta.epoch(conn)}.{feed.head(conn, 'all').head_seq}"  # type: ignore[union-attr]
    client.get(f"/v1/catalog/changes?since={cursor}", headers=headers)  # the digest is cached from here on
    seen: list[tuple[str, object]] = []

    def record(_conn: object, _cursor: object, statement: str, parameters: object, *_: object) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    event.listen(hq.engine, "before_cursor_execute", record)
    try:
        answer = client.get(f"/v1/catalog/changes?since={cursor}", headers=headers)
    finally:
        event.remove(hq.engine, "before_cursor_execute", record)
    assert answer.status_code == 200 and answer.json()["changes"] == []
    assert len(seen) >= 4 and any("FROM catalog_change" in s for s, _ in seen)
    with hq.engine.connect() as conn:
        for statement, parameters in seen:
            assert "count(" not in statement.lower() and "max(" not in statement.lower(), statement
            plan = " | ".join(str(row[-1]) for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}",
                                                                              parameters).all())  # type: ignore[arg-type]
            assert "SCAN" not in plan and "SEARCH" in plan, (statement, plan)
            if "FROM catalog_change" in statement:
                assert "(channel=? AND seq>?)" in plan, plan
