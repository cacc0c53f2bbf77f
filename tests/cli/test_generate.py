"""`nailmirror generate` end to end: the real CLI entry, engine, style repository and a loopback provider."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from nailmirror_desktop.cli import main
from nailmirror_desktop.core.paths import database_path
from tests.support.fake_providers import (
    API_KEY,
    FakeDashScope,
    FakeOpenAI,
    dashscope_status,
    dripping,
    openai_error,
    openai_moderation_blocked,
    openai_success,
    swatch_png,
)


def style_codes() -> list[str]:
    conn = sqlite3.connect(database_path())
    try:
        return [r[0] for r in conn.execute("SELECT style_code FROM style WHERE source = 'AI'")]
    finally:
        conn.close()


def test_wait_json_prints_the_finished_task_with_its_style_code(capsys):
    status = main(["generate", "奶白色底胶、贝壳碎片、无名指跳色", "--provider", "offline", "--wait", "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert status == 0
    assert printed["status"] == "SUCCESS" and printed["task_type"] == "STYLE_GENERATION"
    assert printed["attempt_count"] == 1 and printed["provider"] == "offline"
    assert style_codes() == [printed["result"]["style_code"]]


def test_without_wait_the_task_is_only_queued(capsys):
    assert main(["generate", "red french tips", "--provider", "offline"]) == 0
    line = capsys.readouterr().out.split()
    assert line[0].startswith("T") and line[1] == "PENDING"
    assert style_codes() == []


def test_the_provider_comes_from_the_environment_and_a_rejection_exits_1(capsys, monkeypatch):
    with FakeOpenAI() as openai:
        openai.queue(openai_moderation_blocked())
        monkeypatch.setenv("NAILMIRROR_PROVIDER", "openai")
        monkeypatch.setenv("NAILMIRROR_OPENAI_BASE_URL", openai.base_url)
        monkeypatch.setenv("NAILMIRROR_OPENAI_API_KEY", API_KEY)
        status = main(["generate", "glitter ombre", "--wait", "--json"])
    out = capsys.readouterr().out
    printed = json.loads(out)
    assert status == 1 and API_KEY not in out
    outcome = (printed["status"], printed["last_error_code"], printed["attempt_count"])
    assert outcome == ("DEAD", "moderation_blocked", 1)
    assert style_codes() == []


def test_an_unknown_provider_in_the_environment_is_refused(capsys, monkeypatch):
    monkeypatch.setenv("NAILMIRROR_PROVIDER", "midjourney")
    assert main(["generate", "red"]) == 1
    assert "provider_unknown" in capsys.readouterr().err


def test_an_unknown_provider_option_is_a_usage_error():
    with pytest.raises(SystemExit) as caught:
        main(["generate", "red", "--provider", "midjourney"])
    assert caught.value.code == 2


def use_openai(monkeypatch, server) -> None:
    monkeypatch.setenv("NAILMIRROR_PROVIDER", "openai")
    monkeypatch.setenv("NAILMIRROR_OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("NAILMIRROR_OPENAI_API_KEY", API_KEY)


@pytest.mark.slow
def test_timeout_holds_mid_attempt_and_the_task_ends_canceled_with_the_reason(capsys, monkeypatch):
    with FakeOpenAI() as openai:
        openai.queue(dripping(openai_success(swatch_png()), 5.0))
        use_openai(monkeypatch, openai)
        started = time.monotonic()
        status = main(["generate", "glitter ombre", "--wait", "--json", "--timeout", "1"])
        elapsed = time.monotonic() - started
    captured = capsys.readouterr()
    printed = json.loads(captured.out)
    assert (status, printed["status"], printed["last_error_code"]) == (3, "CANCELED", "WAIT_TIMEOUT")
    assert "--timeout 1 s" in printed["last_error_message"] and "WAIT_TIMEOUT" in captured.err
    assert elapsed < 2.5, f"--timeout 1 took {elapsed:.1f} s"
    assert style_codes() == [] and openai.generation_count == 1


@pytest.mark.slow
def test_timeout_holds_while_waiting_for_a_dashscope_poll(capsys, monkeypatch):
    with FakeDashScope() as dashscope:
        dashscope.script_next_task(dashscope_status("RUNNING"))
        monkeypatch.setenv("NAILMIRROR_PROVIDER", "dashscope")
        monkeypatch.setenv("NAILMIRROR_DASHSCOPE_BASE_URL", dashscope.base_url)
        monkeypatch.setenv("NAILMIRROR_DASHSCOPE_API_KEY", API_KEY)
        started = time.monotonic()
        status = main(["generate", "glitter ombre", "--wait", "--json", "--timeout", "1"])
        elapsed = time.monotonic() - started
    printed = json.loads(capsys.readouterr().out)
    assert (status, printed["status"], printed["last_error_code"]) == (3, "CANCELED", "WAIT_TIMEOUT")
    assert elapsed < 2.5 and dashscope.submit_count == 1


def test_a_key_echoed_by_the_provider_is_printed_nowhere(capsys, monkeypatch, caplog):
    caplog.set_level("DEBUG")
    with FakeOpenAI() as openai:
        openai.queue(openai_error(400, API_KEY, "invalid_request_error", f"we got {API_KEY}",
                                  {"x-request-id": API_KEY}, param={"nested": [API_KEY]}))
        use_openai(monkeypatch, openai)
        status = main(["generate", "glitter ombre", "--wait", "--json"])
    captured = capsys.readouterr()
    assert status == 1 and json.loads(captured.out)["status"] == "DEAD"
    assert API_KEY not in captured.out + captured.err + caplog.text
