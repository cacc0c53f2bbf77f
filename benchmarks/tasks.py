"""Task engine throughput and latency, with huey's SqliteStorage as the reference in the same run.

Run: .venv/bin/python benchmarks/tasks.py [--tasks 20000] [--rounds 3] [--latency-samples 200]

Everything is file-backed with the same durability pragmas on both sides (WAL, synchronous=NORMAL; both with an
8 MB page cache and SQLite's default autocheckpoint) and every submit / claim / outcome is committed before anything
depends on it. Page sizes differ: the kiosk database is created with 1 KiB pages (core/db.py PAGE_SIZE, its real
setting), huey keeps SQLite's default 4 KiB (its SqliteStorage sets none). huey is used
exactly as its SqliteStorage is meant to be used — storage.enqueue(data) and storage.dequeue() — with only
synchronous=NORMAL added (its own choices are FULL or OFF). huey's dequeue deletes the row, so a crash loses the
task; the engine keeps leases, retries, history and backpressure.

What is measured (rates are wall-clock; CPU µs per op are printed too, because the machine is shared):
- submit: the engine at its default settings, backpressure on (200 unfinished per source). A queue at that limit
  refuses work, so both sides submit N tasks in bursts of 200 with an untimed drain between bursts (the same
  bursts for huey's enqueue). `submit_deep` also reports both queues filled N deep in one go, the engine with
  backpressure off (the check counts the source's unfinished rows, so it is not meant for 20,000-deep queues).
- claim+complete: N queued tasks drained by 1 and by 4 worker threads, engine and huey taking turns in slices of
  1,000 tasks (bench_drains), so a change in machine load mid-run hits both alike. A busy engine worker records one task's
  outcome and claims the next in the same transaction: each is committed before the next handler starts and
  before anyone could depend on it, so every task is still individually durable — one commit per task, as huey's
  dequeue is one commit per task. Nothing is batched across tasks.
- idle submit→start latency through the Qt executor.

Compare numbers only within one run; the last line is JSON.
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
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine  # noqa: E402

BURST = 200  # = EngineConfig().pending_limit_per_source
HUEY_MESSAGE = b"x" * 64  # a pickled no-op huey task message is about this size
DRAIN_SLICE = 1000  # tasks per alternating drain slice (bench_drains)


class Timed:
    """Wall seconds and CPU seconds (this process, all threads) of a block; `add` sums several blocks."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0

    def __enter__(self) -> Timed:
        self._wall0, self._cpu0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall += time.perf_counter() - self._wall0
        self.cpu += time.process_time() - self._cpu0

    def rates(self, n: int, prefix: str) -> dict[str, float]:
        return {f"{prefix}_per_s": n / self.wall, f"{prefix}_cpu_us": self.cpu / n * 1e6}


def drain_in_threads(workers: int, drain: Callable[[], int]) -> tuple[Timed, int]:
    """Run `drain` (returns how many tasks it ran) on `workers` threads at once; the timed block and the total.
    The engine and huey go through this same harness, so thread start-up costs both the same."""
    counts = [0] * workers

    def run(slot: int) -> None:
        counts[slot] = drain()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(workers)]
    with Timed() as timer:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return timer, sum(counts)


def _engine(db: Path, config: EngineConfig) -> TaskEngine:
    engine = TaskEngine(db, config=config)
    engine.register_handler("NOOP", lambda ctx: None)
    return engine


def _huey_storage(db: Path):
    from huey.storage import SqliteStorage

    class NormalSyncSqliteStorage(SqliteStorage):
        def _create_connection(self):
            conn = super()._create_connection()
            conn.execute("pragma synchronous=NORMAL")
            return conn

    return NormalSyncSqliteStorage(name="bench", filename=str(db))


def _huey_drain(storage) -> int:
    count = 0
    while storage.dequeue() is not None:
        count += 1
    return count


def bench_engine_submit(folder: Path, n: int) -> dict[str, float]:
    engine = _engine(folder / "engine_submit.db", EngineConfig())
    timer = Timed()
    for start in range(0, n, BURST):
        with timer:
            for i in range(start, min(n, start + BURST)):
                engine.submit("NOOP", {"i": i})
        engine.run_due()
    engine.close()
    return timer.rates(n, "submit")


def bench_huey_enqueue(folder: Path, n: int) -> dict[str, float]:
    storage = _huey_storage(folder / "huey_enqueue.db")
    timer = Timed()
    for start in range(0, n, BURST):
        with timer:
            for _ in range(start, min(n, start + BURST)):
                storage.enqueue(HUEY_MESSAGE)
        _huey_drain(storage)
    storage.close()
    return timer.rates(n, "huey_enqueue")


def bench_engine_submit_deep(folder: Path, n: int) -> dict[str, float]:
    engine = _engine(folder / "engine_submit_deep.db", EngineConfig(pending_limit_per_source=None))
    with Timed() as timer:
        for i in range(n):
            engine.submit("NOOP", {"i": i})
    engine.close()
    return timer.rates(n, "submit_deep")


