"""kill -9 at the issue's three points, with real processes (tests/support/credit_worker_proc.py) and real
loopback providers: after recovery the books balance (balance + pending = grants - confirmed), each task is
charged once, and nothing is lost or doubled."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nailmirror_desktop.app.services import register_generation
from nailmirror_desktop.core.credits import CreditPolicy, apply_grant
from nailmirror_desktop.core.generation.flow import submit_generation
from nailmirror_desktop.core.generation.provider_config import (
    PollSettings,
    ProviderConfig,
    RemoteProviderSettings,
    Secret,
)
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine, TaskStatus
from nailmirror_desktop.core.tasks.store import task_id_from_no
from tests.support.credit_books import assert_books_balance, charges_of, task_count
from tests.support.fake_providers import (
    API_KEY,
    FakeDashScope,
    FakeOpenAI,
    Reply,
    dashscope_status,
    dashscope_succeeded_with,
    dripping,
    openai_moderation_blocked,
    openai_success,
    swatch_png,
)

ROOT = Path(__file__).resolve().parents[3]
WORKER = ROOT / "tests" / "support" / "credit_worker_proc.py"
LEASE_S = 60.0
ENGINE_CONFIG = EngineConfig(retry_base_s=0.01, lease_s=LEASE_S)


def grant(amount: int) -> None:
    with TaskEngine(database_path()) as engine, engine.write_transaction() as conn:
        apply_grant(conn, "g-1", amount, "crash test")


def worker_env(openai: FakeOpenAI | None = None, dashscope: FakeDashScope | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if openai is not None:
        env.update(NAILMIRROR_OPENAI_BASE_URL=openai.base_url, NAILMIRROR_OPENAI_API_KEY=API_KEY)
    if dashscope is not None:
        env.update(NAILMIRROR_DASHSCOPE_BASE_URL=dashscope.base_url, NAILMIRROR_DASHSCOPE_API_KEY=API_KEY)
    return env


def run_worker(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(WORKER), *args], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def recover(config: ProviderConfig) -> TaskEngine:
    """The next start: the dead worker's leases are reclaimed at once (its owner lock is free)."""
    engine = TaskEngine(database_path(), config=ENGINE_CONFIG)
    register_generation(engine, config, credits=CreditPolicy())
    return engine


def config_for(openai: FakeOpenAI | None = None, dashscope: FakeDashScope | None = None) -> ProviderConfig:
    nowhere = "http://127.0.0.1:9"
    return ProviderConfig(
        openai=RemoteProviderSettings(openai.base_url if openai else nowhere, Secret(API_KEY), "gpt-image-1"),
        dashscope=RemoteProviderSettings(dashscope.base_url if dashscope else nowhere, Secret(API_KEY),
                                         "wan2.2-t2i-flash"),
        connect_timeout_s=2.0, read_timeout_s=5.0, poll=PollSettings(initial_s=0.05, growth=1.0, max_s=0.05))


def status_of(task_no: str) -> str:
    conn = sqlite3.connect(database_path())
    try:
        return conn.execute("SELECT status FROM task WHERE id = ?", (task_id_from_no(task_no),)).fetchone()[0]
    finally:
        conn.close()


def submitted(out: str) -> str:
    return next(line.split()[1] for line in out.splitlines() if line.startswith("submitted "))


def test_kill_9_between_pre_deduct_and_the_submits_commit_leaves_neither(tmp_path):
    grant(2)
    with FakeOpenAI() as openai:
        env = worker_env(openai)
        proc = run_worker(env, "--submit", "openai", "--kill-at", "pre_deduct")
        assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
        assert task_count(database_path()) == 0  # no task, and so no charge for it
        books = assert_books_balance(database_path())
        assert (books.balance, books.pending, books.charges) == (2, 0, 0)
        assert openai.generation_count == 0

        proc = run_worker(env, "--submit", "openai")  # the next start works normally
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert status_of(submitted(proc.stdout)) == "SUCCESS"
    books = assert_books_balance(database_path())
    assert (books.balance, books.pending, books.confirmed, books.charges) == (1, 0, 1, 1)


