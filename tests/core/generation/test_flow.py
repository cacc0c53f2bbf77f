"""STYLE_GENERATION end to end: the real task engine (synchronous mode, a manual clock so backoff and polling
cost no wall time), the real style repository and asset store, and real HTTP to the loopback fake providers.

Each case checks the final task state, the attempt count, what the provider saw, and that exactly one style
exists per successful task and none for a failed one.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from nailmirror_desktop.app.services import generation_services, register_generation
from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.generation.flow import STYLE_GENERATION, make_generation_handler, submit_generation
from nailmirror_desktop.core.generation.provider_config import (
    PollSettings,
    ProviderConfig,
    RemoteProviderSettings,
    Secret,
)
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine, TaskStatus
from nailmirror_desktop.core.tasks.store import task_id_from_no
from tests.support.fake_providers import (
    API_KEY,
    FakeDashScope,
    FakeOpenAI,
    Reply,
    blank_png,
    dashscope_error,
    dashscope_failed,
    dashscope_status,
    dashscope_succeeded,
    dashscope_succeeded_with,
    dashscope_throttled,
    deeply_nested_json,
    dripping,
    endless_json,
    hang_up,
    huge_number_json,
    invalid_utf8_json,
    openai_error,
    openai_insufficient_quota,
    openai_moderation_blocked,
    openai_rate_limited,
    openai_server_error,
    openai_success,
    replies_in_turn,
    swatch_png,
)

ROOT = Path(__file__).resolve().parents[3]
PROMPT = "奶白色底胶、贝壳碎片、无名指跳色"
ENGINE_CONFIG = EngineConfig(retry_base_s=0.01, breaker_cooldown_s=5.0, lease_s=60.0)


@pytest.fixture
def openai():
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def dashscope():
    with FakeDashScope() as server:
        yield server


NOWHERE = "http://127.0.0.1:9"  # the discard port: a provider never reached


def provider_config(openai_url: str = NOWHERE, dashscope_url: str = NOWHERE) -> ProviderConfig:
    return ProviderConfig(
        openai=RemoteProviderSettings(openai_url, Secret(API_KEY), "gpt-image-1"),
        dashscope=RemoteProviderSettings(dashscope_url, Secret(API_KEY), "wan2.2-t2i-flash"),
        connect_timeout_s=2.0,
        read_timeout_s=5.0,
        poll=PollSettings(initial_s=2.0, growth=1.5, max_s=10.0, deadline_s=600.0),
    )


def new_engine(config: ProviderConfig, clock=None) -> TaskEngine:
    engine = TaskEngine(database_path(), clock=clock or ManualClock(), config=ENGINE_CONFIG)
    register_generation(engine, config)
    return engine


def generate(engine: TaskEngine, provider: str, *, prompt: str = PROMPT, max_attempts: int | None = None):
    task = submit_generation(engine, prompt, provider, max_attempts=max_attempts)
    engine.run_until_idle(timeout_s=60)
    return engine.get(task.task_no)


def ai_styles() -> list[sqlite3.Row]:
    conn = sqlite3.connect(database_path())
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute("SELECT * FROM style WHERE source = 'AI' ORDER BY id").fetchall()
    finally:
        conn.close()


def assert_one_style_for(task) -> sqlite3.Row:
    styles = ai_styles()
    assert len(styles) == 1, [dict(s) for s in styles]
    style = styles[0]
    assert task.status is TaskStatus.SUCCESS
    assert task.result["style_code"] == style["style_code"]
    assert style["origin_task_no"] == task.task_no and style["status"] == "DRAFT"
    assert (task.biz_type, task.biz_id) == ("STYLE", str(style["id"])), "the task must link to the style it made"
    return style


def assert_failed_without_style(task, status: TaskStatus, code: str, attempts: int) -> None:
    assert (task.status, task.last_error_code, task.attempt_count) == (status, code, attempts)
    assert ai_styles() == []


# ---------------------------------------------------------------------------------------------- offline


def test_offline_generation_makes_a_previewable_draft_with_textures():
    with new_engine(provider_config()) as engine:
        task = generate(engine, "offline")
        style = assert_one_style_for(task)
        assert task.attempt_count == 1 and task.result["provider"] == "offline"
        assert style["is_previewable"] == 1 and style["accent_fingers"] == "ring" and style["prompt"] == PROMPT
        repo = StyleRepository(engine._conn())
        slots = {(a.asset_type, a.slot) for a in repo.assets(style["id"])}
        assert {("NAIL_TEXTURE", "nail"), ("NAIL_TEXTURE", "accent"), ("COVER", ""), ("THUMBNAIL", "")} <= slots


def test_the_same_prompt_and_seed_give_the_same_textures():
    with new_engine(provider_config()) as engine:
        first, second = (generate(engine, "offline") for _ in range(2))
        repo = StyleRepository(engine._conn())
        styles = [repo.get_by_code(t.result["style_code"]) for t in (first, second)]
        hashes = [{(a.slot, a.file_sha256) for a in repo.assets(s.id, asset_type="NAIL_TEXTURE")} for s in styles]
        assert styles[0].id != styles[1].id and hashes[0] == hashes[1]


# ---------------------------------------------------------------------------------------------- OpenAI


def test_openai_success(openai):
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai")
    style = assert_one_style_for(task)
    assert task.attempt_count == 1 and openai.generation_count == 1
    assert "swatch" in openai.requests_to("/v1/images/generations")[0].json()["prompt"]
    assert style["is_previewable"] == 1


def test_openai_rate_limit_waits_retry_after_without_burning_an_attempt(openai):
    openai.queue(openai_rate_limited(retry_after_s=7))
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai")
    assert_one_style_for(task)
    assert (task.attempt_count, task.rate_limited_count, openai.generation_count) == (1, 1, 2)
    assert task.finished_at.timestamp() - task.created_at.timestamp() >= 7  # on the engine's clock


def test_openai_server_errors_are_retried(openai):
    openai.queue(openai_server_error(), openai_server_error())
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai")
    assert_one_style_for(task)
    assert (task.attempt_count, openai.generation_count) == (3, 3)


def test_openai_server_errors_until_the_attempts_run_out(openai):
    openai.queue(*[openai_server_error()] * 3)
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai", max_attempts=3)
    assert_failed_without_style(task, TaskStatus.DEAD, "server_error", 3)  # error.type when code is null
    assert openai.generation_count == 3


def test_openai_timeout_after_sending_is_not_sent_again(openai):
    slow = openai_success(swatch_png())
    slow.delay_s = 1.0
    openai.queue(slow, slow)
    config = replace(provider_config(openai.base_url), read_timeout_s=0.3)
    with new_engine(config) as engine:
        task = generate(engine, "openai")
    # The call reached the provider and may be billed; OpenAI has no job id to ask after: give up, say why.
    assert_failed_without_style(task, TaskStatus.DEAD, "OUTCOME_UNKNOWN", 1)
    assert "network_timeout" in task.last_error_message and openai.generation_count == 1


def test_openai_moderation_is_dead_at_once(openai):
    openai.queue(openai_moderation_blocked())
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai")
    assert_failed_without_style(task, TaskStatus.DEAD, "moderation_blocked", 1)
    assert task.last_error_class == "CONTENT_REJECTED" and openai.generation_count == 1


def test_openai_insufficient_quota_trips_the_breaker_and_is_not_hammered(openai):
    openai.queue(openai_insufficient_quota(), openai_insufficient_quota())
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai", max_attempts=2)
        breaker = engine.breaker_states().get("openai")
    assert_failed_without_style(task, TaskStatus.DEAD, "insufficient_quota", 2)
    assert task.last_error_class == "CONFIG" and openai.generation_count == 2
    assert breaker is not None and breaker["trips"] == 2
    assert task.finished_at.timestamp() - task.created_at.timestamp() >= ENGINE_CONFIG.breaker_cooldown_s


def test_openai_blank_image_fails_the_quality_screen(openai):
    openai.queue(openai_success(blank_png()))
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai")
    assert_failed_without_style(task, TaskStatus.DEAD, "result_blank", 1)


def test_openai_tiny_image_fails_the_quality_screen(openai):
    openai.queue(openai_success(swatch_png(size=96)))
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai")
    assert_failed_without_style(task, TaskStatus.DEAD, "result_too_small", 1)


def test_openai_garbage_bytes_are_dead(openai):
    openai.queue(openai_success(b"GIF89a-not-really" * 50))
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai")
    assert_failed_without_style(task, TaskStatus.DEAD, "result_not_image", 1)


def test_the_api_key_stays_out_of_the_database_and_the_logs(openai, caplog):
    openai.queue(openai_server_error())
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai")
        assert task.status is TaskStatus.SUCCESS
        assert "key" not in "".join(task.payload)
    for path in (p for p in database_path().parent.glob("nailmirror.db*") if p.is_file()):
        assert API_KEY.encode() not in path.read_bytes()
    assert API_KEY not in caplog.text


# ---------------------------------------------------------------------------------------------- DashScope


def test_dashscope_pending_running_succeeded(dashscope):
    dashscope.script_next_task(dashscope_status("PENDING"), dashscope_status("RUNNING"),
                               dashscope_succeeded_with(dashscope, swatch_png(seed=4)))
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_one_style_for(task)
    assert (task.attempt_count, dashscope.submit_count) == (1, 1)
    assert task.provider_task_id and dashscope.poll_count(task.provider_task_id) == 3


def test_cancelling_while_polling_stops_without_a_style_or_another_poll(dashscope):
    """Staff cancel a generation while DashScope is still drawing: the worker notices before its next poll, the task
    ends CANCELED with its one attempt counted, no style is made, and the provider is neither polled nor billed
    again."""
    seen: dict = {}

    def running_and_cancelled_meanwhile(task_id: str) -> Reply:
        seen["cancel"] = seen["engine"].cancel(seen["task_no"])  # from the server's thread, as the staff screen would
        return dashscope_status("RUNNING")(task_id)

    dashscope.script_next_task(dashscope_status("PENDING"), running_and_cancelled_meanwhile,
                               dashscope_status("RUNNING"))
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        seen["engine"] = engine
        seen["task_no"] = submit_generation(engine, PROMPT, "dashscope").task_no
        engine.run_until_idle(timeout_s=60)
        task = engine.get(seen["task_no"])
        history = [event.kind for event in engine.history(task.task_no)]
    assert seen["cancel"].status is TaskStatus.PROCESSING and seen["cancel"].cancel_requested
    assert (task.status, task.attempt_count, task.finished_at is not None) == (TaskStatus.CANCELED, 1, True)
    assert (dashscope.submit_count, dashscope.poll_count(task.provider_task_id or "")) == (1, 2)
    assert ai_styles() == []
    assert "CANCEL_REQUESTED" in history, history


def test_dashscope_failed_internal_error_resubmits_on_the_next_attempt(dashscope):
    dashscope.script_tasks([dashscope_failed("InternalError", "An internal error has occured.")],
                           [dashscope_succeeded_with(dashscope, swatch_png(seed=6))])
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_one_style_for(task)
    assert (task.attempt_count, dashscope.submit_count) == (2, 2)  # the failed provider task is not polled again


def test_dashscope_data_inspection_is_dead_at_once(dashscope):
    inspection_failed = dashscope_failed("DataInspectionFailed", "Output data may contain inappropriate content.")
    dashscope.script_next_task(dashscope_status("RUNNING"), inspection_failed)
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_failed_without_style(task, TaskStatus.DEAD, "DataInspectionFailed", 1)
    assert dashscope.submit_count == 1


def test_dashscope_unknown_task_is_resubmitted(dashscope):
    dashscope.script_tasks([dashscope_status("RUNNING"), dashscope_status("UNKNOWN")],
                           [dashscope_succeeded_with(dashscope, swatch_png(seed=8))])
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_one_style_for(task)
    assert (task.attempt_count, dashscope.submit_count) == (2, 2)


def test_dashscope_partial_result_uses_the_good_image(dashscope):
    dashscope.script_next_task(dashscope_succeeded_with(dashscope, swatch_png(seed=10), refused=1))
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_one_style_for(task)
    assert task.result["refused_images"] == 1 and task.attempt_count == 1


def test_dashscope_throttling_waits_without_burning_an_attempt(dashscope):
    dashscope.submit_script.append(dashscope_throttled())
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_one_style_for(task)
    assert (task.attempt_count, task.rate_limited_count, dashscope.submit_count) == (1, 1, 2)


def test_dashscope_poll_server_error_resumes_the_same_provider_task(dashscope):
    dashscope.script_next_task(lambda task_id: dashscope_error(500, "InternalError", "busy"),
                               dashscope_succeeded_with(dashscope, swatch_png(seed=12)))
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_one_style_for(task)
    assert (task.attempt_count, dashscope.submit_count) == (2, 1)


@pytest.mark.parametrize(
    "blob, code",
    [
        (Reply.image(b"\x00\x01garbage bytes" * 100), "result_not_image"),
        (Reply(200, b"\x89PNG" + b"\x00" * 64, {"Content-Type": "image/png"}, endless=True), "download_too_large"),
        (Reply.redirect("http://10.1.2.3/internal.png"), "download_address_refused"),
    ],
    ids=["garbage", "huge", "redirect-private"],
)
def test_dashscope_unusable_result_urls_are_dead_and_not_resubmitted(dashscope, blob, code):
    url = dashscope.serve_blob("result.png", blob)
    dashscope.script_next_task(dashscope_succeeded([url]))
    config = replace(provider_config(dashscope_url=dashscope.base_url), max_download_bytes=2_000_000)
    with new_engine(config) as engine:
        task = generate(engine, "dashscope")
    assert_failed_without_style(task, TaskStatus.DEAD, code, 1)
    assert dashscope.submit_count == 1
    assert task.provider_task_id is None  # a replay starts a fresh provider task


def test_dashscope_download_dropped_midway_is_retried_by_polling_again(dashscope):
    image = swatch_png(seed=14)
    url = dashscope.serve_blob("result.png", replies_in_turn(
        Reply(200, image, {"Content-Type": "image/png"}, drop_after=len(image) // 2), Reply.image(image)))
    dashscope.script_next_task(dashscope_succeeded([url]))
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_one_style_for(task)
    assert (task.attempt_count, dashscope.submit_count) == (2, 1)


# ---------------------------------------------------------------------------------------------- crashes


class _Crash(BaseException):
    """Stands for the process dying: not an Exception, so the engine records no outcome."""


class _RepositoryThatDiesAfterWriting(StyleRepository):
    def create_ai_style(self, task_no, **kwargs):
        super().create_ai_style(task_no, **kwargs)
        raise _Crash()


def test_a_crash_after_the_style_was_written_neither_rebills_nor_duplicates(openai):
    config = provider_config(openai.base_url)
    first = TaskEngine(database_path(), clock=ManualClock(), config=ENGINE_CONFIG)
    services = generation_services(config, first.clock)
    crashing = replace(services, repository_for=lambda conn: _RepositoryThatDiesAfterWriting(
        conn, services.repository_for(conn).store))
    first.register_handler(STYLE_GENERATION, make_generation_handler(crashing))
    task = submit_generation(first, PROMPT, "openai")
    with pytest.raises(_Crash):
        first.run_due()
    first.close()
    assert first_status(task.task_no) == "PROCESSING" and len(ai_styles()) == 1

    later = ManualClock(time.time() + ENGINE_CONFIG.lease_s + 5)  # the lease has expired
    with new_engine(config, clock=later) as engine:
        engine.run_until_idle(timeout_s=30)
        done = engine.get(task.task_no)
    assert_one_style_for(done)
    assert done.result.get("resumed") is True and openai.generation_count == 1


def first_status(task_no: str) -> str:
    conn = sqlite3.connect(database_path())
    try:
        return conn.execute("SELECT status FROM task WHERE id = ?", (task_id_from_no(task_no),)).fetchone()[0]
    finally:
        conn.close()


_WORKER = """
from nailmirror_desktop.app.services import register_generation
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.tasks import TaskEngine
engine = TaskEngine(database_path())
register_generation(engine)
engine.run_until_idle(timeout_s=60)
"""


@pytest.mark.slow
def test_a_killed_worker_resumes_polling_without_a_second_submit(dashscope, nailmirror_home):
    dashscope.script_next_task(dashscope_status("RUNNING"))  # runs until the test says otherwise
    (nailmirror_home / "config.json").write_text(
        '{"providers": {"poll": {"initial_s": 0.05, "growth": 1.0, "max_s": 0.05}}}', encoding="utf-8")
    with TaskEngine(database_path(), config=ENGINE_CONFIG) as engine:
        task = submit_generation(engine, PROMPT, "dashscope")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_DASHSCOPE_BASE_URL": dashscope.base_url,
           "NAILMIRROR_DASHSCOPE_API_KEY": API_KEY}
    worker = subprocess.Popen([sys.executable, "-c", _WORKER], env=env, cwd=ROOT)
    try:
        provider_task_id = _wait_for_polls(task.task_no, dashscope, worker)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
    assert first_status(task.task_no) == "PROCESSING" and ai_styles() == []

    dashscope.set_task_polls(provider_task_id, dashscope_succeeded_with(dashscope, swatch_png(seed=16)))
    later = ManualClock(time.time() + ENGINE_CONFIG.lease_s + 5)
    with new_engine(provider_config(dashscope_url=dashscope.base_url), clock=later) as engine:
        engine.run_until_idle(timeout_s=30)
        done = engine.get(task.task_no)
    assert_one_style_for(done)
    assert dashscope.submit_count == 1  # resumed polling; never resubmitted
    assert done.provider_task_id == provider_task_id and done.attempt_count == 2


def _wait_for_polls(task_no: str, dashscope: FakeDashScope, worker: subprocess.Popen) -> str:
    """The provider task id, once the worker has committed it and polled the provider twice."""
    deadline = time.monotonic() + 30
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
    raise AssertionError("the worker never persisted a provider task id")


def test_a_generated_style_is_named_from_its_design_in_both_languages():
    """Not the raw prompt (core/generation/naming.py): the names say what was understood."""
    with new_engine(provider_config()) as engine:
        task = generate(engine, "offline", prompt="hello, 酒红磨砂 world")
        style = assert_one_style_for(task)
        assert (style["name"], style["name_en"]) == ("酒红磨砂", "Burgundy matte")
        assert style["prompt"] == "hello, 酒红磨砂 world"  # what the customer typed is kept, just not as a name


# ---------------------------------------------------------------------------------------------- issue #12


BAD_ANSWERS = {"deep": deeply_nested_json, "digits": huge_number_json, "utf8": invalid_utf8_json,
               "endless": endless_json}


@pytest.mark.parametrize("bad", list(BAD_ANSWERS))
def test_an_openai_answer_that_cannot_be_parsed_is_dead_and_never_reposted(openai, bad):
    openai.queue(*(BAD_ANSWERS[bad]() for _ in range(5)))
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai")
    assert_failed_without_style(task, TaskStatus.DEAD, "INVALID_RESPONSE", 1)
    assert openai.generation_count == 1, "a paid POST was sent again"


@pytest.mark.parametrize("bad", [*BAD_ANSWERS, "output-list"])
def test_a_dashscope_submit_answer_that_cannot_be_parsed_is_dead_and_never_resubmitted(dashscope, bad):
    make = BAD_ANSWERS.get(bad, lambda: Reply.json(200, {"output": ["task_id"]}))
    dashscope.submit_script.extend(make() for _ in range(5))
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_failed_without_style(task, TaskStatus.DEAD, "INVALID_RESPONSE", 1)
    assert dashscope.submit_count == 1


def test_a_dashscope_poll_answer_that_cannot_be_parsed_is_dead(dashscope):
    dashscope.script_next_task(lambda _id: deeply_nested_json())
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_failed_without_style(task, TaskStatus.DEAD, "INVALID_RESPONSE", 1)
    assert dashscope.submit_count == 1


def test_an_openai_answer_lost_after_sending_is_not_sent_again(openai):
    openai.queue(hang_up(), hang_up())
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai")
    assert_failed_without_style(task, TaskStatus.DEAD, "OUTCOME_UNKNOWN", 1)
    assert openai.generation_count == 1


def test_a_dashscope_submit_answer_lost_is_not_resubmitted(dashscope):
    dashscope.submit_script.extend([hang_up(), hang_up()])
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_failed_without_style(task, TaskStatus.DEAD, "OUTCOME_UNKNOWN", 1)
    assert dashscope.submit_count == 1


def test_a_dashscope_poll_answer_lost_is_polled_again(dashscope):
    dashscope.script_next_task(lambda _id: hang_up(), dashscope_succeeded_with(dashscope, swatch_png(seed=8)))
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_one_style_for(task)
    assert (task.attempt_count, dashscope.submit_count) == (2, 1)


def test_a_dashscope_task_id_that_is_not_an_id_never_reaches_a_url(dashscope):
    dashscope.submit_script.append(Reply.json(200, {"output": {"task_status": "PENDING",
                                                               "task_id": "../../../v1/images/generations?x=1"}}))
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope")
    assert_failed_without_style(task, TaskStatus.DEAD, "INVALID_RESPONSE", 1)
    assert [r.path for r in dashscope.requests] == [dashscope.SUBMIT] and task.provider_task_id is None


def key_echo() -> Reply:
    return openai_error(400, API_KEY, "invalid_request_error", f"we got {API_KEY}", {"x-request-id": API_KEY},
                        param={"nested": {"deeper": [API_KEY]}})


def assert_key_nowhere(engine: TaskEngine, task_no: str, caplog) -> None:
    conn = sqlite3.connect(database_path())
    try:
        rows = conn.execute("SELECT * FROM task").fetchall() + conn.execute("SELECT * FROM task_event").fetchall()
    finally:
        conn.close()
    leaks = [row for row in rows if API_KEY in repr(row)]
    assert leaks == []
    assert API_KEY not in caplog.text and API_KEY not in repr(engine.history(task_no))


def test_a_key_echoed_by_openai_reaches_no_column_event_or_log(openai, caplog):
    caplog.set_level("DEBUG")
    openai.queue(key_echo())
    with new_engine(provider_config(openai.base_url)) as engine:
        task = generate(engine, "openai")
        assert task.status is TaskStatus.DEAD and task.last_error_code
        assert_key_nowhere(engine, task.task_no, caplog)


def test_a_key_echoed_by_dashscope_reaches_no_column_event_or_log(dashscope, caplog):
    caplog.set_level("DEBUG")
    dashscope.script_next_task(dashscope_failed(API_KEY, f"key {API_KEY}"))
    with new_engine(provider_config(dashscope_url=dashscope.base_url)) as engine:
        task = generate(engine, "dashscope", max_attempts=2)
        assert task.status is TaskStatus.DEAD
        assert_key_nowhere(engine, task.task_no, caplog)


def test_a_stop_request_cuts_a_dripping_request_and_the_task_ends_canceled_with_the_reason(openai):
    from nailmirror_desktop.core.generation.provider_port import request_stop

    openai.queue(dripping(openai_success(swatch_png()), 4.0))
    with new_engine(provider_config(openai.base_url)) as engine:
        task_no = submit_generation(engine, PROMPT, "openai").task_no

        def stop_soon() -> None:
            time.sleep(0.5)
            engine.cancel(task_no)
            request_stop(task_no, "WAIT_TIMEOUT", "stopped by the test")

        stopper = threading.Thread(target=stop_soon)
        started = time.monotonic()
        stopper.start()
        engine.run_due()
        elapsed = time.monotonic() - started
        stopper.join()
        task = engine.get(task_no)
    assert (task.status, task.last_error_code, task.last_error_message) == (
        TaskStatus.CANCELED, "WAIT_TIMEOUT", "stopped by the test")
    assert elapsed < 1.5 and openai.generation_count == 1


def test_a_generated_style_is_never_named_like_the_catalog_style_it_resembles_and_versions_are_named_apart():
    with new_engine(provider_config()) as engine:
        repo = StyleRepository(engine._conn())
        catalog = repo.create_style("酒红猫眼", "CATALOG", actor="test", name_en="Burgundy magnetic cat-eye")
        tasks = [submit_generation(engine, "酒红猫眼", "offline", version=v, seed=v + 1) for v in range(3)]
        engine.run_until_idle(timeout_s=60)
        styles = [repo.get_by_code(engine.get(t.task_no).result["style_code"]) for t in tasks]
        names = [catalog.name] + [s.name for s in styles]
        names_en = [catalog.name_en.lower()] + [s.name_en.lower() for s in styles]
        assert len(set(names)) == 4 and len(set(names_en)) == 4, names
        assert styles[0].name.startswith("酒红猫眼") and styles[1].name != styles[2].name
