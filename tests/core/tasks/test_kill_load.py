"""A bounded kill -9 load: 8 worker processes drain one database while they kill themselves at random points and
the test kills them from outside, a few hundred times, under a time cap. The database must come out whole: integrity
ok, every task in exactly one terminal state, none lost, none run more often than its lease recoveries allow, no
handler run that left no trace — and due work never waits long for a worker (the campaign saw due tasks sit
unclaimed for 82–188 s while every worker was idle)."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nailmirror_desktop.core.db import connect
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine
from tests.support.task_worker_proc import ensure_business_tables

WORKER = Path(__file__).resolve().parents[2] / "support" / "task_worker_proc.py"
TASKS = 600
WORKERS = 8
KILLS_FROM_OUTSIDE = 300
CAP_S = 240.0


@pytest.mark.soak
def test_eight_workers_under_kill_9_lose_nothing_and_run_nothing_twice(tmp_path):
    db = tmp_path / "load.db"
    with TaskEngine(db, config=EngineConfig(pending_limit_per_source=None)) as engine:
        ensure_business_tables(engine.connection())
        for i in range(TASKS):
            engine.submit("WORK", {"value": f"v{i}"}, max_attempts=1000)
    rng = random.Random(20)
    procs: list[subprocess.Popen[bytes] | None] = [None] * WORKERS
    starts = self_kills = outside_kills = 0
    longest_stall_s = 0.0  # the longest time due work existed and nothing finished
    last_unfinished, last_progress = TASKS, time.monotonic()
    watch = connect(db)
    started = time.monotonic()
    try:
        while True:
            for slot, proc in enumerate(procs):
                if proc is not None and proc.poll() is not None:
                    self_kills += proc.returncode == -signal.SIGKILL
                    assert proc.returncode in (0, -signal.SIGKILL), proc.stderr.read()[-2000:] if proc.stderr else ""
                    procs[slot] = None
                if procs[slot] is None:
                    starts += 1
                    procs[slot] = subprocess.Popen(
                        [sys.executable, str(WORKER), str(db), "--crash-prob", "0.02", "--seed", str(starts),
                         "--sleep-ms", "20", "--timeout-s", str(CAP_S)],
                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            # One kill from outside per two finished tasks (up to the budget): the count does not depend on how
            # fast this machine drains the queue, and each kill lands while work is under way.
            owed = min(KILLS_FROM_OUTSIDE, (TASKS - last_unfinished) // 2 + 1) - outside_kills
            alive = [slot for slot, proc in enumerate(procs) if proc is not None and proc.poll() is None]
            for slot in rng.sample(alive, min(max(owed, 0), len(alive))):
                victim = procs[slot]
                assert victim is not None
                victim.send_signal(signal.SIGKILL)
                victim.wait()
                procs[slot] = None
                outside_kills += 1
            unfinished = watch.execute("SELECT count(*) FROM task WHERE finished_at IS NULL").fetchone()[0]
            if unfinished < last_unfinished:
                last_unfinished, last_progress = unfinished, time.monotonic()
            longest_stall_s = max(longest_stall_s, time.monotonic() - last_progress)
            if unfinished == 0:
                break
            assert time.monotonic() - started < CAP_S, f"{unfinished} tasks still unfinished after {CAP_S} s"
            time.sleep(rng.uniform(0.01, 0.05))
    finally:
        for proc in procs:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        watch.close()
    elapsed = time.monotonic() - started
    kills = self_kills + outside_kills
    print(f"kill load: {TASKS} tasks, {kills} kills ({outside_kills} from outside), {starts} worker starts,"
          f" {elapsed:.1f} s, longest stall {longest_stall_s:.1f} s")
    assert kills >= 200

    conn = connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert dict(conn.execute("SELECT status, count(*) FROM task GROUP BY status").fetchall()) == {"SUCCESS": TASKS}
        tasks = {row[0] for row in conn.execute("SELECT 'T' || printf('%016x', id) FROM task")}
        biz = [row[0] for row in conn.execute("SELECT task_no FROM biz_row")]
        assert len(biz) == len(set(biz)) == TASKS and set(biz) == tasks  # none lost, none doubled
        runs = dict(conn.execute("SELECT task_no, count(*) FROM execution GROUP BY task_no").fetchall())
        assert set(runs) <= tasks, "a handler ran for a task the database does not hold"
        recovered = dict(conn.execute(
            "SELECT 'T' || printf('%016x', task_id), count(*) FROM task_event WHERE kind = 'LEASE_EXPIRED'"
            " GROUP BY task_id").fetchall())
        overrun = {t: (n, recovered.get(t, 0)) for t, n in runs.items() if n > 1 + recovered.get(t, 0)}
        assert not overrun, f"run more often than their lease recoveries allow: {list(overrun.items())[:5]}"
    finally:
        conn.close()
    # A dead worker's leases are reclaimed by the next start at once: the queue never stops for a dead process's
    # 60 s lease, only for a worker to start (interpreter start-up on a loaded 2-core machine).
    assert longest_stall_s < 20, f"nothing finished for {longest_stall_s:.1f} s while work was due"
