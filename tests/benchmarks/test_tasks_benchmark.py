"""benchmarks/tasks.py runs end to end on a small queue and prints the JSON line the targets are read from.
(No speed is asserted here: speed targets are read from the benchmark's own output.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.qt  # the idle-latency part runs the Qt executor
def test_the_task_benchmark_prints_its_ratios_and_latency(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "tasks.py"), "--tasks", "400", "--rounds", "1",
         "--latency-samples", "5"],
        capture_output=True, text=True, timeout=300, env=env, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    for key in ("claim_complete_ratio_vs_huey", "claim_complete_4_ratio_vs_huey", "submit_ratio_vs_huey",
                "submit_deep_ratio_vs_huey", "claim_cost_ratio_100k", "idle_latency_ms_median", "idle_latency_ms_p95"):
        assert isinstance(summary[key], float) and summary[key] > 0, key
    assert summary["tasks"] == 400 and summary["idle_latency_samples"] == 5
    assert not list(tmp_path.glob("nm-bench-tasks-*")), "the benchmark left its databases behind"


def test_the_task_benchmark_refuses_a_count_the_four_workers_cannot_split():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "tasks.py"), "--tasks", "401"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and "multiple of 4" in done.stderr
