"""First start from two processes at once (issue #12, point 11): real processes, started together on a fresh data
directory, each loading the shipped starter catalog. Both must exit 0 and the catalog must be there exactly once."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
ROUNDS = 3

# Imports what it needs, says "ready", waits for the barrier file, then does what the kiosk's start-up job does
# (app.services): the two loaders start loading within a millisecond of each other.
LOADER = """
import os, sys, time
from pathlib import Path
from nailmirror_desktop.app.services import load_starter_catalog_in_own_connection
print("ready", flush=True)
barrier = Path(sys.argv[1])
deadline = time.monotonic() + 60
while not barrier.exists():
    if time.monotonic() > deadline:
        sys.exit(3)
    time.sleep(0.001)
load_starter_catalog_in_own_connection()
"""


def _start_loader(home: Path, barrier: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "NAILMIRROR_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", LOADER, str(barrier)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


@pytest.mark.slow  # real processes, three rounds
def test_two_processes_loading_the_catalog_together_both_succeed_and_load_it_once(tmp_path):
    expected = len(list((ROOT / "resources" / "starter_catalog").glob("*/style.json")))
    assert expected == 30
    for round_no in range(ROUNDS):
        home = tmp_path / f"round-{round_no}"
        home.mkdir()
        barrier = tmp_path / f"go-{round_no}"
        loaders = [_start_loader(home, barrier) for _ in range(2)]
        for loader in loaders:  # both interpreters up, imported, waiting on the barrier
            assert loader.stdout is not None
            line = loader.stdout.readline()
            assert line == "ready\n", line + loader.stdout.read()
        barrier.touch()
        outputs = [loader.communicate(timeout=240)[0] for loader in loaders]
        codes = [loader.returncode for loader in loaders]
        assert codes == [0, 0], f"round {round_no}: exit codes {codes}\n" + "\n---\n".join(outputs)
        conn = sqlite3.connect(home / "nailmirror.db")
        try:
            styles = conn.execute("SELECT count(*), count(DISTINCT client_uid), count(DISTINCT style_code)"
                                  " FROM style WHERE source = 'CATALOG'").fetchone()
            audits = conn.execute("SELECT action, count(*) FROM audit_log GROUP BY action ORDER BY action").fetchall()
            published = conn.execute("SELECT count(*) FROM style WHERE status = 'PUBLISHED' AND is_previewable = 1"
                                     ).fetchone()[0]
        finally:
            conn.close()
        assert styles == (expected, expected, expected), f"round {round_no}: {styles}"
        assert audits == [("APPROVE", expected), ("CREATE", expected), ("SUBMIT", expected)]
        assert published == expected