def test_kill_9_between_the_providers_answer_and_the_style_write_is_never_sent_again():
    """The request left and was answered (and billed); the worker died before writing anything. The next start
    must not ask again: the task ends DEAD with OUTCOME_UNKNOWN and the store's credit is refunded."""
    grant(2)
    with FakeOpenAI() as openai:
        proc = run_worker(worker_env(openai), "--submit", "openai", "--kill-at", "after_answer")
        assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
        task_no = submitted(proc.stdout)
        assert status_of(task_no) == "PROCESSING" and openai.generation_count == 1
        books = assert_books_balance(database_path())
        assert (books.balance, books.pending) == (1, 1)  # still held for the task, not lost, not doubled

        with recover(config_for(openai)) as engine:
            engine.run_until_idle(timeout_s=60)
            task = engine.get(task_no)
            assert task.status is TaskStatus.DEAD and task.last_error_code == "OUTCOME_UNKNOWN"
            assert "may have been" in task.last_error_message
        assert openai.generation_count == 1
    assert [c["status"] for c in charges_of(database_path(), task_no)] == ["REFUNDED"]
    books = assert_books_balance(database_path())
    assert (books.balance, books.pending, books.confirmed) == (2, 0, 0)


@pytest.mark.parametrize("ends", ["SUCCESS", "DEAD"])
def test_kill_9_mid_poll_then_recovery_settles_once(ends):
    grant(2)
    with FakeDashScope() as dashscope:
        dashscope.script_next_task(dashscope_status("RUNNING"))  # runs until the test says otherwise
        env = worker_env(dashscope=dashscope)
        env["NAILMIRROR_HOME"] = os.environ["NAILMIRROR_HOME"]
        (Path(os.environ["NAILMIRROR_HOME"]) / "config.json").write_text(
            '{"providers": {"poll": {"initial_s": 0.05, "growth": 1.0, "max_s": 0.05}}}', encoding="utf-8")
        worker = subprocess.Popen([sys.executable, str(WORKER), "--submit", "dashscope"], env=env, cwd=ROOT,
                                  stdout=subprocess.PIPE, text=True)
        try:
            task_no = submitted(worker.stdout.readline())
            provider_task_id = _wait_for_polls(task_no, dashscope, worker)
        finally:
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=10)
        assert status_of(task_no) == "PROCESSING"
        books = assert_books_balance(database_path())
        assert (books.balance, books.pending) == (1, 1)

        if ends == "SUCCESS":
            dashscope.set_task_polls(provider_task_id, dashscope_succeeded_with(dashscope, swatch_png(seed=16)))
        else:
            dashscope.set_task_polls(provider_task_id, dashscope_status("FAILED", code="DataInspectionFailed",
                                                                        message="refused"))
        with recover(config_for(dashscope=dashscope)) as engine:
            engine.run_until_idle(timeout_s=60)
            assert engine.get(task_no).status.value == ends
        assert dashscope.submit_count == 1
    (charge,) = charges_of(database_path(), task_no)
    assert charge["status"] == ("CONFIRMED" if ends == "SUCCESS" else "REFUNDED")
    books = assert_books_balance(database_path())
    assert (books.balance, books.pending) == ((1, 0) if ends == "SUCCESS" else (2, 0))


def _wait_for_polls(task_no: str, dashscope: FakeDashScope, worker: subprocess.Popen) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert worker.poll() is None, "the worker exited early"
        conn = sqlite3.connect(database_path())
        try:
            row = conn.execute("SELECT provider_task_id FROM task WHERE id = ?", (task_id_from_no(task_no),)).fetchone()
        finally:
            conn.close()
        if row and row[0] and dashscope.poll_count(row[0]) >= 2:
            return row[0]
        time.sleep(0.05)
    raise AssertionError("the worker never polled")


