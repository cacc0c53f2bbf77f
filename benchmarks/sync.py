"""HQ's side of catalog sync, measured through a real uvicorn on 127.0.0.1 (stdlib http.client, keep-alive).

    python benchmarks/sync.py                                   # full size: 100,000 and 1,000,000 feed rows
    python benchmarks/sync.py --rows 2000 --stores 20 --seconds 1 --engines sqlite     # toy size (CI's test)

For each engine (SQLite; PostgreSQL in a throwaway cluster when its binaries are here) and each feed size:
poll latency of an up-to-date kiosk (0 changes) and of a 200-change page (median, p95 ms), then N simulated
stores (one token each) polling one HQ process from 8 client threads for --seconds: requests/s held and p95.
The feed is spread over 4 channels, interleaved, ~1 KB bodies, so a page is a range scan among other channels'
rows. After the load the database is settled (WAL checkpointed, table analysed, writeback done) and each size
reports its cursor query's plan (an index seek on (channel, seq)), that query's own time in-process, and the
load average, so a slow figure can be told apart from a busy machine. The kiosk-side figures (a first sync of
--kiosk-styles styles, 500 by default, and an incremental sync of --kiosk-changes, 10) are measured by
benchmarks/kiosk_sync.py in a process of its own (it needs its own kiosk data directory) and put in this
summary; --kiosk-styles 0 leaves them out (null). The last line is the JSON summary.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import insert, update  # noqa: E402

from nailmirror_hq import clock, db, feed, meta, stores  # noqa: E402
from nailmirror_hq.api.app import create_app  # noqa: E402
from nailmirror_hq.config import Settings  # noqa: E402
from nailmirror_hq.schema import catalog_change, channel, store, store_token  # noqa: E402
from nailmirror_hq.service import open_hq  # noqa: E402

CHANNELS = ("bench", "b2", "b3", "b4")
# ~1 KB as stored (UTF-8, not \u-escaped: escaped, this was 2.75 KB a row and the 1M-row file 4 GB).
BODY = json.dumps({"type": "tag", "op": "upsert", "id": "x", "version": 1,
                   "tag": {"code": "x", "name_zh": "填充" * 100, "name_en": "padding" * 50}}, ensure_ascii=False)
PAGE = 200


def fill(hq, rows: int) -> None:  # type: ignore[no-untyped-def]
    with db.write(hq.engine) as conn:
        for code in CHANNELS:
            if conn.execute(channel.select().where(channel.c.code == code)).first() is None:
                conn.execute(insert(channel).values(code=code, head_seq=0, min_seq=0, created_at=clock.now_text()))
    now, batch, seqs = clock.now_text(), [], dict.fromkeys(CHANNELS, 0)
    for i in range(rows):
        code = CHANNELS[i % len(CHANNELS)]
        seqs[code] += 1
        batch.append({"channel": code, "seq": seqs[code], "type": "tag", "op": "upsert", "entity_id": f"t{i}",
                      "version": 1, "body": BODY, "created_at": now})
        if len(batch) == 20_000 or i == rows - 1:
            with db.write(hq.engine) as conn:
                conn.execute(insert(catalog_change), batch)
            batch = []
    with db.write(hq.engine) as conn:
        for code, head in seqs.items():
            conn.execute(update(channel).where(channel.c.code == code).values(head_seq=head))
    settle(hq)


def settle(hq) -> None:  # type: ignore[no-untyped-def]
    """After the bulk load, before measuring: what a serving HQ is in, not what a loader leaves behind. SQLite:
    the WAL checkpointed and truncated (a reader of a 1M-row load otherwise searches a WAL of thousands of
    frames); PostgreSQL: the table analysed (autovacuum would, later). Then the dirty pages are written out, so
    the first polls do not queue behind gigabytes of writeback."""
    if hq.engine.dialect.name == "sqlite":
        raw = hq.engine.raw_connection()  # outside any transaction (SQLAlchemy's would hold the checkpoint off)
        try:
            busy, _, _ = raw.driver_connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            assert busy == 0, "the WAL checkpoint was blocked"
        finally:
            raw.close()
    else:
        with hq.engine.connect() as conn:
            conn.exec_driver_sql("ANALYZE catalog_change")
            conn.commit()
    os.sync()


def feed_plan(hq, epoch_head: int) -> str:  # type: ignore[no-untyped-def]
    """How the database runs the cursor query: it must be an index seek on (channel, seq), never a scan."""
    with hq.engine.connect() as conn:
        if hq.engine.dialect.name == "sqlite":
            rows = conn.exec_driver_sql("EXPLAIN QUERY PLAN SELECT seq, body FROM catalog_change WHERE channel = ?"
                                        " AND seq > ? ORDER BY seq LIMIT 201", ("bench", epoch_head)).all()
            return "; ".join(str(row[-1]) for row in rows)
        rows = conn.exec_driver_sql("EXPLAIN SELECT seq, body FROM catalog_change WHERE channel = %(c)s"
                                    " AND seq > %(s)s ORDER BY seq LIMIT 201", {"c": "bench", "s": epoch_head}).all()
        return "; ".join(str(row[0]).strip() for row in rows)


def query_ms(hq, head: int, samples: int) -> float:  # type: ignore[no-untyped-def]
    """The 0-change cursor query alone (feed.page in-process, no HTTP): the database's share of a poll."""
    times = []
    with db.read(hq.engine) as conn:
        for _ in range(samples):
            started = time.perf_counter()
            changes, _ = feed.page(conn, "bench", head, PAGE)
            times.append((time.perf_counter() - started) * 1000)
            assert changes == []
    return round(statistics.median(times), 4)


