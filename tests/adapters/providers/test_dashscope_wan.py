"""DashScope Wan driver against a real loopback server speaking the async protocol (reference note §1b)."""

from __future__ import annotations

import time

import pytest

from nailmirror_desktop.adapters.http.client import Timeouts
from nailmirror_desktop.adapters.providers.dashscope_wan import DashScopeWanProvider
from nailmirror_desktop.core.generation.provider_config import RemoteProviderSettings, Secret
from nailmirror_desktop.core.generation.provider_port import (
    GenerationRequest,
    PollStatus,
    ProviderError,
)
from nailmirror_desktop.core.generation.provider_port import (
    ProviderErrorClass as C,
)
from tests.support.fake_providers import (
    API_KEY,
    FakeDashScope,
    Reply,
    dashscope_error,
    dashscope_failed,
    dashscope_status,
    dashscope_succeeded,
    dashscope_succeeded_with,
    dashscope_throttled,
    deeply_nested_json,
    dripping,
    endless_json,
    huge_number_json,
    invalid_utf8_json,
    swatch_png,
)

REQUEST = GenerationRequest(english_prompt="milky white base, shell flakes", original_text="奶白色底胶、贝壳碎片",
                            seed=42)


@pytest.fixture
def fake():
    with FakeDashScope() as server:
        yield server


def provider_for(base_url: str, *, key: str = API_KEY, read_s: float = 5.0) -> DashScopeWanProvider:
    settings = RemoteProviderSettings(base_url, Secret(key), "wan2.2-t2i-flash")
    return DashScopeWanProvider(settings, timeouts=Timeouts(2.0, read_s), max_bytes=5_000_000)


def raised(call, *args) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        call(*args)
    return caught.value


def test_submit_then_pending_running_succeeded(fake):
    image = swatch_png(seed=3)
    fake.script_next_task(dashscope_status("PENDING"), dashscope_status("RUNNING"),
                          dashscope_succeeded_with(fake, image))
    provider = provider_for(fake.base_url)

    task_id = provider.submit(REQUEST)
    statuses = [provider.poll(task_id) for _ in range(3)]

    assert [s.status for s in statuses] == [PollStatus.PENDING, PollStatus.RUNNING, PollStatus.SUCCEEDED]
    assert statuses[-1].result.images[0].data == image
    assert statuses[-1].result.failures == ()
    sent = fake.requests_to(fake.SUBMIT)[0]
    assert sent.headers["X-DashScope-Async"] == "enable"
    assert sent.headers["Authorization"] == f"Bearer {API_KEY}"
    body = sent.json()
    assert body["model"] == "wan2.2-t2i-flash" and body["input"]["prompt"] == REQUEST.english_prompt
    assert body["parameters"]["size"] == "1024*1024" and body["parameters"]["seed"] == 42
    assert fake.submit_count == 1 and fake.poll_count(task_id) == 3


def test_failed_with_internal_error_is_transient(fake):
    fake.script_next_task(dashscope_failed("InternalError.Algo", "An internal error has occured during execution."))
    provider = provider_for(fake.base_url)
    error = raised(provider.poll, provider.submit(REQUEST))
    assert (error.code, error.error_class) == ("InternalError.Algo", C.TRANSIENT)


def test_failed_with_data_inspection_is_content_rejected(fake):
    fake.script_next_task(dashscope_failed("DataInspectionFailed", "Output data may contain inappropriate content."))
    provider = provider_for(fake.base_url)
    error = raised(provider.poll, provider.submit(REQUEST))
    assert (error.code, error.error_class) == ("DataInspectionFailed", C.CONTENT_REJECTED)


def test_data_inspection_at_submit_is_content_rejected(fake):
    fake.submit_script.append(
        dashscope_error(400, "DataInspectionFailed", "Input data may contain inappropriate content."))
    error = raised(provider_for(fake.base_url).submit, REQUEST)
    assert (error.code, error.error_class, error.http_status) == ("DataInspectionFailed", C.CONTENT_REJECTED, 400)


@pytest.mark.parametrize("status, code", [("UNKNOWN", "provider_task_unknown"), ("CANCELED", "provider_task_canceled")])
def test_unknown_and_canceled_mean_resubmit(fake, status, code):
    fake.script_next_task(dashscope_status(status))
    provider = provider_for(fake.base_url)
    error = raised(provider.poll, provider.submit(REQUEST))
    assert (error.code, error.error_class) == (code, C.EXPIRED)


def test_an_id_the_server_never_issued_is_unknown(fake):
    assert raised(provider_for(fake.base_url).poll, "no-such-task").error_class is C.EXPIRED


def test_partial_result_keeps_the_good_image_and_reports_the_refused_one(fake):
    image = swatch_png(seed=5)
    fake.script_next_task(dashscope_succeeded_with(fake, image, refused=1))
    provider = provider_for(fake.base_url)
    result = provider.poll(provider.submit(REQUEST)).result
    assert [i.data for i in result.images] == [image]
    assert [f.code for f in result.failures] == ["DataInspectionFailed"]
    assert result.details["task_metrics"] == {"TOTAL": 2, "SUCCEEDED": 1, "FAILED": 1}


