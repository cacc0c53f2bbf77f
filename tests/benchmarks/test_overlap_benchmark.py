"""benchmarks/overlap.py runs the live mirror with a nail extension on and reports it: the shape and length in its
JSON, nails extended beside nails painted, the paint stage's cost. (No speed is asserted here: the frame budget
is read from the benchmark's own output, on a machine that is not shared.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.qt
def test_the_overlap_benchmark_measures_the_live_mirror_with_extensions(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT),
           "MPLCONFIGDIR": str(tmp_path / "mpl")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "overlap.py"), "--hands", "2", "--repeats", "1",
         "--seconds", "1", "--view", "320x180", "--no-gil", "--no-kiosk", "--no-one-core",
         "--shape", "almond", "--length", "long"],
        capture_output=True, text=True, timeout=300, env=env, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert (summary["shape"], summary["length"]) == ("almond", "long")
    for config in ("one_stage_2_hands", "two_stage_2_hands"):
        run = summary["mirror"][config]
        assert (run["shape"], run["length"]) == ("almond", "long")
        assert run["frames_shown"] > 0 and run["composite_ms"] > 0
        assert 0 < summary["nails_extended_mean"][config] <= summary["nails_painted_mean"][config]
        tallies = run["painted_extended_by_finger"]
        assert tallies and all(0 <= extended <= painted for painted, extended in tallies.values())


def test_the_overlap_benchmark_refuses_an_unknown_length():
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "overlap.py"), "--length", "endless"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2 and "invalid choice: 'endless'" in done.stderr
