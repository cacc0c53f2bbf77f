"""Credits end to end: the real task engine and generation flow, a real loopback HTTP paid provider (the fake
OpenAI server), the real ledger in the kiosk's database file. The issue's "Done when" first, then each rule."""

from __future__ import annotations

import threading
import time

import pytest

from nailmirror_desktop.app.services import register_generation
from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.credits import CreditPolicy, CreditRefused, apply_grant, show
from nailmirror_desktop.core.generation.flow import submit_generation
from nailmirror_desktop.core.generation.provider_config import (
    PollSettings,
    ProviderConfig,
    RemoteProviderSettings,
    Secret,
)
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine, TaskStatus
from tests.support.credit_books import assert_books_balance, charges_of, task_count
from tests.support.fake_providers import (
    API_KEY,
    FakeOpenAI,
    dripping,
    openai_moderation_blocked,
    openai_server_error,
    openai_success,
    swatch_png,
)

PROMPT = "奶白色底胶、贝壳碎片、无名指跳色"
ENGINE_CONFIG = EngineConfig(retry_base_s=0.01, breaker_cooldown_s=5.0, lease_s=60.0)
POLICY = CreditPolicy(daily_cap=100, session_cap=3)


@pytest.fixture
def openai():
    with FakeOpenAI() as server:
        yield server


def provider_config(openai_url: str) -> ProviderConfig:
    return ProviderConfig(openai=RemoteProviderSettings(openai_url, Secret(API_KEY), "gpt-image-1"),
                          connect_timeout_s=2.0, read_timeout_s=5.0, poll=PollSettings())


def new_engine(openai_url: str, policy: CreditPolicy = POLICY) -> TaskEngine:
    engine = TaskEngine(database_path(), clock=ManualClock(), config=ENGINE_CONFIG)
    register_generation(engine, provider_config(openai_url), credits=policy)
    return engine


def grant(engine: TaskEngine, amount: int, grant_id: str = "g-1") -> None:
    with engine.write_transaction() as conn:
        apply_grant(conn, grant_id, amount, "test grant")


def run(engine: TaskEngine, provider: str = "openai", **kwargs):
    task = submit_generation(engine, PROMPT, provider, **kwargs)
    engine.run_until_idle(timeout_s=60)
    return engine.get(task.task_no)


def balance(engine: TaskEngine) -> int | None:
    return show(engine.connection(), POLICY)["balance"]


def test_done_when_two_credits_pay_for_two_successes_and_refunds_keep_the_rest(openai):
    db = database_path()
    with new_engine(openai.base_url) as engine:
        grant(engine, 2)
        assert balance(engine) == 2

        assert run(engine).status is TaskStatus.SUCCESS
        assert balance(engine) == 1 and assert_books_balance(db).confirmed == 1

        openai.queue(openai_moderation_blocked())
        dead = run(engine)
        assert dead.status is TaskStatus.DEAD and balance(engine) == 1  # refunded
        assert [c["status"] for c in charges_of(db, dead.task_no)] == ["REFUNDED"]

        queued = submit_generation(engine, PROMPT, "openai")
        assert balance(engine) == 0 and show(engine.connection(), POLICY)["pending"] == 1
        engine.cancel(queued.task_no)
        assert balance(engine) == 1  # cancelled: unchanged
        assert charges_of(db, queued.task_no)[0]["note"] == "canceled before it ran"

        assert run(engine).status is TaskStatus.SUCCESS
        assert balance(engine) == 0

        tasks_before, posts_before = task_count(db), openai.generation_count
        with pytest.raises(CreditRefused) as refused:
            submit_generation(engine, PROMPT, "openai")
        assert refused.value.code == "INSUFFICIENT_CREDITS"
        assert task_count(db) == tasks_before and openai.generation_count == posts_before  # nothing queued

        offline = run(engine, "offline")
        assert offline.status is TaskStatus.SUCCESS and charges_of(db, offline.task_no) == []
        assert balance(engine) == 0
    books = assert_books_balance(db)
    assert (books.grants, books.confirmed, books.pending, books.charges) == (2, 2, 0, 4)


def test_retries_inside_one_task_charge_once(openai):
    openai.queue(openai_server_error(), openai_server_error())
    with new_engine(openai.base_url) as engine:
        grant(engine, 3)
        task = run(engine)
        assert task.status is TaskStatus.SUCCESS and task.attempt_count == 3
        assert balance(engine) == 2
    assert [(c["status"], c["amount"]) for c in charges_of(database_path(), task.task_no)] == [("CONFIRMED", 1)]


def test_a_replayed_dead_letter_is_charged_again_and_says_so(openai):
    openai.queue(openai_moderation_blocked())
    with new_engine(openai.base_url) as engine:
        grant(engine, 2)
        dead = run(engine)
        assert dead.status is TaskStatus.DEAD and balance(engine) == 2
        engine.replay(dead.task_no)
        assert balance(engine) == 1  # pre-deducted again on the replay
        engine.run_until_idle(timeout_s=60)
        assert engine.get(dead.task_no).status is TaskStatus.SUCCESS and balance(engine) == 1
    charges = charges_of(database_path(), dead.task_no)
    assert [c["status"] for c in charges] == ["REFUNDED", "CONFIRMED"]
    assert "replay of a dead letter" in charges[1]["note"]
    assert_books_balance(database_path())