def test_a_result_with_every_image_refused_is_content_rejected(fake):
    fake.script_next_task(dashscope_succeeded([], refused=2))
    provider = provider_for(fake.base_url)
    error = raised(provider.poll, provider.submit(REQUEST))
    assert (error.code, error.error_class) == ("DataInspectionFailed", C.CONTENT_REJECTED)


def test_throttling_rate_quota_is_rate_limited(fake):
    fake.submit_script.append(dashscope_throttled())
    error = raised(provider_for(fake.base_url).submit, REQUEST)
    assert (error.code, error.error_class, error.http_status) == ("Throttling.RateQuota", C.RATE_LIMITED, 429)


@pytest.mark.parametrize(
    "status, code, expected",
    [
        (429, "Throttling.AllocationQuota", C.CONFIG),  # free quota used up: waiting does not help
        (400, "Arrearage", C.CONFIG),
        (403, "AccessDenied", C.CONFIG),
        (404, "ModelNotFound", C.CONFIG),
        (400, "InvalidParameter", C.INVALID_REQUEST),
        (500, "InternalError", C.TRANSIENT),
        (502, "SomethingNew", C.TRANSIENT),
    ],
)
def test_submit_errors_are_classified_by_code(fake, status, code, expected):
    fake.submit_script.append(dashscope_error(status, code, "…"))
    assert raised(provider_for(fake.base_url).submit, REQUEST).error_class is expected


def test_a_wrong_key_is_config(fake):
    error = raised(provider_for(fake.base_url, key="sk-wrong").submit, REQUEST)
    assert (error.code, error.error_class) == ("InvalidApiKey", C.CONFIG)


def test_a_submit_timeout_after_sending_is_ambiguous(fake):
    fake.submit_script.append(Reply.json(200, {"output": {"task_status": "PENDING", "task_id": "late"}}))
    fake.submit_script[0].delay_s = 1.5
    error = raised(provider_for(fake.base_url, read_s=0.3).submit, REQUEST)
    assert error.error_class is C.AMBIGUOUS


def test_a_poll_timeout_is_transient(fake):
    provider = provider_for(fake.base_url, read_s=0.3)
    task_id = provider.submit(REQUEST)
    slow = Reply.json(200, {"output": {"task_id": task_id, "task_status": "RUNNING"}})
    slow.delay_s = 1.5
    fake.task_polls[task_id].appendleft(lambda _id: slow)
    assert raised(provider.poll, task_id).error_class is C.TRANSIENT


def test_an_expired_result_url_means_resubmit(fake):
    fake.script_next_task(dashscope_succeeded([fake.url("/blobs/gone.png")]))
    provider = provider_for(fake.base_url)
    error = raised(provider.poll, provider.submit(REQUEST))
    assert (error.code, error.error_class) == ("download_expired", C.EXPIRED)


# --- issue #12: deadlines, unparseable answers, keys echoed back, ids in URLs ---------------------------------


@pytest.mark.slow
def test_a_dripping_poll_answer_is_cut_at_the_total_deadline(fake):
    provider = provider_for(fake.base_url, read_s=1.0)
    task_id = provider.submit(REQUEST)
    slow = dripping(Reply.json(200, {"output": {"task_id": task_id, "task_status": "RUNNING"}, "pad": "x" * 600}), 4.0)
    fake.task_polls[task_id].appendleft(lambda _id: slow)
    started = time.monotonic()
    error = raised(provider.poll, task_id)
    assert (error.code, error.error_class) == ("network_timeout", C.TRANSIENT)  # a GET: polling again is safe
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize("reply", [deeply_nested_json(), huge_number_json(), invalid_utf8_json(), endless_json(),
                                   Reply.json(200, {"output": [1, 2]}), Reply.json(200, {"output": {"task_id": 7}}),
                                   Reply.json(200, {"output": {}})],
                         ids=["deep", "digits", "utf8", "endless", "output-list", "id-number", "no-id"])
def test_a_submit_answer_that_cannot_be_parsed_is_invalid_response(fake, reply):
    fake.submit_script.append(reply)
    error = raised(provider_for(fake.base_url).submit, REQUEST)
    assert (error.code, error.error_class) == ("INVALID_RESPONSE", C.INVALID_REQUEST)


@pytest.mark.parametrize("task_id", ["../../v1/images/generations", "abc?x=1", "abc#frag", "a/b", "a b", "",
                                     "x" * 300, "%2e%2e", "id\r\nHost: evil"])
def test_a_task_id_that_does_not_look_like_one_is_refused_and_never_put_in_a_url(fake, task_id):
    fake.submit_script.append(Reply.json(200, {"output": {"task_status": "PENDING", "task_id": task_id}}))
    provider = provider_for(fake.base_url)
    assert raised(provider.submit, REQUEST).code == "INVALID_RESPONSE"
    assert raised(provider.poll, task_id).code == "INVALID_RESPONSE"
    assert [r.path for r in fake.requests] == [fake.SUBMIT]


def test_a_key_echoed_in_a_failed_task_is_cut_out(fake):
    fake.script_next_task(dashscope_failed(API_KEY, f"key {API_KEY} refused"))
    provider = provider_for(fake.base_url)
    error = raised(provider.poll, provider.submit(REQUEST))
    assert not [text for text in (error.code, error.message, str(error), error.request_id) if API_KEY in str(text)]