def make_tokens(hq, count: int) -> list[str]:  # type: ignore[no-untyped-def]
    tokens, now = [], clock.now_text()
    with db.write(hq.engine) as conn:
        conn.execute(insert(store), [{"id": f"st_B{i}", "name": f"B{i}", "channel": "bench", "status": "ACTIVE",
                                      "inbox_seq": 0, "created_at": now} for i in range(count)])
        for i in range(count):
            token = f"nmst_bench{i:06d}"
            tokens.append(token)
            conn.execute(insert(store_token).values(token_sha256=stores.sha256_text(token), store_id=f"st_B{i}",
                                                    kiosk_id=f"k_b{i}", kiosk_name="bench", app_version="0",
                                                    created_at=now))
    return tokens


class Client:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def get(self, path: str, token: str) -> tuple[int, int, float]:
        started = time.perf_counter()
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {token}", "NM-Protocol": "1"})
        answer = self.conn.getresponse()
        body = answer.read()
        return answer.status, len(body), (time.perf_counter() - started) * 1000


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * p))], 3)


def measure(port: int, token: str, epoch: str, head: int, samples: int) -> dict[str, float]:
    client = Client(port)
    empty, page = [], []
    for _ in range(samples):
        status, _, ms = client.get(f"/v1/catalog/changes?since={epoch}.{head}", token)
        assert status == 200
        empty.append(ms)
        status, size, ms = client.get(f"/v1/catalog/changes?since={epoch}.{head - PAGE}&limit={PAGE}", token)
        assert status == 200 and size > PAGE * 500
        page.append(ms)
    return {"poll_0_changes_ms_median": round(statistics.median(empty), 3), "poll_0_changes_ms_p95": pct(empty, .95),
            "poll_200_changes_ms_median": round(statistics.median(page), 3), "poll_200_changes_ms_p95": pct(page, .95)}


def many_stores(port: int, tokens: list[str], epoch: str, head: int, seconds: float) -> dict[str, float]:
    latencies: list[float] = []
    lock, stop = threading.Lock(), time.monotonic() + seconds

    def worker(offset: int) -> None:
        client, mine, n = Client(port), [], offset
        while time.monotonic() < stop:
            status, _, ms = client.get(f"/v1/catalog/changes?since={epoch}.{head}", tokens[n % len(tokens)])
            assert status == 200
            mine.append(ms)
            n += 8
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    return {"stores": len(tokens), "requests_per_s": round(len(latencies) / elapsed, 1),
            "p95_ms": pct(latencies, .95)}


