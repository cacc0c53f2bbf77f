"""Reliability with real processes: kill -9 mid-task over many cycles, and two processes draining one
database. Workers are `tests/task_worker_proc.py` subprocesses; their handler follows the idempotent-write
pattern and logs every real execution."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nailmirror_desktop.core.clock import OffsetClock
from nailmirror_desktop.core.db import connect
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine, TaskStatus
from tests.support.task_worker_proc import ensure_business_tables

WORKER = Path(__file__).resolve().parents[2] / "support" / "task_worker_proc.py"

LEASE_S = 60.0


def queue_work(db: Path, count: int, max_attempts: int) -> list[str]:
    with TaskEngine(db, config=EngineConfig(pending_limit_per_source=None)) as engine:
        ensure_business_tables(engine.connection())
        return [engine.submit("WORK", {"value": f"v{i}"}, max_attempts=max_attempts).task_no for i in range(count)]


def worker_command(db: Path, *args: str) -> list[str]:
    return [sys.executable, str(WORKER), str(db), *args]


def assert_integrity(db: Path) -> None:
    conn = connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


@pytest.mark.slow
def test_kill_9_between_claim_and_complete_over_many_cycles(tmp_path):
    db = tmp_path / "crash.db"
    task_nos = queue_work(db, 40, max_attempts=30)
    kills = 0
    for cycle in range(60):
        proc = subprocess.run(worker_command(db, "--crash-prob", "0.08", "--seed", str(cycle)),
                              capture_output=True, text=True, timeout=60)
        if proc.returncode == -signal.SIGKILL:
            kills += 1
            # The dead worker's lease can only expire with time: look from a minute ahead.
            with TaskEngine(db, clock=OffsetClock(LEASE_S + 1), config=EngineConfig(lease_s=LEASE_S)) as sweeper:
                assert sweeper.recover_expired_leases() == 1
            continue
        assert proc.returncode == 0, proc.stderr[-2000:]
        break
    else:
        pytest.fail("the queue never drained")
    print(f"kills: {kills}")
    assert kills >= 3, "too few crashes to prove anything; change the seeds"

    conn = connect(db)
    statuses = dict(conn.execute("SELECT status, count(*) FROM task GROUP BY status").fetchall())
    assert statuses == {"SUCCESS": 40}  # every task ends in exactly one terminal state
    biz = dict(conn.execute("SELECT task_no, id FROM biz_row").fetchall())
    assert sorted(biz) == sorted(task_nos)  # one business row per task: none lost, none doubled
    for task_no, result in conn.execute("SELECT 'T' || printf('%016x', id), result_payload FROM task"):
        assert f'"biz_row_id":{biz[task_no]}' in result
    executions = conn.execute("SELECT count(*) FROM execution").fetchone()[0]
    assert executions == 40 + kills  # each kill cost exactly one re-run, of the task it interrupted
    expired = conn.execute("SELECT count(*) FROM task_event WHERE kind = 'LEASE_EXPIRED'").fetchone()[0]
    assert expired == kills
    conn.close()
    assert_integrity(db)


def start_waiting_worker(db: Path, go: Path) -> subprocess.Popen:
    proc = subprocess.Popen(worker_command(db, "--sleep-ms", "1", "--wait-for", str(go)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


@pytest.mark.slow
def test_two_processes_draining_one_database_never_run_a_task_twice(tmp_path):
    db = tmp_path / "two.db"
    task_nos = queue_work(db, 300, max_attempts=5)
    go = tmp_path / "go"
    workers = [start_waiting_worker(db, go) for _ in range(2)]
    go.touch()
    for proc in workers:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err[-2000:]

    conn = connect(db)
    runs = conn.execute("SELECT task_no, count(*), count(DISTINCT pid) FROM execution GROUP BY task_no").fetchall()
    assert len(runs) == 300 and all(count == 1 for _, count, _ in runs)  # zero duplicate executions
    pids = conn.execute("SELECT pid, count(*) FROM execution GROUP BY pid").fetchall()
    assert len(pids) == 2 and all(n > 0 for _, n in pids), pids  # both really drained
    assert conn.execute("SELECT count(*) FROM task WHERE status = 'SUCCESS'").fetchone()[0] == 300
    assert sorted(r[0] for r in conn.execute("SELECT task_no FROM biz_row")) == sorted(task_nos)
    conn.close()
    assert_integrity(db)


def test_a_killed_worker_mid_handler_is_recovered_by_the_next_start(tmp_path):
    """The kiosk case: the app dies (kill -9) while a handler runs; the next start sees that the lease's owner is
    gone (its owner lock is free), returns the task to PENDING at once — no waiting out the 60 s lease — and it
    completes with one more attempt."""
    db = tmp_path / "restart.db"
    (task_no,) = queue_work(db, 1, max_attempts=3)
    proc = subprocess.run(worker_command(db, "--crash-prob", "1.0"), capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL
    with TaskEngine(db) as later:
        assert later.get(task_no).status is TaskStatus.PROCESSING
        ensure_business_tables(later.connection())
        later.register_handler("WORK", lambda ctx: {"recovered": True})
        later.run_until_idle(timeout_s=10)
        done = later.get(task_no)
        assert done.status is TaskStatus.SUCCESS and done.attempt_count == 2
        assert [h.kind for h in later.history(task_no)] == ["LEASE_EXPIRED"]
        assert "its process ended" in later.history(task_no)[0].error_message
    assert_integrity(db)
