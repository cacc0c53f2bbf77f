"""Task engine throughput and latency, with huey's SqliteStorage as the reference in the same run.

Run: .venv/bin/python benchmarks/tasks.py [--tasks 20000] [--rounds 3] [--latency-samples 200]   (defaults shown)

Everything is file-backed with the same durability pragmas on both sides (WAL, synchronous=NORMAL; both with an
8 MB page cache, SQLite's default 4 KiB pages and its default autocheckpoint) and every submit / claim / outcome
is committed before anything depends on it. huey is used exactly as its SqliteStorage is meant to be used —
storage.enqueue(data) and storage.dequeue() — with only synchronous=NORMAL added (its own choices are FULL or OFF).
huey's dequeue deletes the row, so a crash loses the task; the engine keeps leases, retries, history and
backpressure, and its rows and statements carry them. huey is a yardstick, not a budget: what the kiosk needs
is the claim's cost flat as finished rows pile up and an idle submit→start well inside a frame (a customer's
tap starts its task at once); a queue that runs a few generations a minute needs no more throughput.

What is measured (rates are wall-clock; CPU µs per op are printed too, because the machine is shared):
Engine and huey take turns throughout, in slices of tens of milliseconds (engine, huey, huey, engine, …; see
_in_turns): load on a shared machine drifts over seconds, and taking turns lets both sides see the same drift.
- submit: the engine at its default settings, backpressure on (200 unfinished per source). A queue at that limit
  refuses work, so both sides submit N tasks in bursts of 200 with an untimed drain after each pair of bursts.
  `submit_deep` also reports both queues filled N deep (slices of 1,000), the engine with backpressure off (the
  check counts the source's unfinished rows, so it is not meant for 20,000-deep queues).
- claim+complete: N queued tasks drained by 1 and by 4 worker threads, in slices of 1,000 tasks. The engine
  commits each claim and each outcome on its own (two commits per task; huey's dequeue is one and keeps no
  lease). Nothing is batched across tasks.
- claim cost: claim+complete on a table with 100,000 finished rows, in turns with the same on an empty table
  (`claim_cost_ratio_100k`: the first's time per task over the second's; flat means about 1).
- idle submit→start latency through the Qt executor.

Compare numbers only within one run; the last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine  # noqa: E402

BURST = 200  # = EngineConfig().pending_limit_per_source
HUEY_MESSAGE = b"x" * 64  # a pickled no-op huey task message is about this size
DRAIN_SLICE = 1000  # tasks per alternating drain slice (bench_drains)


class Timed:
    """Wall seconds and CPU seconds (this process, all threads) of a block; entered again, it adds the next block."""

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


def drain_in_threads(workers: int, drain: Callable[[], int]) -> int:
    """Run `drain` (returns how many tasks it ran) on `workers` threads at once; the total. The engine and huey go
    through this same harness, so thread start-up costs both the same."""
    counts = [0] * workers

    def run(slot: int) -> None:
        counts[slot] = drain()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts)


def _engine(db: Path, config: EngineConfig, concurrency: int = 1) -> TaskEngine:
    engine = TaskEngine(db, config=config)
    engine.register_handler("NOOP", lambda ctx: None, concurrency=concurrency)
    return engine


def _submit_range(engine: TaskEngine, start: int, stop: int) -> None:
    for i in range(start, stop):
        engine.submit("NOOP", {"i": i})


def _enqueue_range(storage, start: int, stop: int) -> None:
    for _ in range(start, stop):
        storage.enqueue(HUEY_MESSAGE)


# --huey-page-size: None = huey's own choice (it sets none, so SQLite's 4 KiB). Set once by main().
huey_page_size: int | None = None


def _huey_storage(db: Path):
    from huey.storage import SqliteStorage

    if huey_page_size is not None and not db.exists():
        # A page size holds only if set before the file has content, i.e. before huey switches it to WAL.
        first = sqlite3.connect(db)
        first.execute(f"pragma page_size = {huey_page_size}")
        first.execute("pragma journal_mode = wal")
        first.close()

    class NormalSyncSqliteStorage(SqliteStorage):
        def _create_connection(self):
            conn = super()._create_connection()
            conn.execute("pragma synchronous=NORMAL")
            return conn

    return NormalSyncSqliteStorage(name="bench", filename=str(db))


def _huey_take(storage, limit: float = float("inf")) -> int:
    """Dequeue up to `limit` tasks (default: until the queue is empty); how many were taken."""
    count = 0
    while count < limit and storage.dequeue() is not None:
        count += 1
    return count


def _in_turns(n: int, size: int, engine_slice: Callable[[int, int], None], huey_slice: Callable[[int, int], None],
              ours: Timed, theirs: Timed, between: Callable[[], None] = lambda: None) -> None:
    """Run both sides over [0, n) in alternating slices of `size` — engine, huey, huey, engine, … — timing each
    slice into its side's timer and calling `between` (untimed) after each pair. Load on a shared machine drifts
    over seconds; slices tens of milliseconds long, taken in turn, let both sides see the same drift."""
    for index, start in enumerate(range(0, n, size)):
        stop = min(n, start + size)
        sides = [(ours, engine_slice), (theirs, huey_slice)]
        for timer, run in (sides if index % 2 == 0 else sides[::-1]):
            with timer:
                run(start, stop)
        between()


def bench_submits(folder: Path, n: int) -> dict[str, float]:
    """The engine at its default settings (backpressure on) and huey's enqueue, in alternating bursts of BURST
    with both queues drained, untimed, after each pair of bursts."""
    engine = _engine(folder / "engine_submit.db", EngineConfig())
    storage = _huey_storage(folder / "huey_enqueue.db")
    ours, theirs = Timed(), Timed()

    def drain_both() -> None:
        engine.run_due()
        _huey_take(storage)

    _in_turns(n, BURST, partial(_submit_range, engine), partial(_enqueue_range, storage), ours, theirs, drain_both)
    engine.close()
    storage.close()
    return {**ours.rates(n, "submit"), **theirs.rates(n, "huey_enqueue")}


def bench_submits_deep(folder: Path, n: int) -> dict[str, float]:
    """Both queues filled n deep (the engine with backpressure off), in alternating slices of DRAIN_SLICE."""
    engine = _engine(folder / "engine_submit_deep.db", EngineConfig(pending_limit_per_source=None))
    storage = _huey_storage(folder / "huey_enqueue_deep.db")
    ours, theirs = Timed(), Timed()
    _in_turns(n, DRAIN_SLICE, partial(_submit_range, engine), partial(_enqueue_range, storage), ours, theirs)
    engine.close()
    storage.close()
    return {**ours.rates(n, "submit_deep"), **theirs.rates(n, "huey_enqueue_deep")}


def _filled_engine(db: Path, n: int, workers: int) -> TaskEngine:
    filler = _engine(db, EngineConfig(pending_limit_per_source=None))  # filling is not measured
    _submit_range(filler, 0, n)
    filler.close()
    return _engine(db, EngineConfig(), concurrency=workers)


def bench_drains(folder: Path, n: int, workers: int) -> dict[str, float]:
    """Both queues filled n deep (untimed), then drained in turns (_in_turns) in slices of DRAIN_SLICE tasks,
    each slice by `workers` threads."""
    engine = _filled_engine(folder / f"engine_drain_{workers}.db", n, workers)
    storage = _huey_storage(folder / f"huey_dequeue_{workers}.db")
    _enqueue_range(storage, 0, n)
    ours, theirs = Timed(), Timed()
    counted = {"engine": 0, "huey": 0}

    def slice_of(side: str, drain: Callable[[int], int]) -> Callable[[int, int], None]:
        def run(start: int, stop: int) -> None:
            share = (stop - start) // workers  # n and DRAIN_SLICE are multiples of the worker counts
            counted[side] += drain_in_threads(workers, lambda: drain(share))
        return run

    _in_turns(n, DRAIN_SLICE, slice_of("engine", lambda share: engine.run_due(max_tasks=share)),
              slice_of("huey", lambda share: _huey_take(storage, share)), ours, theirs)
    done = engine.count("SUCCESS")
    engine.close()
    storage.close()
    if done != n or counted["engine"] != n:
        raise SystemExit(f"engine drain lost work: {done} SUCCESS, {counted['engine']} runs of {n}")
    if counted["huey"] != n:
        raise SystemExit(f"huey drain got {counted['huey']} of {n}")
    return {**ours.rates(n, f"claim_complete_{workers}"), **theirs.rates(n, f"huey_dequeue_{workers}")}


def bench_idle_latency(folder: Path, samples: int) -> list[float]:
    """submit → handler start through the Qt executor, the queue idle before each submit (ms)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    from nailmirror_desktop.ui.generation.task_executor import TaskExecutor

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


