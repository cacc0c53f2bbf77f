"""benchmarks/kiosk_sync.py runs end to end at toy size and prints its JSON summary (no speed asserted here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_kiosk_sync_benchmark_prints_its_summary(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "kiosk_sync.py"), "--styles", "4",
                           "--changes", "2"], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    first, incremental = summary["kiosk_first_sync"], summary["kiosk_incremental_sync"]
    assert summary["first_sync_4_s"] == first["seconds"] > 0
    assert first["blobs_fetched"] == 12 and first["requests"] > 12 and first["bytes_down"] > 0
    assert incremental["blobs_fetched"] == 3 and 0 < incremental["requests"] < first["requests"]
    assert not list(tmp_path.glob("nm-kiosk-sync-bench-*")), "the benchmark left its data behind"
