"""Property: whatever a provider's 2xx answer holds — arbitrary bytes or arbitrary JSON-ish documents, shaped like
the real answers or not — the OpenAI and DashScope drivers return a result or raise a ProviderError with a code
of code shape; never another exception (which the engine would retry, sending a paid request again), and a paid
generation request is never answered with a class that sends it again (TRANSIENT or AMBIGUOUS). Real HTTP to the
loopback fake servers."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nailmirror_desktop.adapters.http.client import Timeouts
from nailmirror_desktop.adapters.providers.dashscope_wan import DashScopeWanProvider
from nailmirror_desktop.adapters.providers.openai_images import OpenAIImagesProvider
from nailmirror_desktop.core.generation.provider_config import RemoteProviderSettings, Secret
from nailmirror_desktop.core.generation.provider_port import GenerationRequest, ProviderError, ProviderResult
from nailmirror_desktop.core.generation.provider_port import ProviderErrorClass as C
from tests.support.fake_providers import API_KEY, FakeDashScope, FakeOpenAI, Reply

REQUEST = GenerationRequest(english_prompt="red french tips", original_text="红色法式")
CODE_SHAPE = re.compile(r"[A-Za-z][A-Za-z0-9_.:\-]{0,63}")
TIMEOUTS = Timeouts(2.0, 2.0)

scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=20) | st.sampled_from(["PENDING", "RUNNING", "SUCCEEDED", "FAILED", "UNKNOWN",
                                                     "CANCELED", "InternalError", "moderation_blocked", API_KEY,
                                                     "../x?y", "abc-123", "%%%", "aGVsbG8="]))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)
non_public_urls = st.sampled_from(["http://127.0.0.1:1/x.png", "http://10.0.0.1/x.png", "http://[::1]:1/x.png",
                                   "ftp://example.invalid/x", "not a url", ""])


def openai_shaped() -> st.SearchStrategy[object]:
    item = st.fixed_dictionaries({}, optional={"b64_json": json_values, "url": non_public_urls | json_values,
                                               "revised_prompt": json_values})
    error = st.fixed_dictionaries({}, optional={"code": json_values, "type": json_values, "message": json_values})
    return st.fixed_dictionaries({}, optional={"data": st.lists(item | json_values, max_size=3) | json_values,
                                              "error": error | json_values, "created": json_values,
                                              "usage": json_values})


def dashscope_shaped() -> st.SearchStrategy[object]:
    result = st.fixed_dictionaries({}, optional={"url": non_public_urls | json_values, "code": json_values,
                                                 "message": json_values})
    output = st.fixed_dictionaries({}, optional={
        "task_id": json_values, "task_status": json_values, "code": json_values, "message": json_values,
        "results": st.lists(result | json_values, max_size=3) | json_values})
    return st.fixed_dictionaries({}, optional={"output": output | json_values, "code": json_values,
                                              "message": json_values, "request_id": json_values})


def bodies(shaped: st.SearchStrategy[object]) -> st.SearchStrategy[bytes]:
    as_json = (shaped | json_values).map(lambda doc: json.dumps(doc).encode("utf-8"))
    return as_json | st.binary(max_size=200)


@pytest.fixture(scope="module")
def openai():
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def dashscope():
    with FakeDashScope() as server:
        yield server


def settings(server) -> RemoteProviderSettings:
    return RemoteProviderSettings(server.base_url, Secret(API_KEY), "m")


def assert_clean(error: ProviderError) -> None:
    assert CODE_SHAPE.fullmatch(error.code), error.code
    assert API_KEY not in f"{error.code} {error.message} {error.request_id}"


@given(body=bodies(openai_shaped()))
def test_openai_answers_parse_or_fail_classified(openai, body):
    openai.queue(Reply(200, body, {"Content-Type": "application/json"}))
    provider = OpenAIImagesProvider(settings(openai), timeouts=TIMEOUTS, max_bytes=1_000_000)
    try:
        assert isinstance(provider.generate(REQUEST), ProviderResult)
    except ProviderError as error:
        assert_clean(error)
        assert error.error_class not in (C.TRANSIENT, C.AMBIGUOUS), (error, body[:200])


@given(body=bodies(dashscope_shaped()))
def test_dashscope_submit_answers_parse_or_fail_classified(dashscope, body):
    dashscope.submit_script.append(Reply(200, body, {"Content-Type": "application/json"}))
    provider = DashScopeWanProvider(settings(dashscope), timeouts=TIMEOUTS, max_bytes=1_000_000)
    try:
        task_id = provider.submit(REQUEST)
        assert isinstance(task_id, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", task_id)
    except ProviderError as error:
        assert_clean(error)
        assert error.error_class is not C.AMBIGUOUS


@given(body=bodies(dashscope_shaped()))
def test_dashscope_poll_answers_parse_or_fail_classified(dashscope, body):
    dashscope.set_task_polls("fuzz-task", lambda _id: Reply(200, body, {"Content-Type": "application/json"}))
    provider = DashScopeWanProvider(settings(dashscope), timeouts=TIMEOUTS, max_bytes=1_000_000)
    try:
        provider.poll("fuzz-task")
    except ProviderError as error:
        assert_clean(error)
