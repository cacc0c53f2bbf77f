"""Throughput of queued offline generations through the task engine (the engine half of the generation benchmark).

Run: .venv/bin/python benchmarks/generation_engine.py [--tasks 100] [--workers 1]

N STYLE_GENERATION tasks (offline provider, prompts cycling through a realistic list, one seed each so every
task renders a different style) are queued first, then drained by `--workers` threads calling `run_due` on one
engine (file-backed database at the engine's real settings, the real asset store). Each task parses its prompt,
renders five textures and a preview card, PNG-encodes them, stores them content-addressed and writes the style
with its assets in one transaction. Reported: tasks/s, mean wall time per task, and a check that every task
ended SUCCESS with exactly one style each. The machine is shared and noisy. The last line is JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PROMPTS = (
    "奶白色底胶、贝壳碎片、无名指跳色",
    "裸粉色法式，无名指跳色酒红猫眼",
    "french tips with gold glitter",
    "雾面焦糖色，细闪",
    "blue marble with silver foil",
    "晕染腮红，小雏菊",
    "chrome silver, almond shape",
    "黑色豹纹，短方圆",
    "pastel ombre with pearls",
    "酒红色猫眼，不要闪粉",
)


def measure_engine_throughput(n: int = 100, workers: int = 1) -> dict:
    """Queue `n` offline generations, drain them with `workers` threads; returns the figures as a dict."""
    previous_home = os.environ.get("NAILMIRROR_HOME")
    try:
        with tempfile.TemporaryDirectory(prefix="nm-genbench-") as home:
            os.environ["NAILMIRROR_HOME"] = home  # data_dir() and database_path() follow it
            return _measure_in_home(n, workers)
    finally:
        if previous_home is None:
            os.environ.pop("NAILMIRROR_HOME", None)
        else:
            os.environ["NAILMIRROR_HOME"] = previous_home


def _measure_in_home(n: int, workers: int) -> dict:
    from nailmirror_desktop.app.services import register_generation
    from nailmirror_desktop.core.generation.flow import submit_generation
    from nailmirror_desktop.core.generation.provider_config import ProviderConfig
    from nailmirror_desktop.core.paths import database_path
    from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine

    engine = TaskEngine(database_path(), config=EngineConfig(pending_limit_per_source=n + 1))
    register_generation(engine, ProviderConfig(), concurrency=workers)
    started = time.perf_counter()
    tasks = [submit_generation(engine, PROMPTS[i % len(PROMPTS)], "offline", seed=i) for i in range(n)]
    submit_s = time.perf_counter() - started

    started = time.perf_counter()
    threads = [threading.Thread(target=engine.run_due) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    engine.run_until_idle(timeout_s=60)  # anything a thread left (none expected)
    drain_s = time.perf_counter() - started

    finished = [engine.get(t.task_no) for t in tasks]
    succeeded = sum(1 for t in finished if t.status.value == "SUCCESS")
    engine.close()
    with sqlite3.connect(database_path()) as conn:
        styles = conn.execute(
            "SELECT COUNT(*), COUNT(DISTINCT origin_task_no) FROM style WHERE source = 'AI'").fetchone()
    return {
        "benchmark": "generation_engine_throughput",
        "tasks": n,
        "workers": workers,
        "cpu_count": os.cpu_count(),
        "submit_s": round(submit_s, 3),
        "drain_s": round(drain_s, 2),
        "tasks_per_s": round(n / drain_s, 2),
        "mean_s_per_task": round(drain_s / n, 3),
        "succeeded": succeeded,
        "styles": styles[0],
        "one_style_per_task": styles[0] == styles[1] == succeeded == n,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    figures = measure_engine_throughput(args.tasks, args.workers)
    print(f"{figures['tasks']} offline generations, {figures['workers']} worker(s): "
          f"{figures['tasks_per_s']} tasks/s, {figures['mean_s_per_task']} s per task, "
          f"{figures['succeeded']} SUCCESS, {figures['styles']} styles")
    print(json.dumps(figures))
    return 0 if figures["one_style_per_task"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