FINISHED_ROWS = 100_000  # bench_claim_cost_flat


def _add_finished_rows(db: Path, count: int) -> None:
    """`count` finished rows (SUCCESS, every tenth an open dead letter) older than anything queued later."""
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(
            """WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
               INSERT INTO task (task_type, status, scheduled_time, available_at, max_attempts, request_payload,
                                 created_at, updated_at, finished_at, attempt_count, dead_letter_state)
               SELECT 'NOOP', CASE WHEN i % 10 = 0 THEN 'DEAD' ELSE 'SUCCESS' END, i, i, 5, '{}', i, i, i, 1,
                      CASE WHEN i % 10 = 0 THEN 'OPEN' END
               FROM n""", (count,))
    conn.close()


def bench_claim_cost_flat(folder: Path, n: int) -> dict[str, float]:
    """Claim+complete on a table holding FINISHED_ROWS finished rows and on an empty one, n tasks each, in turns
    (_in_turns): the claim reads the partial index of unfinished rows only, so the cost should not grow."""
    empty = _engine(folder / "claim_empty.db", EngineConfig())
    full_db = folder / "claim_full.db"
    _engine(full_db, EngineConfig()).close()  # create the schema
    _add_finished_rows(full_db, FINISHED_ROWS)
    full = _engine(full_db, EngineConfig())
    for engine in (empty, full):
        filler = _engine(engine.db_path, EngineConfig(pending_limit_per_source=None))
        _submit_range(filler, 0, n)
        filler.close()
    on_empty, on_full = Timed(), Timed()
    def drain_slice(engine: TaskEngine) -> Callable[[int, int], None]:
        def run(start: int, stop: int) -> None:
            engine.run_due(max_tasks=stop - start)
        return run

    _in_turns(n, DRAIN_SLICE, drain_slice(empty), drain_slice(full), on_empty, on_full)
    if empty.count("SUCCESS") != n or full.count("SUCCESS") != n + FINISHED_ROWS * 9 // 10:
        raise SystemExit("claim cost benchmark lost work")
    empty.close()
    full.close()
    return {**on_empty.rates(n, "claim_complete_empty"), **on_full.rates(n, "claim_complete_100k")}


