"""Task hooks (core/tasks/hooks.py): a hook writes in the very transaction that ends or replays a task of its
type, on every path a task can end by, and a caller's on_insert writes in the submit's. Real SQLite files."""

from __future__ import annotations

import sqlite3

import pytest

from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.tasks import EngineConfig, ErrorClass, TaskEngine, TaskError, TaskStatus
from nailmirror_desktop.core.tasks.hooks import TaskEnd
from nailmirror_desktop.core.tasks.store import task_id_from_no

CONFIG = EngineConfig(retry_base_s=0.01, lease_s=60.0)


class Refused(Exception):
    pass


class RecordingHooks:
    """Writes one `ended` row per call, on the connection it is handed (so it commits with the task's change)."""

    def __init__(self, refuse_replay: bool = False) -> None:
        self.refuse_replay = refuse_replay

    def task_did_finish(self, conn: sqlite3.Connection, end: TaskEnd) -> None:
        assert conn.in_transaction  # inside the engine's transaction, not after it
        conn.execute("INSERT INTO ended (task_id, status, running, code) VALUES (?, ?, ?, ?)",
                     (end.task_id, end.status.value, int(end.was_running), end.error_code))

    def task_will_replay(self, conn: sqlite3.Connection, task_id: int, now_ms: int) -> None:
        assert conn.in_transaction
        if self.refuse_replay:
            raise Refused()
        conn.execute("INSERT INTO ended (task_id, status, running, code) VALUES (?, 'REPLAY', 0, NULL)", (task_id,))


@pytest.fixture
def engine(tmp_path):
    with TaskEngine(tmp_path / "hooks.db", clock=ManualClock(), config=CONFIG) as engine:
        engine.connection().execute(
            "CREATE TABLE ended (task_id INTEGER, status TEXT, running INTEGER, code TEXT)")
        yield engine


def ended(engine: TaskEngine) -> list[tuple]:
    return [tuple(r) for r in engine.connection().execute("SELECT task_id, status, running, code FROM ended")]


def test_success_dead_and_canceled_mid_attempt_each_call_the_hook_once(engine):
    engine.register_hooks("PAID", RecordingHooks())
    outcomes = iter([{"ok": 1}, TaskError("NOPE", "refused", ErrorClass.INVALID_REQUEST)])

    def handler(ctx):
        outcome = next(outcomes)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    engine.register_handler("PAID", handler)
    ok = engine.submit("PAID", {})
    dead = engine.submit("PAID", {})
    engine.run_until_idle(timeout_s=5)
    assert ended(engine) == [(task_id_from_no(ok.task_no), "SUCCESS", 1, None),
                             (task_id_from_no(dead.task_no), "DEAD", 1, "NOPE")]


def test_a_retried_attempt_is_not_an_end(engine):
    engine.register_hooks("PAID", RecordingHooks())
    attempts = []

    def flaky(ctx):
        attempts.append(1)
        if len(attempts) < 3:
            raise TaskError("BLIP", "try again", ErrorClass.TRANSIENT)
        return {}

    engine.register_handler("PAID", flaky)
    task = engine.submit("PAID", {})
    engine.run_until_idle(timeout_s=5)
    assert len(attempts) == 3
    assert ended(engine) == [(task_id_from_no(task.task_no), "SUCCESS", 1, None)]


def test_cancel_of_a_queued_task_calls_the_hook_as_not_running(engine):
    engine.register_hooks("PAID", RecordingHooks())
    task = engine.submit("PAID", {})
    engine.cancel(task.task_no)
    assert ended(engine) == [(task_id_from_no(task.task_no), "CANCELED", 0, None)]


def test_a_running_task_canceled_ends_canceled_through_the_hook(engine):
    engine.register_hooks("PAID", RecordingHooks())

    def handler(ctx):
        engine.cancel(ctx.task_no)  # the operator's cancel arrives while it runs
        ctx.raise_if_cancelled()

    engine.register_handler("PAID", handler)
    task = engine.submit("PAID", {})
    engine.run_due()
    assert engine.get(task.task_no).status is TaskStatus.CANCELED
    assert ended(engine) == [(task_id_from_no(task.task_no), "CANCELED", 1, "CANCELED")]


def test_the_lease_sweep_ending_a_task_calls_the_hook(tmp_path):
    db = tmp_path / "sweep.db"
    clock = ManualClock()
    with TaskEngine(db, clock=clock, config=CONFIG) as engine:
        engine.connection().execute("CREATE TABLE ended (task_id INTEGER, status TEXT, running INTEGER, code TEXT)")
        engine.register_hooks("PAID", RecordingHooks())
        task = engine.submit("PAID", {}, max_attempts=1)
        engine.register_handler("PAID", lambda ctx: {})
        claim = engine.claim_next()  # the worker "dies" holding it
        assert claim is not None
        clock.advance(CONFIG.lease_s + 1)
        assert engine.recover_expired_leases() == 1
        assert engine.get(task.task_no).status is TaskStatus.DEAD
        assert ended(engine) == [(task_id_from_no(task.task_no), "DEAD", 1, "LEASE_EXPIRED")]


def test_replay_calls_the_hook_and_a_refusal_leaves_the_dead_letter_untouched(engine):
    hooks = RecordingHooks(refuse_replay=True)
    engine.register_hooks("PAID", hooks)
    engine.register_handler("PAID", lambda ctx: (_ for _ in ()).throw(
        TaskError("NOPE", "no", ErrorClass.INVALID_REQUEST)))
    task = engine.submit("PAID", {})
    engine.run_until_idle(timeout_s=5)
    with pytest.raises(Refused):
        engine.replay(task.task_no)
    after = engine.get(task.task_no)
    assert after.status is TaskStatus.DEAD and after.replay_count == 0
    assert [k.kind for k in engine.history(task.task_no)].count("REPLAYED") == 0
    hooks.refuse_replay = False
    assert engine.replay(task.task_no).status is TaskStatus.PENDING
    assert ended(engine)[-1] == (task_id_from_no(task.task_no), "REPLAY", 0, None)


def test_on_insert_writes_with_the_task_and_its_refusal_writes_nothing(engine):
    def write(conn, task_id):
        conn.execute("INSERT INTO ended (task_id, status, running, code) VALUES (?, 'INSERTED', 0, NULL)", (task_id,))

    task = engine.submit("PAID", {}, on_insert=write)
    assert ended(engine) == [(task_id_from_no(task.task_no), "INSERTED", 0, None)]

    def refuse(conn, task_id):
        write(conn, task_id)
        raise Refused()

    with pytest.raises(Refused):
        engine.submit("PAID", {}, on_insert=refuse)
    assert engine.count() == 1 and len(ended(engine)) == 1


def test_on_insert_is_not_called_for_a_duplicate_of_an_unfinished_task(engine):
    calls = []
    first = engine.submit("PAID", {}, request_source_id="s1", on_insert=lambda conn, task_id: calls.append(task_id))
    again = engine.submit("PAID", {}, request_source_id="s1", on_insert=lambda conn, task_id: calls.append(task_id))
    assert again.task_no == first.task_no and calls == [task_id_from_no(first.task_no)]


def test_task_types_without_hooks_are_untouched(engine):
    engine.register_hooks("PAID", RecordingHooks())
    engine.register_handler("PLAIN", lambda ctx: {})
    engine.submit("PLAIN", {})
    engine.run_until_idle(timeout_s=5)
    engine.cancel(engine.submit("PLAIN", {}).task_no)
    assert ended(engine) == []
