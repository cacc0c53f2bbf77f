"""`nailmirror credits …` and `nailmirror generate` under credits: the real CLI entry, engine and ledger, and a
loopback paid provider (the fake OpenAI server)."""

from __future__ import annotations

import json

import pytest

from nailmirror_desktop.cli import main
from nailmirror_desktop.core.paths import database_path
from tests.support.credit_books import assert_books_balance, task_count
from tests.support.fake_providers import API_KEY, FakeOpenAI, openai_moderation_blocked


@pytest.fixture
def openai(monkeypatch):
    with FakeOpenAI() as server:
        monkeypatch.setenv("NAILMIRROR_PROVIDER", "openai")
        monkeypatch.setenv("NAILMIRROR_OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("NAILMIRROR_OPENAI_API_KEY", API_KEY)
        yield server


def shown(capsys) -> dict:
    capsys.readouterr()
    assert main(["credits", "show", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_show_before_any_grant_has_a_null_balance(capsys):
    summary = shown(capsys)
    assert summary["balance"] is None and summary["pending"] == 0 and summary["confirmed_today"] == 0
    assert summary["daily_cap"] == 100 and summary["session_cap"] == 3
    assert main(["credits", "show"]) == 0
    assert "not enforced" in capsys.readouterr().out


def test_grant_then_show_then_generate_until_refused(capsys, openai):
    assert main(["credits", "grant", "2", "--reason", "opening stock", "--grant-id", "g-1"]) == 0
    assert "granted 2" in capsys.readouterr().out
    assert main(["credits", "grant", "2", "--reason", "opening stock", "--grant-id", "g-1"]) == 0
    assert "already applied" in capsys.readouterr().out
    assert shown(capsys)["balance"] == 2

    assert main(["generate", "glitter ombre", "--wait", "--json"]) == 0
    openai.queue(openai_moderation_blocked())
    assert main(["generate", "glitter ombre", "--wait", "--json"]) == 1  # DEAD: refunded
    assert main(["generate", "glitter ombre", "--wait", "--json"]) == 0
    summary = shown(capsys)
    assert (summary["balance"], summary["pending"], summary["confirmed_today"]) == (0, 0, 2)

    before = task_count(database_path())
    assert main(["generate", "glitter ombre", "--wait"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == "error: INSUFFICIENT_CREDITS" and task_count(database_path()) == before
    assert main(["generate", "glitter ombre", "--provider", "offline", "--wait"]) == 0  # offline is free

    capsys.readouterr()
    assert main(["credits", "ledger", "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    assert [(e["kind"], e["status"]) for e in entries] == [
        ("CHARGE", "CONFIRMED"), ("CHARGE", "REFUNDED"), ("CHARGE", "CONFIRMED"), ("GRANT", "CONFIRMED")]
    assert entries[1]["note"].startswith("dead (") and entries[1]["refunded_amount"] == 1
    assert entries[0]["created_at"].endswith("Z") and entries[0]["task_no"].startswith("T")
    assert main(["credits", "ledger"]) == 0
    assert "GRANT" in capsys.readouterr().out
    assert_books_balance(database_path())


def test_the_low_balance_alert_shows_below_the_threshold(capsys, nailmirror_home):
    (nailmirror_home / "config.json").write_text(json.dumps({"credits_low_balance": 5}), encoding="utf-8")
    main(["credits", "grant", "3", "--reason", "r"])
    summary = shown(capsys)
    assert summary["low_balance"] is True and summary["low_balance_threshold"] == 5
    main(["credits", "show"])
    assert "LOW (below 5)" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "code"), [
    (["credits", "grant", "0", "--reason", "r"], "GRANT_AMOUNT_INVALID"),
    (["credits", "grant", "-2", "--reason", "r"], "GRANT_AMOUNT_INVALID"),
    (["credits", "grant", "2", "--reason", " "], "GRANT_REASON_REQUIRED"),
    (["credits", "ledger", "--limit", "0"], "LIMIT_INVALID"),
])
def test_bad_input_is_one_line_and_writes_nothing(capsys, argv, code):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {code}") and err.count("\n") == 1
    assert shown(capsys)["balance"] is None


def test_the_daily_cap_refuses_the_command_line_with_its_code(capsys, openai, nailmirror_home):
    (nailmirror_home / "config.json").write_text(json.dumps({"credits_daily_cap": 1}), encoding="utf-8")
    assert main(["generate", "glitter ombre", "--wait"]) == 0
    assert main(["generate", "glitter ombre"]) == 1
    assert capsys.readouterr().err.strip() == "error: DAILY_CAP_REACHED"


def test_replaying_a_paid_dead_letter_the_credits_cannot_pay_is_refused_with_the_code(capsys, openai):
    main(["credits", "grant", "1", "--reason", "r"])
    openai.queue(openai_moderation_blocked())
    capsys.readouterr()
    main(["generate", "glitter ombre", "--wait", "--json"])
    dead = json.loads(capsys.readouterr().out)["task_no"]
    main(["generate", "glitter ombre", "--wait"])  # spends the credit
    assert main(["tasks", "replay", dead]) == 1
    assert capsys.readouterr().err.startswith("error: INSUFFICIENT_CREDITS")
    assert main(["credits", "grant", "1", "--reason", "r"]) == 0
    assert main(["tasks", "replay", dead]) == 0
    assert shown(capsys)["balance"] == 0 and shown(capsys)["pending"] == 1


def test_no_subcommand_is_a_usage_error(capsys):
    assert main(["credits"]) == 2


def test_tasks_cancel_of_a_queued_paid_generation_refunds_it(capsys, openai):
    main(["credits", "grant", "1", "--reason", "r"])
    capsys.readouterr()
    assert main(["generate", "glitter ombre"]) == 0  # queued for the kiosk's workers: the credit is held
    task_no = capsys.readouterr().out.split()[0]
    assert shown(capsys)["balance"] == 0
    assert main(["tasks", "cancel", task_no]) == 0
    summary = shown(capsys)
    assert (summary["balance"], summary["pending"]) == (1, 0)
    assert openai.generation_count == 0


def test_generate_variations_pre_deducts_n_confirms_what_arrived_and_refunds_the_rest(capsys, openai):
    from tests.support.fake_providers import openai_success, swatch_png

    main(["credits", "grant", "5", "--reason", "r"])
    openai.queue(openai_success(swatch_png(1), swatch_png(2)))  # 3 asked for, 2 arrive
    capsys.readouterr()
    assert main(["generate", "glitter ombre", "--variations", "3", "--wait", "--json"]) == 0
    task = json.loads(capsys.readouterr().out)
    assert json.loads(openai.requests_to("/v1/images/generations", "POST")[0].body)["n"] == 3
    assert task["variations"] == {"requested": 3, "delivered": 2}
    assert task["credit"]["amount"] == 3 and task["credit"]["confirmed"] == 2 and task["credit"]["refunded"] == 1
    assert task["credit"]["status"] == "CONFIRMED" and "2 of 3" in task["credit"]["note"]
    summary = shown(capsys)
    assert (summary["balance"], summary["pending"], summary["confirmed_today"]) == (3, 0, 2)
    assert_books_balance(database_path())


def test_generate_variations_the_balance_cannot_pay_is_refused_and_queues_nothing(capsys, openai):
    main(["credits", "grant", "2", "--reason", "r"])
    before = task_count(database_path())
    capsys.readouterr()
    assert main(["generate", "glitter ombre", "--variations", "3"]) == 1
    assert capsys.readouterr().err.strip() == "error: INSUFFICIENT_CREDITS"
    assert task_count(database_path()) == before and shown(capsys)["balance"] == 2
    assert openai.generation_count == 0


def test_generate_variations_queued_holds_n_and_json_says_not_delivered_yet(capsys, openai):
    main(["credits", "grant", "4", "--reason", "r"])
    capsys.readouterr()
    assert main(["generate", "glitter ombre", "--variations", "4", "--json"]) == 0
    task = json.loads(capsys.readouterr().out)
    assert task["variations"] == {"requested": 4, "delivered": None} and task["credit"]["status"] == "PENDING"
    summary = shown(capsys)
    assert (summary["balance"], summary["pending"]) == (0, 4)


@pytest.mark.parametrize("value", ["0", "5", "two"])
def test_generate_variations_out_of_range_is_a_usage_error(capsys, value):
    with pytest.raises(SystemExit) as stop:
        main(["generate", "glitter ombre", "--variations", value])
    assert stop.value.code == 2 and "variations are 1 to 4" in capsys.readouterr().err