@pytest.mark.slow
def test_done_when_holds_through_kill_9_cycles():
    """The issue's sequence, each paid step run by a worker process that is killed at one of the points and a
    next start that recovers: 2 granted → killed after the answer (DEAD, refunded) 2 → success 1 → DEAD 1 →
    cancelled 1 → killed after the answer 1 → success 0 → refused → offline."""
    db = database_path()
    grant(2)
    with FakeOpenAI() as openai:
        env = worker_env(openai)
        config = config_for(openai)

        def killed_then_recovered(kill_at: str) -> str:
            proc = run_worker(env, "--submit", "openai", "--kill-at", kill_at)
            assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
            assert_books_balance(db)
            with recover(config) as engine:
                engine.run_until_idle(timeout_s=60)
            assert_books_balance(db)
            return submitted(proc.stdout)

        lost = killed_then_recovered("after_answer")  # answered, then killed: never asked again, refunded
        assert status_of(lost) == "DEAD" and assert_books_balance(db).balance == 2
        assert status_of(submitted(run_worker(env, "--submit", "openai").stdout)) == "SUCCESS"
        assert assert_books_balance(db).balance == 1

        assert run_worker(env, "--submit", "openai", "--kill-at", "pre_deduct").returncode == -signal.SIGKILL
        openai.queue(openai_moderation_blocked())
        proc = run_worker(env, "--submit", "openai")
        assert status_of(submitted(proc.stdout)) == "DEAD" and assert_books_balance(db).balance == 1

        with recover(config) as engine:
            engine.cancel(submit_generation(engine, "glitter", "openai").task_no)
        assert assert_books_balance(db).balance == 1

        second = killed_then_recovered("after_answer")
        assert status_of(second) == "DEAD" and assert_books_balance(db).balance == 1
        assert status_of(submitted(run_worker(env, "--submit", "openai").stdout)) == "SUCCESS"
        assert assert_books_balance(db).balance == 0

        before = task_count(db)
        cli = subprocess.run([sys.executable, "-m", "nailmirror_desktop", "generate", "glitter", "--provider",
                              "openai"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert (cli.returncode, cli.stderr.strip()) == (1, "error: INSUFFICIENT_CREDITS")
        assert task_count(db) == before
        cli = subprocess.run([sys.executable, "-m", "nailmirror_desktop", "generate", "glitter", "--provider",
                              "offline", "--wait"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert cli.returncode == 0, cli.stderr
    books = assert_books_balance(db)
    assert (books.balance, books.pending, books.grants, books.confirmed, books.charges) == (0, 0, 2, 2, 6)
    assert openai.generation_count == 5  # one POST per paid task that got as far as the provider; none twice


@pytest.mark.slow
def test_kill_9_at_the_send_never_bills_twice_whoever_recovers():
    """kill -9 while a paid request is on the wire (the provider has it and holds its answer), cycle after cycle,
    on both providers, recovered in turn by a kiosk-like worker process and by an engine in this process: exactly
    one billed POST per generation. Without a provider id the task ends OUTCOME_UNKNOWN and is refunded; a
    DashScope task whose id was committed is polled to its end instead."""
    db = database_path()
    grant(10)
    with FakeOpenAI() as openai, FakeDashScope() as dashscope:
        env = worker_env(openai, dashscope)
        (Path(os.environ["NAILMIRROR_HOME"]) / "config.json").write_text(
            '{"providers": {"poll": {"initial_s": 0.05, "growth": 1.0, "max_s": 0.05}}}', encoding="utf-8")
        config = config_for(openai, dashscope)
        ends: dict[str, str] = {}
        for cycle, (provider, point) in enumerate([("openai", "send"), ("dashscope", "send"), ("dashscope", "id"),
                                                   ("openai", "send"), ("dashscope", "send"), ("dashscope", "id")]):
            if provider == "openai":
                openai.queue(dripping(openai_success(swatch_png(seed=cycle)), 30))
            elif point == "send":
                dashscope.submit_script.append(dripping(Reply.json(200, {"output": {
                    "task_status": "PENDING", "task_id": f"held-{cycle}"}}), 30))
            else:
                dashscope.script_next_task(dashscope_status("RUNNING"))
            sent_before = openai.generation_count + dashscope.submit_count
            worker = subprocess.Popen([sys.executable, str(WORKER), "--submit", provider], env=env, cwd=ROOT,
                                      stdout=subprocess.PIPE, text=True)
            try:
                task_no = submitted(worker.stdout.readline())
                if point == "id":
                    provider_task_id = _wait_for_polls(task_no, dashscope, worker)
                else:
                    _wait_until(lambda n=sent_before: openai.generation_count + dashscope.submit_count > n, worker)
            finally:
                worker.send_signal(signal.SIGKILL)
                worker.wait(timeout=10)
            assert status_of(task_no) == "PROCESSING"
            if point == "id":
                dashscope.set_task_polls(provider_task_id, dashscope_succeeded_with(dashscope, swatch_png(seed=cycle)))
            if cycle % 2 == 0:
                proc = run_worker(env)  # the kiosk's next start
                assert proc.returncode == 0, proc.stderr[-2000:]
            else:
                with recover(config) as engine:
                    engine.run_until_idle(timeout_s=60)
            ends[task_no] = status_of(task_no)
            assert openai.generation_count + dashscope.submit_count == sent_before + 1, f"cycle {cycle}: sent twice"
            assert_books_balance(db)
    assert list(ends.values()) == ["DEAD", "DEAD", "SUCCESS", "DEAD", "DEAD", "SUCCESS"]
    for task_no, status in ends.items():
        (charge,) = charges_of(db, task_no)
        assert charge["status"] == ("CONFIRMED" if status == "SUCCESS" else "REFUNDED")
    books = assert_books_balance(db)
    assert (books.balance, books.pending, books.confirmed) == (8, 0, 2)


def _wait_until(condition, worker: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert worker.poll() is None, "the worker exited early"
        assert time.monotonic() < deadline, "the request never reached the provider"
        time.sleep(0.02)
