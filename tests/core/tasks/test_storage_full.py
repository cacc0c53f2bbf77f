"""A full disk under the task engine (issue #12, point 12): the worker survives, the outcome it could not write
is kept and written once space returns, the task is neither lost nor run twice, and the engine says it is full.

Two real ways to fill the disk: SQLite's `PRAGMA max_page_count` cap on the engine's connections (SQLite answers
SQLITE_FULL exactly as on a full disk; raising the cap is space coming back), and a small tmpfs filled with a
file (root only; skipped where mounting is not permitted)."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import uuid

import pytest

from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.tasks import EngineConfig, ErrorClass, TaskEngine, TaskError, TaskStatus
from tests.support.disk_full import fill_disk, free_disk

BIG = "x" * 200_000  # an outcome that needs new pages


@pytest.fixture
def clock():
    return ManualClock(1_800_000_000.0)


@pytest.fixture
def engine(tmp_path, clock):
    with TaskEngine(tmp_path / "full.db", clock=clock, config=EngineConfig(retry_base_s=1.0)) as eng:
        yield eng


def test_a_success_that_cannot_be_written_is_kept_and_written_when_space_returns(engine, clock):
    runs, statuses = [], []
    engine.register_handler("BIG", lambda ctx: runs.append(ctx.task_no) or {"blob": BIG})
    engine.add_listener(lambda task_no, status: statuses.append(status))
    task = engine.submit("BIG", {})
    fill_disk(engine)

    assert engine.run_due() == 1  # the worker is not killed by SQLITE_FULL
    assert engine.storage_full and engine.stats()["storage_full"] is True
    assert engine.stats()["outcomes_waiting"] == 1
    held = engine.get(task.task_no)
    assert held.status is TaskStatus.PROCESSING and held.worker_id == engine.worker_id

    for _ in range(5):  # still full: retried with backoff, the handler never runs again
        clock.advance(engine.seconds_until_next_work())
        assert engine.run_due() == 0
    assert engine.storage_full and runs == [task.task_no]

    free_disk(engine)  # space returns
    engine.run_until_idle(timeout_s=10)  # sleeps on the manual clock until the next try is due
    done = engine.get(task.task_no)
    assert done.status is TaskStatus.SUCCESS and done.result == {"blob": BIG}
    assert done.attempt_count == 1 and runs == [task.task_no]
    assert not engine.storage_full and engine.stats()["outcomes_waiting"] == 0
    assert statuses.count("SUCCESS") == 1
    assert [e.kind for e in engine.history(task.task_no)] == []  # no lease expired or lost


def test_while_the_disk_stays_full_the_outcome_is_tried_with_growing_backoff(engine, clock, caplog):
    engine.register_handler("BIG", lambda ctx: {"blob": BIG})
    engine.submit("BIG", {})
    fill_disk(engine)
    start = clock.now()
    with caplog.at_level(logging.INFO, logger="nailmirror_desktop.core.tasks"):
        engine.run_due()
        while clock.now() - start < 120:  # on the manual clock: two minutes of a full disk in a moment
            clock.advance(engine.seconds_until_next_work())
            engine.run_due()
    tries = [r for r in caplog.records if "still waiting for space" in r.getMessage()]
    # 0.5, 1, 2, 4, 8, 16, 30, 30, 30 s: a handful of tries in two minutes, not one per poll.
    assert 5 <= len(tries) <= 10, len(tries)
    assert engine.storage_full and engine.stats()["outcomes_waiting"] == 1


def test_a_failure_that_cannot_be_written_is_kept_too(engine, clock):
    def fail(ctx):
        raise TaskError("UPSTREAM_DOWN", "m" * 100_000, ErrorClass.TRANSIENT)

    engine.register_handler("FAIL", fail)
    task = engine.submit("FAIL", {})
    fill_disk(engine)
    engine.run_due()
    assert engine.storage_full and engine.get(task.task_no).status is TaskStatus.PROCESSING
    free_disk(engine)
    clock.advance(engine.seconds_until_next_work())
    engine.run_due()  # the base backoff (0.5 s) has passed: the kept failure goes in, nothing is claimed again yet
    failed = engine.get(task.task_no)
    assert failed.status is TaskStatus.FAILED and failed.last_error_code == "UPSTREAM_DOWN"
    assert failed.attempt_count == 1 and not engine.storage_full


def test_a_submit_on_a_full_disk_is_a_clear_retryable_error(engine):
    engine.register_handler("BIG", lambda ctx: None)
    fill_disk(engine)
    with pytest.raises(TaskError) as caught:
        engine.submit("BIG", {"pad": BIG})
    assert caught.value.code == "STORAGE_FULL" and caught.value.error_class is ErrorClass.TRANSIENT
    assert engine.storage_full and engine.count() == 0
    free_disk(engine)
    engine.submit("BIG", {"pad": BIG})
    assert not engine.storage_full


def _mount_small_tmpfs(folder):
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("needs root and mount(8) to make a small filesystem that fills")
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {done.stderr.decode(errors='replace').strip()}")


def _fill(folder) -> None:
    """Write a file until the filesystem has no byte left."""
    descriptor = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        for size in (1 << 16, 1):
            while True:
                try:
                    os.write(descriptor, b"\0" * size)
                except OSError:
                    break
    finally:
        os.close(descriptor)


def test_a_real_full_filesystem_keeps_the_worker_and_the_task(tmp_path, clock):
    mount = tmp_path / f"small-{uuid.uuid4().hex[:6]}"
    _mount_small_tmpfs(mount)
    try:
        runs = []
        with TaskEngine(mount / "tasks.db", clock=clock) as engine:
            def fill_then_finish(ctx):
                runs.append(1)
                _fill(mount)  # the disk fills while the handler runs: its outcome finds no room
                return {"blob": BIG}

            engine.register_handler("BIG", fill_then_finish)
            task = engine.submit("BIG", {})
            engine.run_due()  # must not raise
            assert engine.storage_full and engine.stats()["outcomes_waiting"] == 1
            assert engine.get(task.task_no).status is TaskStatus.PROCESSING
            other = pytest.raises(TaskError, engine.submit, "BIG", {"pad": BIG})
            assert other.value.code == "STORAGE_FULL"
            (mount / "filler").unlink()  # space returns
            engine.run_until_idle(timeout_s=10)
            done = engine.get(task.task_no)
            assert done.status is TaskStatus.SUCCESS and done.result == {"blob": BIG} and runs == [1]
            assert not engine.storage_full
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_claim_on_a_real_full_filesystem_waits_and_runs_once_space_returns(tmp_path, clock):
    mount = tmp_path / f"small-{uuid.uuid4().hex[:6]}"
    _mount_small_tmpfs(mount)
    try:
        runs = []
        with TaskEngine(mount / "tasks.db", clock=clock) as engine:
            engine.register_handler("SMALL", lambda ctx: runs.append(1) or {"ok": True})
            task = engine.submit("SMALL", {})
            _fill(mount)
            assert engine.run_due() == 0  # no room to claim: nothing runs, nothing is raised
            assert engine.storage_full and engine.get(task.task_no).status is TaskStatus.PENDING
            (mount / "filler").unlink()
            engine.run_until_idle(timeout_s=10)
            assert engine.get(task.task_no).status is TaskStatus.SUCCESS and runs == [1]
            assert not engine.storage_full
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