def one_round(folder: Path, n: int) -> dict[str, float]:
    """Every engine measurement taken in turns with its huey counterpart (see _in_turns and bench_drains), and
    the claim on a table with many finished rows in turns with one on an empty table."""
    results: dict[str, float] = {}
    results.update(bench_submits(folder, n))
    results.update(bench_submits_deep(folder, n))
    for workers in (1, 4):
        results.update(bench_drains(folder, n, workers))
    results.update(bench_claim_cost_flat(folder, min(n, 4000)))
    for path in folder.iterdir():
        shutil.rmtree(path) if path.is_dir() else path.unlink()  # the engines' owner-lock folders too
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
# The flat-cost check: time per claim+complete with FINISHED_ROWS finished rows over an empty table's (about 1).
COST_RATIOS = {"claim_cost_ratio_100k": ("claim_complete_empty_per_s", "claim_complete_100k_per_s")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3, help="repeat and report medians (default 3: about a minute)")
    parser.add_argument("--latency-samples", type=int, default=200)
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--huey-page-size", type=int, choices=(1024, 4096), default=None,
                        help="give huey's database this page size too (default: huey's own, SQLite's 4 KiB)")
    args = parser.parse_args(argv)
    global huey_page_size
    huey_page_size = args.huey_page_size
    n = args.tasks
    if n <= 0 or n % 4:
        parser.error("--tasks must be a positive multiple of 4 (the 4-worker drain splits every slice evenly)")
    with tempfile.TemporaryDirectory(prefix="nm-bench-tasks-") as tmp:
        folder = Path(tmp)
        rounds = [one_round(folder, n) for _ in range(args.rounds)]
        results = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
        latencies = [] if args.skip_latency else bench_idle_latency(folder, args.latency_samples)
    for key, value in results.items():
        print(f"{key:>30}: {value:10.1f}")
    ratios = {name: statistics.median(r[ours] / r[theirs] for r in rounds)
              for name, (ours, theirs) in (RATIOS | COST_RATIOS).items()}
    for key, value in ratios.items():
        print(f"{key:>34}: {value:.2f}x")
    print("claim+complete: each task's outcome and the next claim share one commit, so every task is committed "
          "on its own before the next handler starts (huey: one commit per dequeue, which deletes the task).")
    summary = {
        "tasks": n,
        "rounds": args.rounds,
        "huey_page_size": huey_page_size or 4096,
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
