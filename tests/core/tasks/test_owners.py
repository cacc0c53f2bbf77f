"""A lease whose owner is provably dead is reclaimed at once; a live owner's lease keeps the time rules."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from nailmirror_desktop.core.db import connect
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine, TaskStatus
from nailmirror_desktop.core.tasks.owners import lock_path
from nailmirror_desktop.core.tasks.store import task_id_from_no
from tests.support.task_worker_proc import ensure_business_tables

WORKER = Path(__file__).resolve().parents[2] / "support" / "task_worker_proc.py"


def queue_one(db: Path) -> str:
    with TaskEngine(db, config=EngineConfig(pending_limit_per_source=None)) as engine:
        ensure_business_tables(engine.connection())
        return engine.submit("WORK", {"value": "v"}, max_attempts=3).task_no


def wait_for_status(db: Path, task_no: str, status: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    conn = connect(db)
    try:
        while time.monotonic() < deadline:
            row = conn.execute("SELECT status FROM task WHERE id = ?", (task_id_from_no(task_no),)).fetchone()
            if row[0] == status:
                return
            time.sleep(0.02)
    finally:
        conn.close()
    raise AssertionError(f"{task_no} never reached {status}")


def test_a_live_owner_in_another_process_keeps_its_lease_and_loses_it_when_killed(tmp_path):
    db = tmp_path / "owners.db"
    task_no = queue_one(db)
    worker = subprocess.Popen([sys.executable, str(WORKER), str(db), "--sleep-ms", "60000"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_status(db, task_no, "PROCESSING")
        with TaskEngine(db) as other:
            assert other.recover_expired_leases() == 0  # its owner lives: the time rules hold
            assert other.get(task_no).status is TaskStatus.PROCESSING
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=10)
            assert other.recover_expired_leases() == 1  # gone: at once, not after 60 s
            task = other.get(task_no)
            assert task.status is TaskStatus.PENDING and task.attempt_count == 1
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()


def test_two_engines_in_one_process_see_each_other_alive(tmp_path):
    db = tmp_path / "two.db"
    task_no = queue_one(db)
    holder = TaskEngine(db)
    holder.register_handler("WORK", lambda ctx: None)
    claim = holder.claim_next()
    assert claim is not None and claim.task_no == task_no
    with TaskEngine(db) as other:
        assert other.recover_expired_leases() == 0
    holder.close()  # a clean close lets go of the lock: its pid still lives, so the time rules apply
    assert not lock_path(db, holder.worker_id).exists()
    with TaskEngine(db) as other:
        assert other.recover_expired_leases() == 0
        assert other.get(task_no).status is TaskStatus.PROCESSING


def test_an_older_builds_lease_is_reclaimed_only_when_its_pid_is_gone(tmp_path):
    """An engine of an older build left no owner lock: its pid is the only proof of life."""
    db = tmp_path / "old.db"
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone_pid = int(done.stdout)
    for owner, reclaimed in ((f"{os.getpid()}:old", 0), (f"{gone_pid}:old", 1)):
        task_no = queue_one(db)
        conn = connect(db)
        conn.execute("UPDATE task SET status = 'PROCESSING', worker_id = ?, heartbeat_at = 0, attempt_count = 1"
                     " WHERE id = ?", (owner, task_id_from_no(task_no)))
        conn.close()
        with TaskEngine(db, config=EngineConfig(lease_s=1e12)) as other:  # no lease runs out by time
            assert other.recover_expired_leases() == reclaimed, owner
