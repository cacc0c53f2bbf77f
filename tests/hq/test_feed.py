"""The feed's single writer: concurrent publishes never commit seqs out of order, so a reader polling in a
tight loop during them sees every seq, in order, with no gap (catalog_sync.md R6, failure case 25).

On PostgreSQL the appends also queue on the channel row's lock (head_seq + 1), so this test alone stays green
without the advisory lock; test_db.py is the one that fails when db.write's lock is removed."""

from __future__ import annotations

import threading
import time

from nailmirror_hq import db, feed
from nailmirror_hq.service import HQ

WRITERS = 3
CHANGES_EACH = 15


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
