"""benchmarks/sync.py runs end to end at toy size and prints its JSON summary (no speed asserted here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_sync_benchmark_prints_its_summary(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "sync.py"), "--rows", "2000", "--stores", "20", "--seconds",
         "0.5", "--samples", "5", "--engines", "sqlite", "--kiosk-styles", "3", "--kiosk-changes", "2"],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    entry = summary["sqlite"]["2000"]
    for key in ("poll_0_changes_ms_median", "poll_0_changes_ms_p95", "poll_200_changes_ms_median",
                "poll_200_changes_ms_p95"):
        assert isinstance(entry[key], float) and entry[key] > 0, key
    assert entry["many_stores"]["stores"] == 20 and entry["many_stores"]["requests_per_s"] > 0
    # The cursor query is an index seek on (channel, seq): what keeps a poll flat in the feed's size.
    assert entry["feed_plan"].startswith("SEARCH catalog_change USING INDEX") and "seq>?" in entry["feed_plan"]
    assert entry["query_0_changes_ms_median"] > 0 and entry["load_average"] >= 0
    assert not list(tmp_path.glob("nm-bench-sync-*")), "the benchmark left its data behind"
    first, incremental = summary["kiosk_first_sync"], summary["kiosk_incremental_sync"]  # the kiosk's side
    assert first["styles"] == 3 and first["requests"] > 0 and first["seconds"] > 0
    assert summary["first_sync_3_s"] == first["seconds"]
    assert incremental["changes"] == 2 and incremental["requests"] > 0


def test_the_sync_benchmark_refuses_a_feed_too_small_for_a_page() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "sync.py"), "--rows", "10"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and "--rows" in done.stderr