def bench_huey_enqueue_deep(folder: Path, n: int) -> dict[str, float]:
    storage = _huey_storage(folder / "huey_enqueue_deep.db")
    with Timed() as timer:
        for _ in range(n):
            storage.enqueue(HUEY_MESSAGE)
    storage.close()
    return timer.rates(n, "huey_enqueue_deep")


def _filled_engine(db: Path, n: int, workers: int) -> TaskEngine:
    filler = _engine(db, EngineConfig(pending_limit_per_source=None))  # filling is not measured
    for i in range(n):
        filler.submit("NOOP", {"i": i})
    filler.close()
    engine = TaskEngine(db, config=EngineConfig())
    engine.register_handler("NOOP", lambda ctx: None, concurrency=workers)
    return engine


def _huey_take(storage, limit: int) -> int:
    count = 0
    while count < limit and storage.dequeue() is not None:
        count += 1
    return count


def bench_drains(folder: Path, n: int, workers: int) -> dict[str, float]:
    """Both queues filled n deep, then drained in alternating slices of DRAIN_SLICE tasks — engine, huey, huey,
    engine, … — each slice by `workers` threads. Load on a shared machine drifts over seconds; slices a few
    tens of milliseconds long, taken in turn, let both sides see the same drift."""
    engine = _filled_engine(folder / f"engine_drain_{workers}.db", n, workers)
    storage = _huey_storage(folder / f"huey_dequeue_{workers}.db")
    for _ in range(n):
        storage.enqueue(HUEY_MESSAGE)
    ours, theirs = Timed(), Timed()
    ran = taken = 0
    for index, start in enumerate(range(0, n, DRAIN_SLICE)):
        share = min(DRAIN_SLICE, n - start) // workers  # DRAIN_SLICE and n are multiples of the worker counts
        sides = [(ours, lambda: engine.run_due(max_tasks=share)), (theirs, lambda: _huey_take(storage, share))]
        for timer, drain in (sides if index % 2 == 0 else sides[::-1]):
            slice_timer, count = drain_in_threads(workers, drain)
            timer.wall += slice_timer.wall
            timer.cpu += slice_timer.cpu
            if timer is ours:
                ran += count
            else:
                taken += count
    done = engine.count("SUCCESS")
    engine.close()
    storage.close()
    if done != n or ran != n:
        raise SystemExit(f"engine drain lost work: {done} SUCCESS, {ran} runs of {n}")
    if taken != n:
        raise SystemExit(f"huey drain got {taken} of {n}")
    return {**ours.rates(n, f"claim_complete_{workers}"), **theirs.rates(n, f"huey_dequeue_{workers}")}


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


def one_round(folder: Path, n: int, index: int) -> dict[str, float]:
    """Each engine measurement next to its huey counterpart, the order alternating between rounds, so both see
    the same machine load."""
    pairs = [
        (bench_huey_enqueue, bench_engine_submit),
        (bench_huey_enqueue_deep, bench_engine_submit_deep),
    ]
    results: dict[str, float] = {}
    for pair in pairs:
        for bench in (pair if index % 2 == 0 else pair[::-1]):
            results.update(bench(folder, n))
    for workers in (1, 4):
        results.update(bench_drains(folder, n, workers))
    for path in folder.iterdir():
        path.unlink()
    return results


RATIOS = {  # ours / huey's, per round; the median over rounds is reported
    "submit_ratio_vs_huey": ("submit_per_s", "huey_enqueue_per_s"),
    "submit_deep_ratio_vs_huey": ("submit_deep_per_s", "huey_enqueue_deep_per_s"),
    "claim_complete_ratio_vs_huey": ("claim_complete_1_per_s", "huey_dequeue_1_per_s"),
    "claim_complete_4_ratio_vs_huey": ("claim_complete_4_per_s", "huey_dequeue_4_per_s"),
    # The same comparisons in CPU time per operation (huey's / ours, so above 1 is better as well).
    "submit_cpu_ratio_vs_huey": ("huey_enqueue_cpu_us", "submit_cpu_us"),
    "claim_complete_cpu_ratio_vs_huey": ("huey_dequeue_1_cpu_us", "claim_complete_1_cpu_us"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=1, help="repeat and report medians (noisy machines)")
    parser.add_argument("--latency-samples", type=int, default=200)
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args(argv)
    n = args.tasks
    if n <= 0 or n % 4:
        parser.error("--tasks must be a positive multiple of 4 (the 4-worker drain splits every slice evenly)")
    with tempfile.TemporaryDirectory(prefix="nm-bench-tasks-") as tmp:
        folder = Path(tmp)
        rounds = [one_round(folder, n, i) for i in range(args.rounds)]
        results = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
        latencies = [] if args.skip_latency else bench_idle_latency(folder, args.latency_samples)
    for key, value in results.items():
        print(f"{key:>30}: {value:10.1f}")
    ratios = {name: statistics.median(r[ours] / r[theirs] for r in rounds) for name, (ours, theirs) in RATIOS.items()}
    for key, value in ratios.items():
        print(f"{key:>34}: {value:.2f}x")
    print("claim+complete: each task's outcome and the next claim share one commit, so every task is committed "
          "on its own before the next handler starts (huey: one commit per dequeue, which deletes the task).")
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
