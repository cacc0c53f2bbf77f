"""The Qt edge: the bridge and the QThreadPool executor, waiting on real signals (offscreen)."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QCoreApplication, QThread, QThreadPool  # noqa: E402

from nailmirror_desktop.core.clock import OffsetClock  # noqa: E402
from nailmirror_desktop.core.tasks import EngineConfig, ErrorClass, TaskEngine, TaskError, TaskStatus  # noqa: E402
from nailmirror_desktop.ui import bridge  # noqa: E402
from nailmirror_desktop.ui.generation.task_executor import TaskExecutor  # noqa: E402
from tests.support.disk_full import fill_disk, free_disk  # noqa: E402

HOUR_POLL = 3600.0  # so nothing below can be explained by polling


def on_main_thread() -> bool:
    return QThread.currentThread() is QCoreApplication.instance().thread()


@pytest.fixture
def engine(tmp_path):
    config = EngineConfig(heartbeat_interval_s=0.05, pending_limit_per_source=1000)
    with TaskEngine(tmp_path / "exec.db", config=config) as eng:
        yield eng


@pytest.fixture
def executor(qtbot, engine):
    made = []

    def make(**options):
        ex = TaskExecutor(engine, poll_interval_s=HOUR_POLL, **options)
        made.append(ex)
        return ex

    yield make
    for ex in made:
        ex.shutdown(wait_s=5)


def test_bridge_delivers_result_and_error_on_the_main_thread(qtbot):
    got = []
    worker_threads = []

    def work():
        worker_threads.append(threading.get_ident())
        return 42

    bridge.run_in_background(work, lambda result, error: got.append((result, error, on_main_thread())))
    bridge.run_in_background(lambda: 1 / 0, lambda result, error: got.append((result, error, on_main_thread())))
    qtbot.waitUntil(lambda: len(got) == 2, timeout=5000)
    by_result = sorted(got, key=lambda g: g[1] is not None)
    assert by_result[0] == (42, None, True)
    assert by_result[1][0] is None and isinstance(by_result[1][1], ZeroDivisionError) and by_result[1][2]
    assert worker_threads[0] != threading.get_ident()


def test_a_closed_channel_drops_what_is_still_on_its_way(qtbot):
    """An owner that shut down gets no late answers: the bridge drops them, the owner checks nothing."""
    channel = bridge.Channel()
    release = threading.Event()
    got = []
    channel.run_in_background(lambda: release.wait(5), lambda result, error: got.append("late result"))
    channel.post(lambda: got.append("late post"))  # queued for the main thread, not run yet
    channel.close()
    release.set()
    QThreadPool.globalInstance().waitForDone(5000)
    still_open = bridge.Channel()
    still_open.post(lambda: got.append("open channel"))  # queued after the others: they came first, if at all
    qtbot.waitUntil(lambda: "open channel" in got, timeout=5000)
    assert got == ["open channel"]


def test_a_restarted_executor_reports_again(qtbot, engine, executor):
    engine.register_handler("T", lambda ctx: {"ok": 1})
    ex = executor()
    ex.start()
    ex.shutdown(wait_s=5)
    seen = []
    ex.task_changed.connect(lambda no, status: seen.append((no, status)))
    ex.start()
    task = ex.submit("T", {})
    qtbot.waitUntil(lambda: (task.task_no, "SUCCESS") in seen, timeout=5000)


def test_signals_arrive_on_the_main_thread_and_handlers_run_off_it(qtbot, engine, executor):
    handler_threads = []
    engine.register_handler("T", lambda ctx: handler_threads.append(threading.get_ident()) or {"ok": 1})
    ex = executor()
    seen = []
    ex.task_changed.connect(lambda no, status: seen.append((no, status, on_main_thread())))
    ex.start()
    task = ex.submit("T", {})
    qtbot.waitUntil(lambda: (task.task_no, "SUCCESS", True) in seen, timeout=5000)
    assert [s for no, s, _ in seen if no == task.task_no] == ["PENDING", "PROCESSING", "SUCCESS"]
    assert all(main for _, _, main in seen)
    assert handler_threads and handler_threads[0] != threading.get_ident()


def test_a_submit_wakes_a_worker_without_polling(qtbot, engine, executor):
    started = threading.Event()
    engine.register_handler("T", lambda ctx: started.set())
    ex = executor()
    ex.start()
    qtbot.wait(50)  # idle: nothing queued, the hourly poll is far away
    ex.submit("T", {})
    qtbot.waitUntil(started.is_set, timeout=3000)


def test_tasks_submitted_directly_to_the_engine_also_wake_it(qtbot, engine, executor):
    engine.register_handler("T", lambda ctx: None)
    ex = executor()
    ex.start()
    task = engine.submit("T", {})  # e.g. by a controller holding only the engine
    qtbot.waitUntil(lambda: engine.get(task.task_no).status is TaskStatus.SUCCESS, timeout=3000)


def test_a_scheduled_retry_runs_without_polling(qtbot, engine, executor):
    calls = []

    def flaky(ctx):
        calls.append(1)
        if len(calls) == 1:
            raise TaskError("UPSTREAM_500", "once", ErrorClass.TRANSIENT, retry_after_s=0.05)
        return None

    engine.register_handler("T", flaky)
    ex = executor()
    ex.start()
    task = ex.submit("T", {})
    qtbot.waitUntil(lambda: engine.get(task.task_no).status is TaskStatus.SUCCESS, timeout=5000)
    assert len(calls) == 2


def test_progress_signal(qtbot, engine, executor):
    engine.register_handler("T", lambda ctx: ctx.report_progress(0.25, "uploading") and None)
    ex = executor()
    got = []
    ex.task_progress.connect(lambda no, fraction, note: got.append((fraction, note, on_main_thread())))
    ex.start()
    ex.submit("T", {})
    qtbot.waitUntil(lambda: bool(got), timeout=3000)
    assert got[0] == (0.25, "uploading", True)


def test_concurrency_limits_hold_on_the_pool(qtbot, engine, executor):
    lock = threading.Lock()
    running, peak, done = [0], [0], []

    def work(ctx):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        threading.Event().wait(0.05)
        with lock:
            running[0] -= 1
            done.append(1)

    engine.register_handler("T", work, concurrency=2)
    ex = executor(max_threads=4)
    ex.start()
    for _ in range(6):
        ex.submit("T", {})
    qtbot.waitUntil(lambda: len(done) == 6, timeout=10000)
    assert peak[0] == 2


def test_shutdown_stops_claiming_and_leaves_running_work_recoverable(qtbot, engine, executor, tmp_path):
    release = threading.Event()
    entered = threading.Event()

    def stuck(ctx):
        entered.set()
        release.wait(10)
        return {"late": True}

    engine.register_handler("T", stuck)
    ex = executor()
    ex.start()
    running = ex.submit("T", {})
    qtbot.waitUntil(entered.is_set, timeout=3000)
    assert ex.shutdown(wait_s=0.1) is False  # the handler did not finish in time
    queued = engine.submit("T", {})
    qtbot.wait(100)
    assert engine.get(queued.task_no).status is TaskStatus.PENDING  # nothing new is claimed after shutdown
    assert engine.get(running.task_no).status is TaskStatus.PROCESSING

    # Were the app to die now, the row is not lost: once its lease runs out, the next start recovers it.
    with TaskEngine(engine.db_path, clock=OffsetClock(engine.config.lease_s + 1)) as next_start:
        assert next_start.recover_expired_leases() == 1
        assert next_start.get(running.task_no).status is TaskStatus.PENDING
    release.set()
    qtbot.waitUntil(lambda: not ex._pool.activeThreadCount(), timeout=5000)
    # The stuck handler's late outcome is dropped: the row belongs to the recovery now.
    assert engine.get(running.task_no).status is TaskStatus.PENDING


def test_hundreds_of_tasks_through_the_pool(qtbot, engine, executor):
    """Hundreds of hand-overs to the GUI thread; under Python 3.11 + PySide6 6.12 each one leaked a reference
    to True and the process died after about 150 (Python 3.12's immortal objects: tests/ui/shell/test_qt_runtime.py)."""
    engine.register_handler("T", lambda ctx: None, concurrency=2)
    ex = executor(max_threads=2)
    finished = []
    ex.task_changed.connect(lambda no, status: status == "SUCCESS" and finished.append(no))
    ex.start()
    submitted = {ex.submit("T", {"i": i}).task_no for i in range(300)}
    qtbot.waitUntil(lambda: len(finished) == 300, timeout=60000)
    assert set(finished) == submitted
    assert engine.count("SUCCESS") == 300


@pytest.mark.slow
def test_a_full_disk_at_the_outcome_keeps_the_pool_and_the_task_and_it_finishes_when_space_returns(qtbot, tmp_path):
    """Issue #12 point 12 on the real pool: SQLite's page cap refuses the outcome (SQLITE_FULL, as a full disk).
    The pool thread survives, the lease stays renewed (another engine's sweep, with a lease shorter than the
    full spell, takes nothing), and once the cap is lifted the kept outcome is written: SUCCESS, one run."""
    config = EngineConfig(heartbeat_interval_s=0.05, lease_s=0.5, sweep_interval_s=0.1,
                          storage_retry_base_s=0.05, storage_retry_max_s=0.2)
    runs = []
    with TaskEngine(tmp_path / "full.db", config=config) as engine, \
            TaskEngine(tmp_path / "full.db", config=config) as other_process:
        engine.register_handler("BIG", lambda ctx: runs.append(ctx.task_no) or {"blob": "x" * 200_000})
        ex = TaskExecutor(engine, poll_interval_s=HOUR_POLL)
        try:
            fill_disk(engine)
            changes = []
            ex.task_changed.connect(lambda task_no, status: changes.append(status))
            ex.start()
            task = ex.submit("BIG", {})
            qtbot.waitUntil(lambda: engine.storage_full, timeout=5000)
            qtbot.wait(1500)  # three leases long
            assert other_process.recover_expired_leases() == 0
            assert engine.get(task.task_no).status is TaskStatus.PROCESSING
            assert engine.stats()["storage_full"] and runs == [task.task_no]
            free_disk(engine)  # space returns
            qtbot.waitUntil(lambda: "SUCCESS" in changes, timeout=5000)
            done = engine.get(task.task_no)
            assert done.status is TaskStatus.SUCCESS and done.attempt_count == 1 and runs == [task.task_no]
            assert not engine.storage_full
            second = ex.submit("BIG", {})  # the pool still runs tasks
            qtbot.waitUntil(lambda: engine.get(second.task_no).status is TaskStatus.SUCCESS, timeout=5000)
        finally:
            ex.shutdown(wait_s=5)
