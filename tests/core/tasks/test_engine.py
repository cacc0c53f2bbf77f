"""The task engine in synchronous mode on real SQLite files: submit, claim order, retries, error classes,
dead letters, idempotency, backpressure, breakers, cancel, leases, a busy database and a corrupt payload."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.db import connect
from nailmirror_desktop.core.tasks import (
    EngineConfig,
    ErrorClass,
    InvalidTransition,
    TaskEngine,
    TaskError,
    TaskStatus,
    TooManyPendingTasks,
)

FAST = EngineConfig(retry_base_s=0.5, retry_max_s=8.0, lease_s=30.0, heartbeat_interval_s=0.05)


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "tasks.db"


@pytest.fixture
def clock():
    return ManualClock(start=1_800_000_000.0)


@pytest.fixture
def engine(db_path, clock):
    with TaskEngine(db_path, clock=clock, config=FAST) as eng:
        yield eng


def ok_handler(ctx):
    return {"echo": ctx.payload}


def test_submit_run_and_read_back(engine):
    engine.register_handler("ECHO", ok_handler)
    task = engine.submit("ECHO", {"prompt": "奶白色底胶"}, biz_type="style", biz_id="S1", priority=3)
    assert task.status is TaskStatus.PENDING and task.attempt_count == 0
    assert task.payload == {"prompt": "奶白色底胶"}
    assert engine.run_due() == 1
    done = engine.get(task.task_no)
    assert done.status is TaskStatus.SUCCESS
    assert done.result == {"echo": {"prompt": "奶白色底胶"}}
    assert done.attempt_count == 1 and done.progress == 1.0
    assert done.started_at is not None and done.finished_at is not None
    assert done.finished_at.tzinfo is UTC
    data = done.to_json()
    for key in ("task_no", "task_type", "status", "priority", "attempt_count", "max_attempts", "next_retry_time",
                "last_error_code", "last_error_message", "biz_type", "biz_id", "provider_task_id", "created_at",
                "finished_at"):
        assert key in data
    assert data["finished_at"].endswith("Z") and data["status"] == "SUCCESS"
    json.dumps(data)  # printable as is


def test_claim_order_priority_then_due_time_then_age(engine, clock):
    order = []
    engine.register_handler("T", lambda ctx: order.append(ctx.payload["name"]))
    engine.submit("T", {"name": "low-old"}, priority=0)
    engine.submit("T", {"name": "high"}, priority=5)
    engine.submit("T", {"name": "future"}, priority=9, scheduled_time=clock.now() + 60)
    engine.submit("T", {"name": "low-new"}, priority=0)
    engine.run_due()
    assert order == ["high", "low-old", "low-new"]
    clock.advance(61)
    engine.run_due()
    assert order[-1] == "future"


def test_submit_returns_the_stored_row_for_every_mix_of_options(engine, clock):
    """The returned Task is built from the insert's values and the schema's defaults (Task.submitted): whichever
    options are given, it must equal the row as stored."""
    engine.register_handler("T", lambda ctx: None, provider="vendor")
    later = clock.now() + 60
    shapes = [{}, {"biz_type": "STYLE", "biz_id": 7, "request_source_id": "k1", "priority": 2},
              {"provider": "other"}, {"biz_id": "x", "scheduled_time": later, "max_attempts": 2},
              {"request_source": "staff", "request_source_id": "k1"}]
    for i, options in enumerate(shapes):
        task = engine.submit("T", {"i": i, "text": "奶白色"}, **options)
        assert task == engine.get(task.task_no), options
    assert engine.get(engine.submit("T", {}).task_no).provider == "vendor"
    with pytest.raises(ValueError):
        engine.submit("T", {}, max_attempts=-1)
    with pytest.raises(TypeError):
        engine.submit("T", {}, request_source=None)
    assert engine.count() == len(shapes) + 1  # the refused calls wrote nothing


def test_scheduled_time_accepts_aware_datetimes_only(engine, clock):
    later = datetime.fromtimestamp(clock.now(), tz=UTC) + timedelta(minutes=5)
    task = engine.submit("T", {}, scheduled_time=later)
    assert task.scheduled_time == later.replace(microsecond=later.microsecond // 1000 * 1000)
    with pytest.raises(ValueError):
        engine.submit("T", {}, scheduled_time=datetime(2030, 1, 1))


def test_idempotent_submit_returns_the_unfinished_task(engine):
    engine.register_handler("GEN", ok_handler)
    first = engine.submit("GEN", {"n": 1}, request_source="kiosk", request_source_id="req-1")
    again = engine.submit("GEN", {"n": 2}, request_source="kiosk", request_source_id="req-1")
    assert again.task_no == first.task_no and again.payload == {"n": 1}
    other_type = engine.submit("OTHER", {}, request_source="kiosk", request_source_id="req-1")
    assert other_type.task_no != first.task_no
    engine.run_due()
    # finished: the same key may be requested again and makes a new task
    fresh = engine.submit("GEN", {"n": 3}, request_source="kiosk", request_source_id="req-1")
    assert fresh.task_no != first.task_no
    assert engine.count(task_type="GEN") == 2


def test_backpressure_refuses_past_the_limit_and_writes_nothing(db_path, clock):
    config = EngineConfig(pending_limit_per_source=3)
    with TaskEngine(db_path, clock=clock, config=config) as engine:
        engine.register_handler("T", ok_handler)
        for i in range(3):
            engine.submit("T", {"i": i}, request_source="kiosk", request_source_id=f"r{i}")
        before = engine.count()
        with pytest.raises(TooManyPendingTasks) as refused:
            engine.submit("T", {"i": 99}, request_source="kiosk")
        assert refused.value.code == "TOO_MANY_PENDING_TASKS" and refused.value.retryable
        assert engine.count() == before
        # a duplicate of an unfinished task is still answered, and other sources are not affected
        assert engine.submit("T", {}, request_source="kiosk", request_source_id="r1").request_source_id == "r1"
        engine.submit("T", {}, request_source="staff")
        engine.run_due(max_tasks=1)
        engine.submit("T", {"i": 4}, request_source="kiosk")  # room again after one finished
        assert engine.stats()["backlog_by_source"]["kiosk"] == 3


def test_transient_failures_back_off_then_succeed(engine, clock):
    calls = []

    def flaky(ctx):
        calls.append(clock.now())
        if len(calls) < 3:
            raise TaskError("UPSTREAM_500", "server error", ErrorClass.TRANSIENT)
        return {"ok": True}

    engine.register_handler("T", flaky)
    task = engine.submit("T", {}, max_attempts=5)
    engine.run_due()
    failed = engine.get(task.task_no)
    assert failed.status is TaskStatus.FAILED and failed.attempt_count == 1
    assert failed.last_error_code == "UPSTREAM_500" and failed.next_retry_time is not None
    delay = (failed.next_retry_time - failed.updated_at).total_seconds()
    assert 0.25 <= delay <= 0.5  # base 0.5 s, first step, equal jitter
    assert engine.run_due() == 0  # not due yet
    engine.run_until_idle(timeout_s=10)
    done = engine.get(task.task_no)
    assert done.status is TaskStatus.SUCCESS and done.attempt_count == 3
    assert [h.kind for h in engine.history(task.task_no)] == ["FAILED", "FAILED"]
    gaps = [b - a for a, b in zip(calls, calls[1:], strict=False)]
    assert gaps[1] > gaps[0] * 0.9  # exponential: the second wait is not shorter than the first (jitter ≤ 50 %)


def test_max_attempts_then_dead_with_every_error_kept(engine):
    attempt_no = iter(range(100))

    def always_fails(ctx):
        raise TaskError("UPSTREAM_500", f"boom {next(attempt_no)}", ErrorClass.TRANSIENT)

    engine.register_handler("T", always_fails)
    task = engine.submit("T", {"keep": "me"}, max_attempts=3)
    engine.run_until_idle(timeout_s=10)
    dead = engine.get(task.task_no)
    assert dead.status is TaskStatus.DEAD and dead.attempt_count == 3
    assert dead.dead_letter_state == "OPEN" and dead.payload == {"keep": "me"}
    history = engine.history(task.task_no)
    assert [h.kind for h in history] == ["FAILED", "FAILED", "DEAD"]
    assert [h.error_message for h in history] == ["boom 0", "boom 1", "boom 2"]
    assert engine.dead_letters(task_type="T")[0].task_no == task.task_no


@pytest.mark.parametrize("error_class", [ErrorClass.CONTENT_REJECTED, ErrorClass.INVALID_REQUEST])
def test_permanent_errors_go_straight_to_dead(engine, error_class):
    engine.register_handler("T", lambda ctx: (_ for _ in ()).throw(TaskError("NOPE", "no", error_class)))
    task = engine.submit("T", {}, max_attempts=5)
    engine.run_until_idle(timeout_s=5)
    dead = engine.get(task.task_no)
    assert dead.status is TaskStatus.DEAD and dead.attempt_count == 1 and dead.last_error_class == error_class.value


def test_rate_limit_honours_retry_after_and_burns_no_attempt(engine, clock):
    answers = iter([TaskError("RATE_LIMITED", "429", ErrorClass.RATE_LIMITED, retry_after_s=7.0)] * 4)

    def limited(ctx):
        answer = next(answers, None)
        if answer:
            raise answer
        return {"ok": 1}

    engine.register_handler("T", limited)
    task = engine.submit("T", {}, max_attempts=2)
    engine.run_due()
    waiting = engine.get(task.task_no)
    assert waiting.status is TaskStatus.FAILED and waiting.attempt_count == 0 and waiting.rate_limited_count == 1
    assert (waiting.next_retry_time - waiting.updated_at).total_seconds() == pytest.approx(7.0, abs=0.01)
    clock.advance(6.9)
    assert engine.run_due() == 0
    engine.run_until_idle(timeout_s=10)
    done = engine.get(task.task_no)
    # four 429s with max_attempts=2: still succeeds, having used one real attempt
    assert done.status is TaskStatus.SUCCESS and done.attempt_count == 1 and done.rate_limited_count == 4


def test_handler_exception_counts_as_transient(engine):
    engine.register_handler("T", lambda ctx: 1 / 0)
    task = engine.submit("T", {}, max_attempts=2)
    engine.run_until_idle(timeout_s=5)
    dead = engine.get(task.task_no)
    assert dead.status is TaskStatus.DEAD and dead.attempt_count == 2
    assert dead.last_error_code == "HANDLER_EXCEPTION" and "ZeroDivisionError" in dead.last_error_message
    assert dead.last_error_class == "TRANSIENT"


def test_ambiguous_is_retried_once(engine):
    engine.register_handler("T", lambda ctx: (_ for _ in ()).throw(
        TaskError("TIMEOUT_AFTER_SEND", "sent, no answer", ErrorClass.AMBIGUOUS)))
    task = engine.submit("T", {}, max_attempts=5)
    engine.run_until_idle(timeout_s=5)
    dead = engine.get(task.task_no)
    assert dead.status is TaskStatus.DEAD and dead.attempt_count == 2


def test_expired_clears_the_provider_task_id_so_the_retry_resubmits(engine):
    seen = []

    def async_provider(ctx):
        seen.append(ctx.task.provider_task_id)
        if len(seen) == 1:
            ctx.set_provider_task_id("job-1")
            raise TaskError("JOB_UNKNOWN", "provider forgot the job", ErrorClass.EXPIRED)
        return {"ok": 1}

    engine.register_handler("T", async_provider)
    task = engine.submit("T", {})
    engine.run_until_idle(timeout_s=5)
    assert seen == [None, None]
    assert engine.get(task.task_no).status is TaskStatus.SUCCESS


def test_a_retry_sees_the_provider_task_id_and_resumes_instead_of_resubmitting(engine):
    submissions, seen = [], []

    def async_provider(ctx):
        seen.append(ctx.task.provider_task_id)
        if ctx.task.provider_task_id is None:
            submissions.append(1)
            ctx.set_provider_task_id(f"job-{len(submissions)}")
            raise TaskError("POLL_TIMEOUT", "network dropped while polling", ErrorClass.TRANSIENT)
        return {"job": ctx.task.provider_task_id}

    engine.register_handler("T", async_provider)
    task = engine.submit("T", {})
    engine.run_until_idle(timeout_s=5)
    assert seen == [None, "job-1"] and len(submissions) == 1
    assert engine.get(task.task_no).result == {"job": "job-1"}


def test_clear_provider_task_id_is_committed_at_once_and_the_retry_resubmits(engine, db_path):
    seen, observed = [], []

    def async_provider(ctx):
        seen.append(ctx.task.provider_task_id)
        if len(seen) == 1:
            ctx.set_provider_task_id("job-1")
            ctx.clear_provider_task_id()
            other = connect(db_path)  # another connection sees NULL: the clearing is committed
            observed.append(other.execute("SELECT provider_task_id FROM task WHERE id = ?",
                                          (ctx.task.id,)).fetchone()[0])
            other.close()
            assert ctx.task.provider_task_id is None
            raise TaskError("JOB_FAILED", "provider task failed", ErrorClass.TRANSIENT)
        return {"ok": 1}

    engine.register_handler("T", async_provider)
    task = engine.submit("T", {})
    engine.run_until_idle(timeout_s=5)
    assert observed == [None]
    assert seen == [None, None]
    assert engine.get(task.task_no).status is TaskStatus.SUCCESS


def test_provider_task_id_is_committed_before_the_handler_goes_on(engine, db_path):
    observed = {}

    def submit_then_look(ctx):
        ctx.set_provider_task_id("dash-42")
        other = connect(db_path)  # another connection sees it: it is committed
        observed["id"] = other.execute("SELECT provider_task_id FROM task WHERE id = ?",
                                       (ctx.task.id,)).fetchone()[0]
        other.close()
        assert ctx.task.provider_task_id == "dash-42"
        return None

    engine.register_handler("T", submit_then_look)
    task = engine.submit("T", {})
    engine.run_due()
    assert observed["id"] == "dash-42"
    assert engine.get(task.task_no).provider_task_id == "dash-42"


def test_progress_and_heartbeat_are_saved_and_reported(engine):
    reports = []
    engine.add_progress_listener(lambda no, f, note: reports.append((no, f, note)))
    snapshots = []

    def slow(ctx):
        assert ctx.heartbeat()
        ctx.report_progress(0.5, "halfway")
        snapshots.append(engine.get(ctx.task_no))
        return None

    engine.register_handler("T", slow)
    task = engine.submit("T", {})
    engine.run_due()
    assert snapshots[0].progress == 0.5 and snapshots[0].progress_note == "halfway"
    assert reports == [(task.task_no, 0.5, "halfway")]


def test_status_listener_sees_every_transition(engine):
    seen = []
    engine.add_listener(lambda no, status: seen.append(status))
    engine.register_handler("T", ok_handler)
    engine.submit("T", {})
    engine.run_due()
    assert seen == ["PENDING", "PROCESSING", "SUCCESS"]


def test_concurrency_limit_per_task_type(db_path):
    running, peak = [0], [0]
    lock = threading.Lock()
    release = threading.Event()

    def held(ctx):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        release.wait(20)
        with lock:
            running[0] -= 1

    with TaskEngine(db_path, config=FAST) as engine:
        engine.register_handler("LIMITED", held, concurrency=2)
        for _ in range(6):
            engine.submit("LIMITED", {})
        threads = [threading.Thread(target=engine.run_due) for _ in range(4)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 20
        while engine.count("PROCESSING") < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)  # give a wrongly admitted third claim the chance to show up
        assert engine.count("PROCESSING") == 2  # the other two threads found no claimable work
        release.set()
        for t in threads:
            t.join(20)
        engine.run_until_idle(timeout_s=20)
        assert peak[0] == 2 and engine.count("SUCCESS") == 6


def test_config_error_trips_the_provider_breaker_and_a_probe_closes_it(engine, clock):
    broken = {"on": True}
    calls = []

    def provider_call(ctx):
        calls.append(ctx.task_no)
        if broken["on"]:
            raise TaskError("INSUFFICIENT_QUOTA", "account has no quota", ErrorClass.CONFIG)
        return {"ok": 1}

    engine.register_handler("GEN", provider_call, concurrency=3, provider="openai")
    engine.register_handler("LOCAL", ok_handler)
    tasks = [engine.submit("GEN", {"i": i}, max_attempts=5) for i in range(3)]
    local = engine.submit("LOCAL", {})
    engine.run_due()
    assert len(calls) == 1  # the first config error opened the breaker: the other two were not claimed
    assert engine.get(local.task_no).status is TaskStatus.SUCCESS  # other providers keep running
    assert engine.breaker_states()["openai"]["state"] == "OPEN"
    clock.advance(FAST.breaker_cooldown_s - 1)
    engine.run_due()
    assert len(calls) == 1
    clock.advance(2)
    engine.run_due()
    assert len(calls) == 2  # one probe after the cool-down; it failed again and reopened the breaker
    assert engine.breaker_states()["openai"]["trips"] == 2
    broken["on"] = False
    engine.run_until_idle(timeout_s=10)
    assert all(engine.get(t.task_no).status is TaskStatus.SUCCESS for t in tasks)
    assert engine.breaker_states() == {}


def test_dead_letter_replay_ignore_resolve(engine):
    fail = {"on": True}

    def handler(ctx):
        if fail["on"]:
            raise TaskError("MODERATION_BLOCKED", "rejected", ErrorClass.CONTENT_REJECTED)
        return {"ok": 1}

    engine.register_handler("GEN", handler)
    a = engine.submit("GEN", {"p": "a"}, request_source_id="ra")
    b = engine.submit("GEN", {"p": "b"})
    c = engine.submit("GEN", {"p": "c"})
    engine.run_until_idle(timeout_s=5)
    assert {t.task_no for t in engine.dead_letters()} == {a.task_no, b.task_no, c.task_no}
    blocked = engine.dead_letters(error_code="MODERATION_BLOCKED")
    assert {t.task_no for t in blocked} == {a.task_no, b.task_no, c.task_no}
    assert engine.dead_letters(error_code="OTHER") == []

    fail["on"] = False
    replayed = engine.replay(a.task_no)
    assert replayed.status is TaskStatus.PENDING and replayed.attempt_count == 0 and replayed.replay_count == 1
    assert replayed.request_source_id == "ra"
    # the same idempotency key is live again
    assert engine.submit("GEN", {}, request_source_id="ra").task_no == a.task_no
    engine.run_until_idle(timeout_s=5)
    assert engine.get(a.task_no).status is TaskStatus.SUCCESS
    assert [h.kind for h in engine.history(a.task_no)] == ["DEAD", "REPLAYED"]

    assert engine.ignore(b.task_no, note="customer left").dead_letter_state == "IGNORED"
    assert engine.resolve(c.task_no).dead_letter_state == "RESOLVED"
    assert engine.dead_letters() == []
    assert len(engine.dead_letters(state=None)) == 2
    with pytest.raises(InvalidTransition):
        engine.replay(a.task_no)  # SUCCESS is not a dead letter


def test_replay_conflicts_with_a_newer_unfinished_task_with_the_same_key(engine):
    engine.register_handler("GEN", lambda ctx: (_ for _ in ()).throw(TaskError("X", "x", ErrorClass.INVALID_REQUEST)))
    dead = engine.submit("GEN", {}, request_source_id="k")
    engine.run_due()
    engine.submit("GEN", {}, request_source_id="k")  # a new request with the same key, not yet run
    with pytest.raises(InvalidTransition) as refused:
        engine.replay(dead.task_no)
    assert refused.value.code == "DUPLICATE_UNFINISHED"


def test_cancel_queued_and_running(engine):
    engine.register_handler("T", ok_handler)
    queued = engine.submit("T", {})
    assert engine.cancel(queued.task_no).status is TaskStatus.CANCELED
    assert engine.run_due() == 0
    with pytest.raises(InvalidTransition):
        engine.cancel(queued.task_no)

    def cooperative(ctx):
        engine.cancel(ctx.task_no)  # as the UI would, from anywhere, while it runs
        assert ctx.is_cancelled()
        ctx.raise_if_cancelled()

    engine.register_handler("C", cooperative)
    running = engine.submit("C", {})
    engine.run_due()
    assert engine.get(running.task_no).status is TaskStatus.CANCELED


def test_lease_expires_when_the_clock_moves_and_the_late_worker_is_ignored(db_path, clock):
    crashed = TaskEngine(db_path, clock=clock, config=FAST, worker_id="crashed")
    crashed.register_handler("T", lambda ctx: {"by": "crashed"})
    task = crashed.submit("T", {})
    claim = crashed.claim_next()  # claimed, then the worker "hangs": no heartbeat from here on
    crashed._closed.set()  # its lease keeper stops too

    rescuer = TaskEngine(db_path, clock=clock, config=FAST, worker_id="rescuer")
    rescuer.register_handler("T", lambda ctx: {"by": "rescuer"})
    assert rescuer.recover_expired_leases() == 0  # lease still fresh
    clock.advance(FAST.lease_s + 1)
    assert rescuer.recover_expired_leases() == 1
    recovered = rescuer.get(task.task_no)
    assert recovered.status is TaskStatus.PENDING and recovered.attempt_count == 1
    assert recovered.last_error_code == "LEASE_EXPIRED"
    rescuer.run_due()
    assert crashed.execute(claim) is None  # the late outcome is dropped (version guard)
    done = rescuer.get(task.task_no)
    assert done.status is TaskStatus.SUCCESS and done.result == {"by": "rescuer"} and done.attempt_count == 2
    assert [h.kind for h in rescuer.history(task.task_no)] == ["LEASE_EXPIRED", "LEASE_LOST"]
    crashed.close()
    rescuer.close()


def test_lease_expiry_uses_up_attempts(db_path, clock):
    with TaskEngine(db_path, clock=clock, config=FAST) as engine:
        engine.register_handler("T", ok_handler)
        task = engine.submit("T", {}, max_attempts=1)
        engine.claim_next()
        clock.advance(FAST.lease_s + 1)
        engine.recover_expired_leases()
        dead = engine.get(task.task_no)
        assert dead.status is TaskStatus.DEAD and dead.dead_letter_state == "OPEN"


@pytest.mark.slow
def test_heartbeats_keep_a_long_handler_alive(db_path):
    config = EngineConfig(lease_s=0.4, heartbeat_interval_s=0.05, sweep_interval_s=0.0)
    with TaskEngine(db_path, config=config) as engine, TaskEngine(db_path, config=config) as other:
        other.register_handler("T", ok_handler)

        def long_running(ctx):
            deadline = time.monotonic() + 1.0
            while time.monotonic() < deadline:
                assert other.recover_expired_leases() == 0  # another worker sweeping sees a live lease
                time.sleep(0.1)
            return {"done": True}

        engine.register_handler("T", long_running)
        task = engine.submit("T", {})
        engine.run_due(max_tasks=1)
        done = engine.get(task.task_no)
        assert done.status is TaskStatus.SUCCESS and done.attempt_count == 1


def test_corrupt_payload_goes_dead_and_the_engine_keeps_going(engine, db_path):
    engine.register_handler("T", ok_handler)
    bad = engine.submit("T", {"x": 1})
    good = engine.submit("T", {"x": 2})
    raw = connect(db_path)
    raw.execute("UPDATE task SET request_payload = '{\"x\": ' WHERE id = ?", (bad.id,))
    raw.close()
    listed = engine.get(bad.task_no)
    assert listed.payload is None and "not valid JSON" in listed.payload_error
    engine.run_until_idle(timeout_s=5)
    dead = engine.get(bad.task_no)
    assert dead.status is TaskStatus.DEAD and dead.last_error_code == "PAYLOAD_CORRUPT"
    assert engine.get(good.task_no).status is TaskStatus.SUCCESS


def test_a_locked_database_makes_writers_wait_not_fail(engine, db_path):
    engine.register_handler("T", ok_handler)
    holder = connect(db_path, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # another process/connection holds the write lock
    released = threading.Event()

    def release_later():
        time.sleep(0.3)
        holder.execute("COMMIT")
        released.set()

    threading.Thread(target=release_later).start()
    task = engine.submit("T", {})  # waits in the busy handler, then succeeds
    assert released.is_set()
    holder.execute("BEGIN IMMEDIATE")
    threading.Thread(target=release_later).start()
    released.clear()
    assert engine.run_due() == 1
    assert released.is_set()
    assert engine.get(task.task_no).status is TaskStatus.SUCCESS
    holder.close()


def test_a_database_locked_past_the_busy_timeout_refuses_submit_retryably(engine, db_path):
    engine.connection().execute("PRAGMA busy_timeout = 50")  # the kiosk waits 5 s; the test need not
    holder = connect(db_path)
    holder.execute("BEGIN IMMEDIATE")
    with pytest.raises(TaskError) as refused:
        engine.submit("T", {})
    assert refused.value.code == "DATABASE_BUSY" and refused.value.retryable
    holder.execute("COMMIT")
    holder.close()
    assert engine.count() == 0
    assert engine.submit("T", {}).status is TaskStatus.PENDING


def test_list_filters_and_counts(engine):
    engine.register_handler("A", ok_handler)
    for i in range(3):
        engine.submit("A", {}, biz_type="style", biz_id=str(i))
    engine.submit("B", {}, request_source="staff")
    engine.run_due()
    assert engine.count("SUCCESS") == 3 and engine.count("PENDING") == 1
    assert [t.task_type for t in engine.list_tasks(status="PENDING")] == ["B"]
    assert len(engine.list_tasks(task_type="A", limit=2)) == 2
    assert engine.list_tasks(biz_type="style", biz_id="1")[0].biz_id == "1"
    assert engine.list_tasks(request_source="staff")[0].task_type == "B"
    assert engine.count(["SUCCESS", "PENDING"]) == 4
    stats = engine.stats()
    assert stats["by_status"]["SUCCESS"] == 3 and stats["by_type"]["B"] == {"PENDING": 1}
    with pytest.raises(ValueError):
        engine.list_tasks(payload="x")


def test_run_until_idle_waits_for_retries_on_the_engine_clock(engine, clock):
    attempts = []

    def fails_twice(ctx):
        attempts.append(clock.now())
        if len(attempts) <= 2:
            raise TaskError("BUSY", "try later", ErrorClass.TRANSIENT, retry_after_s=120)
        return None

    engine.register_handler("T", fails_twice)
    start = clock.now()
    task = engine.submit("T", {})
    t0 = time.monotonic()
    engine.run_until_idle(timeout_s=10)
    assert time.monotonic() - t0 < 5  # the manual clock jumped; nothing slept for 240 s
    assert engine.get(task.task_no).status is TaskStatus.SUCCESS
    assert clock.now() - start >= 240


def test_the_task_submit_returns_equals_the_stored_row(engine, clock):
    """submit builds its Task without reading the row back; it must be exactly what get() reads."""
    later = datetime.fromtimestamp(clock.now() + 60, tz=UTC)
    for kwargs in ({}, {"biz_type": "style", "biz_id": 7, "priority": 3, "request_source": "staff",
                        "request_source_id": "r-1", "max_attempts": 2, "provider": "openai", "scheduled_time": later}):
        task = engine.submit("GEN", {"prompt": "贝壳", "n": [1, 2]}, **kwargs)
        assert task == engine.get(task.task_no), kwargs


def test_backpressure_is_exact_when_the_id_range_overstates_the_backlog(db_path, clock):
    """The submit's cheap bound (a source's last unfinished id - first + 1) only decides when it is below the
    limit; interleaved sources and finished rows in between make it overstate, and then the exact count rules."""
    with TaskEngine(db_path, clock=clock, config=EngineConfig(pending_limit_per_source=3)) as engine:
        first = engine.submit("T", {}, request_source="kiosk")
        engine.submit("T", {}, request_source="staff")
        engine.submit("T", {}, request_source="staff")
        middle = engine.submit("T", {}, request_source="kiosk")  # kiosk ids span 4, two unfinished
        engine.submit("T", {}, request_source="kiosk")  # the third: allowed
        with pytest.raises(TooManyPendingTasks):
            engine.submit("T", {}, request_source="kiosk")
        engine.cancel(middle.task_no)  # two unfinished again, the span unchanged
        engine.submit("T", {}, request_source="kiosk")
        with pytest.raises(TooManyPendingTasks):
            engine.submit("T", {}, request_source="kiosk")
        engine.submit("T", {}, request_source="staff")  # staff: 3rd
        engine.cancel(first.task_no)
        assert engine.count(request_source="kiosk", status="PENDING") == 2
        engine.submit("T", {}, request_source="kiosk")
        assert engine.count(request_source="kiosk") == 5  # 3 unfinished + 2 canceled; refusals wrote nothing