def test_a_replay_the_balance_cannot_pay_is_refused_and_stays_dead(openai):
    openai.queue(openai_moderation_blocked())
    with new_engine(openai.base_url) as engine:
        grant(engine, 1)
        dead = run(engine)
        run(engine)  # spends the last credit
        with pytest.raises(CreditRefused, match="credit"):
            engine.replay(dead.task_no)
        assert engine.get(dead.task_no).status is TaskStatus.DEAD
    assert len(charges_of(database_path(), dead.task_no)) == 1


def test_a_generation_cut_by_its_deadline_mid_attempt_is_refunded_and_noted_as_maybe_billed(openai):
    from nailmirror_desktop.core.generation.provider_port import request_stop

    openai.queue(dripping(openai_success(swatch_png()), 4.0))
    with new_engine(openai.base_url) as engine:
        grant(engine, 1)
        task_no = submit_generation(engine, PROMPT, "openai").task_no

        def deadline() -> None:
            time.sleep(0.5)
            engine.cancel(task_no)
            request_stop(task_no, "WAIT_TIMEOUT", "generate --wait --timeout 0.5 s ran out")

        stopper = threading.Thread(target=deadline)
        stopper.start()
        engine.run_due()
        stopper.join()
        task = engine.get(task_no)
        assert (task.status, task.last_error_code) == (TaskStatus.CANCELED, "WAIT_TIMEOUT")
        assert balance(engine) == 1
    (charge,) = charges_of(database_path(), task_no)
    assert charge["status"] == "REFUNDED"
    assert "WAIT_TIMEOUT" in charge["note"] and "the provider may still have billed" in charge["note"]


def test_n_variations_pre_deduct_n_and_confirm_what_arrived(openai):
    openai.queue(openai_success(swatch_png(seed=3), swatch_png(seed=4)))  # 2 of the 3 asked for
    with new_engine(openai.base_url) as engine:
        grant(engine, 5)
        task_no = submit_generation(engine, PROMPT, "openai", variations=3).task_no
        assert balance(engine) == 2
        assert engine.get(task_no).payload["variations"] == 3
        engine.run_until_idle(timeout_s=60)
        task = engine.get(task_no)
        assert task.status is TaskStatus.SUCCESS and task.result["delivered"] == 2
        assert balance(engine) == 3
    (charge,) = charges_of(database_path(), task_no)
    assert (charge["amount"], charge["confirmed_amount"], charge["status"]) == (3, 2, "CONFIRMED")
    assert charge["note"] == "2 of 3 images delivered; the rest refunded"
    assert openai.requests_to("/v1/images/generations")[0].json()["n"] == 3


def test_prices_per_model_come_from_the_settings(openai):
    policy = CreditPolicy(prices={"openai/gpt-image-1": 2})
    with new_engine(openai.base_url, policy) as engine:
        grant(engine, 3)
        run(engine)
        assert show(engine.connection(), policy)["balance"] == 1
        with pytest.raises(CreditRefused):
            submit_generation(engine, PROMPT, "openai")


def test_a_customer_session_gets_three_paid_generations_the_command_line_is_not_a_session(openai):
    with new_engine(openai.base_url) as engine:
        for _ in range(3):
            assert run(engine, request_source_id="session-a").status is TaskStatus.SUCCESS
        with pytest.raises(CreditRefused) as refused:
            submit_generation(engine, PROMPT, "openai", request_source_id="session-a")
        assert refused.value.code == "SESSION_CAP_REACHED"
        assert run(engine, request_source_id="session-b").status is TaskStatus.SUCCESS
        assert run(engine, request_source="cli").status is TaskStatus.SUCCESS
        assert run(engine, request_source="cli").status is TaskStatus.SUCCESS
        # offline generations are free and count against no cap
        assert run(engine, "offline", request_source_id="session-a").status is TaskStatus.SUCCESS
        assert balance(engine) is None  # never granted: no balance, but the caps held


def test_the_daily_cap_holds_for_the_command_line_too(openai):
    policy = CreditPolicy(daily_cap=2)
    with new_engine(openai.base_url, policy) as engine:
        openai.queue(openai_moderation_blocked())
        run(engine, request_source="cli")  # DEAD: refunded, so it does not count
        run(engine, request_source="cli")
        run(engine, request_source="cli")
        with pytest.raises(CreditRefused) as refused:
            submit_generation(engine, PROMPT, "openai", request_source="cli")
        assert refused.value.code == "DAILY_CAP_REACHED"


def test_refusals_are_checked_balance_first(openai):
    policy = CreditPolicy(daily_cap=1, session_cap=1)
    with new_engine(openai.base_url, policy) as engine:
        grant(engine, 1)
        run(engine, request_source_id="s")
        with pytest.raises(CreditRefused) as refused:
            submit_generation(engine, PROMPT, "openai", request_source_id="s")
        assert refused.value.code == "INSUFFICIENT_CREDITS"
        grant(engine, 5, "g-2")
        with pytest.raises(CreditRefused) as refused:
            submit_generation(engine, PROMPT, "openai", request_source_id="s")
        assert refused.value.code == "DAILY_CAP_REACHED"


def test_a_task_ended_by_a_bare_engine_is_settled_when_the_next_engine_opens(openai):
    with new_engine(openai.base_url) as engine:
        grant(engine, 1)
        task_no = submit_generation(engine, PROMPT, "openai").task_no
    with TaskEngine(database_path()) as bare:  # no credit hooks: its cancel cannot refund
        bare.cancel(task_no)
    assert charges_of(database_path(), task_no)[0]["status"] == "PENDING"
    with new_engine(openai.base_url) as engine:
        assert balance(engine) == 1
    (charge,) = charges_of(database_path(), task_no)
    assert charge["status"] == "REFUNDED" and charge["note"].startswith("settled late: canceled")
    assert_books_balance(database_path())
