"""Task engine throughput and latency, with huey's SqliteStorage as the reference in the same run.

Run: .venv/bin/python benchmarks/tasks.py [--tasks 20000] [--latency-samples 200]

Everything is file-backed at the engine's real settings (WAL, synchronous=NORMAL, busy timeout) and every
submit / claim / complete is its own committed transaction — nothing is batched. huey gets the same WAL +
synchronous=NORMAL (its default would be FULL, which would flatter us). huey's dequeue deletes the row, so a
crash loses the task; the engine keeps leases, retries, history and backpressure. The machine is shared and
noisy: compare numbers only within one run. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine  # noqa: E402


def _config(n: int) -> EngineConfig:
    # The backpressure check stays in the submit statement; the limit is only raised above the batch size.
    return EngineConfig(pending_limit_per_source=n + 1)


def bench_engine_submit(folder: Path, n: int) -> tuple[float, Path]:
    db = folder / "engine_submit.db"
    engine = TaskEngine(db, config=_config(n))
    start = time.perf_counter()
    for i in range(n):
        engine.submit("NOOP", {"i": i})
    elapsed = time.perf_counter() - start
    engine.close()
    return n / elapsed, db


def _fill(db: Path, n: int) -> None:
    engine = TaskEngine(db, config=_config(n))
    for i in range(n):
        engine.submit("NOOP", {"i": i})
    engine.close()


def bench_engine_drain(folder: Path, n: int, workers: int) -> float:
    db = folder / f"engine_drain_{workers}.db"
    _fill(db, n)
    engine = TaskEngine(db, config=_config(n))
    engine.register_handler("NOOP", lambda ctx: None, concurrency=workers)
    counts = [0] * workers

    def drain(slot: int) -> None:
        counts[slot] = engine.run_due()

    threads = [threading.Thread(target=drain, args=(i,)) for i in range(workers)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    done = engine.count("SUCCESS")
    engine.close()
    if done != n or sum(counts) != n:
        raise SystemExit(f"engine drain lost work: {done} SUCCESS, {sum(counts)} runs of {n}")
    return n / elapsed


def _huey_storage(db: Path):
    from huey.storage import SqliteStorage

    class NormalSyncSqliteStorage(SqliteStorage):
        def _create_connection(self):
            conn = super()._create_connection()
            conn.execute("pragma synchronous=NORMAL")
            return conn

    return NormalSyncSqliteStorage(name="bench", filename=str(db))


def bench_huey_enqueue(folder: Path, n: int) -> float:
    storage = _huey_storage(folder / "huey_enqueue.db")
    payload = b"x" * 64  # a pickled no-op task message is about this size
    start = time.perf_counter()
    for _ in range(n):
        storage.enqueue(payload)
    elapsed = time.perf_counter() - start
    storage.close()
    return n / elapsed


def bench_huey_dequeue(folder: Path, n: int, workers: int) -> float:
    db = folder / f"huey_dequeue_{workers}.db"
    storage = _huey_storage(db)
    for _ in range(n):
        storage.enqueue(b"x" * 64)
    counts = [0] * workers

    def drain(slot: int) -> None:
        while storage.dequeue() is not None:
            counts[slot] += 1

    threads = [threading.Thread(target=drain, args=(i,)) for i in range(workers)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    storage.close()
    if sum(counts) != n:
        raise SystemExit(f"huey drain got {sum(counts)} of {n}")
    return n / elapsed


def bench_idle_latency(folder: Path, samples: int) -> list[float]:
    """submit → handler start through the Qt executor, the queue idle before each submit (ms)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    from nailmirror_desktop.ui.task_executor import TaskExecutor

    app = QCoreApplication.instance() or QCoreApplication([])
    engine = TaskEngine(folder / "latency.db")
    started: dict[str, float] = {}
    engine.register_handler("NOOP", lambda ctx: started.__setitem__(ctx.task.task_no, time.perf_counter()))
    executor = TaskExecutor(engine, max_threads=2)
    executor.start()
    latencies = []
    for _ in range(samples):
        loop = QEventLoop()
        QTimer.singleShot(20, loop.quit)  # let the pool go idle between samples
        loop.exec()
        t0 = time.perf_counter()
        task = executor.submit("NOOP", {})
        deadline = time.monotonic() + 5
        while task.task_no not in started and time.monotonic() < deadline:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 1)
            time.sleep(0.0002)
        if task.task_no in started:
            latencies.append((started[task.task_no] - t0) * 1000)
    executor.shutdown(wait_s=5)
    engine.close()
    return latencies


def one_round(folder: Path, n: int) -> dict[str, float]:
    """Each engine measurement right after its huey counterpart, so both see the same machine load."""
    results: dict[str, float] = {}
    results["huey_enqueue_per_s"] = bench_huey_enqueue(folder, n)
    results["submit_per_s"], _ = bench_engine_submit(folder, n)
    results["huey_dequeue_1_per_s"] = bench_huey_dequeue(folder, n, 1)
    results["claim_complete_1_per_s"] = bench_engine_drain(folder, n, 1)
    results["huey_dequeue_4_per_s"] = bench_huey_dequeue(folder, n, 4)
    results["claim_complete_4_per_s"] = bench_engine_drain(folder, n, 4)
    for path in folder.iterdir():
        path.unlink()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=1, help="repeat and report medians (noisy machines)")
    parser.add_argument("--latency-samples", type=int, default=200)
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args(argv)
    n = args.tasks
    with tempfile.TemporaryDirectory(prefix="nm-bench-tasks-") as tmp:
        folder = Path(tmp)
        rounds = [one_round(folder, n) for _ in range(args.rounds)]
        results = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
        latencies = [] if args.skip_latency else bench_idle_latency(folder, args.latency_samples)
    for key, value in results.items():
        print(f"{key:>26}: {value:10.0f}")
    ratios = {  # medians of the per-round ratios
        "submit_ratio_vs_huey": statistics.median(
            r["submit_per_s"] / r["huey_enqueue_per_s"] for r in rounds),
        "claim_complete_ratio_vs_huey": statistics.median(
            r["claim_complete_1_per_s"] / r["huey_dequeue_1_per_s"] for r in rounds),
        "claim_complete_4_ratio_vs_huey": statistics.median(
            r["claim_complete_4_per_s"] / r["huey_dequeue_4_per_s"] for r in rounds),
    }
    for key, value in ratios.items():
        print(f"{key:>32}: {value:.2f}x")
    summary = {
        "tasks": n,
        "rounds": args.rounds,
        **{k: round(v, 1) for k, v in results.items()},
        **{k: round(v, 3) for k, v in ratios.items()},
    }
    if latencies:
        ordered = sorted(latencies)
        summary["idle_latency_ms_median"] = round(statistics.median(ordered), 3)
        summary["idle_latency_ms_p95"] = round(ordered[int(0.95 * (len(ordered) - 1))], 3)
        summary["idle_latency_samples"] = len(ordered)
        print(f"idle submit→start: median {summary['idle_latency_ms_median']} ms, "
              f"p95 {summary['idle_latency_ms_p95']} ms over {len(ordered)} samples")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
