"""OpenAI Images driver against a real loopback server speaking the API's wire format (reference note §1a)."""

from __future__ import annotations

import base64
import socket
import time

import pytest

from nailmirror_desktop.adapters.http.client import Timeouts
from nailmirror_desktop.adapters.providers.openai_images import OpenAIImagesProvider
from nailmirror_desktop.core.generation.provider_config import RemoteProviderSettings, Secret
from nailmirror_desktop.core.generation.provider_port import GenerationRequest, ProviderError
from nailmirror_desktop.core.generation.provider_port import ProviderErrorClass as C
from tests.support.fake_providers import (
    API_KEY,
    FakeOpenAI,
    Reply,
    deeply_nested_json,
    dripping,
    endless_json,
    huge_number_json,
    invalid_utf8_json,
    openai_error,
    openai_insufficient_quota,
    openai_moderation_blocked,
    openai_rate_limited,
    openai_server_error,
    openai_success,
    swatch_png,
)

REQUEST = GenerationRequest(english_prompt="milky white base, shell flakes", original_text="奶白色底胶、贝壳碎片")


@pytest.fixture
def fake():
    with FakeOpenAI() as server:
        yield server


def provider_for(base_url: str, *, key: str = API_KEY, model: str = "gpt-image-1", read_s: float = 5.0):
    settings = RemoteProviderSettings(base_url, Secret(key), model)
    return OpenAIImagesProvider(settings, timeouts=Timeouts(2.0, read_s), max_bytes=5_000_000)


def failure(provider, request=REQUEST) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        provider.generate(request)
    return caught.value


def test_success_returns_the_decoded_image_and_sends_the_documented_request(fake):
    result = provider_for(fake.base_url).generate(REQUEST)

    assert [image.data for image in result.images] == [fake.default_image]
    assert result.images[0].content_type == "image/png"
    assert result.request_id and result.request_id.startswith("req_")
    sent = fake.requests_to("/v1/images/generations")[0]
    assert sent.headers["Authorization"] == f"Bearer {API_KEY}"
    body = sent.json()
    assert body["model"] == "gpt-image-1" and body["size"] == "1024x1024" and body["n"] == 1
    assert body["prompt"] == REQUEST.english_prompt
    assert "response_format" not in body  # GPT image models reject it and always answer base64


def test_dalle_models_ask_for_b64_json(fake):
    provider_for(fake.base_url, model="dall-e-3").generate(REQUEST)
    assert fake.requests_to("/v1/images/generations")[0].json()["response_format"] == "b64_json"


def test_rate_limit_is_rate_limited_with_retry_after(fake):
    fake.queue(openai_rate_limited(retry_after_s=7))
    error = failure(provider_for(fake.base_url))
    assert (error.code, error.error_class, error.retry_after_s, error.http_status) == (
        "rate_limit_exceeded", C.RATE_LIMITED, 7.0, 429)


def test_server_error_is_transient(fake):
    fake.queue(openai_server_error())
    error = failure(provider_for(fake.base_url))
    assert error.error_class is C.TRANSIENT and error.http_status == 500 and error.retry_after_s is None


def test_moderation_blocked_is_content_rejected(fake):
    fake.queue(openai_moderation_blocked())
    error = failure(provider_for(fake.base_url))
    assert (error.code, error.error_class) == ("moderation_blocked", C.CONTENT_REJECTED)


def test_insufficient_quota_is_an_account_problem_not_a_rate_limit(fake):
    fake.queue(openai_insufficient_quota())
    error = failure(provider_for(fake.base_url))
    assert (error.code, error.error_class, error.retry_after_s) == ("insufficient_quota", C.CONFIG, None)


def test_a_wrong_key_is_config_and_not_quoted_back(fake):
    error = failure(provider_for(fake.base_url, key="sk-wrong-key-123"))
    assert (error.code, error.error_class, error.http_status) == ("invalid_api_key", C.CONFIG, 401)
    assert "sk-wrong-key-123" not in error.message and "****" in error.message


def test_a_missing_key_fails_before_any_request(fake):
    error = failure(provider_for(fake.base_url, key=""))
    assert error.error_class is C.CONFIG and fake.generation_count == 0


def test_an_error_field_in_a_200_answer_is_still_an_error(fake):
    fake.queue(openai_error(200, "content_policy_violation", "invalid_request_error", "rejected"))
    assert failure(provider_for(fake.base_url)).error_class is C.CONTENT_REJECTED