def run_engine(engine: str, rows_list: list[int], store_count: int, seconds: float, samples: int) -> dict:  # type: ignore[type-arg]
    from tests.support.hq_servers import PostgresCluster, Uvicorn

    results: dict[str, object] = {}
    for rows in rows_list:
        work = Path(tempfile.mkdtemp(prefix="nm-bench-sync-"))
        cluster = PostgresCluster() if engine == "postgresql" else None
        try:
            url = cluster.new_database() if cluster else f"sqlite:///{work / 'hq.sqlite3'}"
            hq = open_hq(Settings(work, url, (work / "blobs").as_uri(), None))
            loaded = time.perf_counter()
            fill(hq, rows)
            load_s = time.perf_counter() - loaded
            tokens = make_tokens(hq, store_count)
            with db.read(hq.engine) as conn:
                epoch = meta.epoch(conn)
                head = int(conn.execute(channel.select().where(channel.c.code == "bench")).one().head_seq)
            server = Uvicorn(create_app(hq))
            try:
                entry: dict[str, object] = {"load_s": round(load_s, 1), "feed_plan": feed_plan(hq, head),
                                            "query_0_changes_ms_median": query_ms(hq, head, samples)}
                entry.update(measure(server.port, tokens[0], epoch, head, samples))
                entry["load_average"] = round(os.getloadavg()[0], 2)  # at the end of this size's polls
                entry["many_stores"] = many_stores(server.port, tokens, epoch, head, seconds)
            finally:
                server.stop()
                hq.close()
            results[str(rows)] = entry
            print(json.dumps({"engine": engine, "rows": rows, **entry}), flush=True)
        finally:
            if cluster:
                cluster.stop()
            shutil.rmtree(work, ignore_errors=True)
    return results


def kiosk_side(styles: int, changes: int) -> tuple[object, object]:
    """benchmarks/kiosk_sync.py's first and incremental sync (seconds, requests, bytes), or (None, None)."""
    if styles <= 0:
        return None, None
    import subprocess

    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "kiosk_sync.py"), "--styles", str(styles),
                           "--changes", str(changes)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"sync.py: the kiosk's side failed: {done.stderr.strip().splitlines()[-1:]}")
    kiosk = json.loads(done.stdout.strip().splitlines()[-1])
    first = {"styles": styles, **kiosk["kiosk_first_sync"]}
    return first, {"changes": changes, **kiosk["kiosk_incremental_sync"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="100000,1000000", help="feed sizes, comma-separated")
    parser.add_argument("--engines", default="sqlite,postgresql")
    parser.add_argument("--stores", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--kiosk-styles", type=int, default=500, help="the kiosk's first sync (0: not measured)")
    parser.add_argument("--kiosk-changes", type=int, default=10, help="the kiosk's incremental sync")
    args = parser.parse_args()
    rows_list = [int(r) for r in args.rows.split(",")]
    if min(rows_list) < PAGE * len(CHANNELS) * 2:
        print(f"sync.py: --rows must be at least {PAGE * len(CHANNELS) * 2}", file=sys.stderr)
        return 2
    summary: dict[str, object] = {"benchmark": "sync", "load_average": round(os.getloadavg()[0], 2)}
    for engine in args.engines.split(","):
        try:
            summary[engine] = run_engine(engine, rows_list, args.stores, args.seconds, args.samples)
        except BaseException as exc:  # noqa: BLE001 - e.g. PostgreSQL missing: the other engine still reports
            if type(exc).__name__ not in ("Skipped", "Failed"):
                raise
            summary[engine] = {"skipped": str(exc)}
    summary["kiosk_first_sync"], summary["kiosk_incremental_sync"] = kiosk_side(args.kiosk_styles,
                                                                                 args.kiosk_changes)
    first = summary["kiosk_first_sync"]
    # The counter's figure: a new kiosk's first sync of the catalog (HQ serving from a process of its own).
    summary[f"first_sync_{args.kiosk_styles}_s"] = first["seconds"] if isinstance(first, dict) else None
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