def test_invalid_request_is_dead(fake):
    fake.queue(openai_error(400, "invalid_value", "invalid_request_error", "Invalid size"))
    assert failure(provider_for(fake.base_url)).error_class is C.INVALID_REQUEST


def test_a_timeout_after_sending_is_ambiguous(fake):
    fake.queue(Reply(200, b"{}", {"Content-Type": "application/json"}, delay_s=1.5))
    error = failure(provider_for(fake.base_url, read_s=0.3))
    assert error.error_class is C.AMBIGUOUS
    assert fake.generation_count == 1  # it did reach the server: that is why it may be billed


def test_connection_refused_is_transient():
    with socket.socket() as probe:  # a port with nobody listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    error = failure(provider_for(f"http://127.0.0.1:{port}"))
    assert (error.code, error.error_class) == ("network_unreachable", C.TRANSIENT)


def test_garbage_bytes_in_b64_json_are_refused(fake):
    fake.queue(openai_success(b"this is not an image at all" * 20))
    error = failure(provider_for(fake.base_url))
    assert (error.code, error.error_class) == ("result_not_image", C.INVALID_REQUEST)


def test_invalid_base64_is_refused(fake):
    fake.queue(Reply.json(200, {"created": 1, "data": [{"b64_json": "%%%not-base64%%%"}]}))
    assert failure(provider_for(fake.base_url)).code == "result_undecodable"


def test_a_truncated_png_is_refused(fake):
    image = swatch_png()
    fake.queue(openai_success(image[: len(image) // 2]))
    assert failure(provider_for(fake.base_url)).code == "result_truncated"


def test_an_answer_without_images_is_refused(fake):
    fake.queue(Reply.json(200, {"created": 1, "data": []}))
    assert failure(provider_for(fake.base_url)).code == "result_empty"


def test_the_key_never_shows_in_reprs(fake):
    provider = provider_for(fake.base_url)
    settings = RemoteProviderSettings(fake.base_url, Secret(API_KEY), "gpt-image-1")
    for text in (repr(provider), repr(settings), str(settings), repr(Secret(API_KEY))):
        assert API_KEY not in text
    assert base64.b64encode(API_KEY.encode()).decode() not in repr(settings)


def test_a_connection_dropped_mid_answer_is_ambiguous(fake):
    success = openai_success(fake.default_image)
    fake.queue(Reply(200, success.body, success.headers, drop_after=len(success.body) // 2))
    error = failure(provider_for(fake.base_url))
    assert (error.code, error.error_class) == ("network_interrupted", C.AMBIGUOUS)


# --- issue #12: deadlines, unparseable answers, keys echoed back ----------------------------------------------


@pytest.mark.slow
def test_a_dripping_answer_is_cut_at_the_total_deadline(fake):
    """Each read comes quickly, the whole answer does not: the read timeout alone never fires."""
    fake.queue(dripping(openai_success(swatch_png(size=64)), 4.0))
    started = time.monotonic()
    error = failure(provider_for(fake.base_url, read_s=1.0))
    elapsed = time.monotonic() - started
    assert (error.code, error.error_class) == ("network_timeout", C.AMBIGUOUS)
    assert elapsed < 2.0, f"a 4 s drip with a 1 s budget took {elapsed:.1f} s"


@pytest.mark.parametrize("reply", [deeply_nested_json(), huge_number_json(), invalid_utf8_json(), endless_json(),
                                   Reply(200, b"not json at all", {"Content-Type": "application/json"}),
                                   Reply(200, b'{"data": NaN}', {"Content-Type": "application/json"})],
                         ids=["deep", "digits", "utf8", "endless", "garbage", "nan"])
def test_a_2xx_answer_that_cannot_be_parsed_is_invalid_response(fake, reply):
    fake.queue(reply)
    error = failure(provider_for(fake.base_url))
    assert (error.code, error.error_class) == ("INVALID_RESPONSE", C.INVALID_REQUEST)


def test_a_key_echoed_in_any_field_of_an_error_is_cut_out(fake):
    fake.queue(openai_error(400, API_KEY, "invalid_request_error", f"bad key {API_KEY}",
                            {"x-request-id": API_KEY}, param={"nested": [API_KEY]}))
    error = failure(provider_for(fake.base_url))
    fields = (error.code, error.message, error.request_id, str(error), repr(error), str(error.args))
    assert not [text for text in fields if API_KEY in str(text)]
    assert error.error_class is C.INVALID_REQUEST and len(error.code) <= 64
