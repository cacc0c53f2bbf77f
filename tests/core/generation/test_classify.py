"""Provider answers to error classes: codes first, HTTP statuses only for unknown codes; Retry-After."""

from __future__ import annotations

from nailmirror_desktop.core.generation.classify import classify_dashscope, classify_openai, parse_retry_after
from nailmirror_desktop.core.generation.provider_port import ProviderErrorClass as C


def test_openai_classification_matches_on_code_first():
    assert classify_openai(400, "moderation_blocked") is C.CONTENT_REJECTED
    assert classify_openai(403, "content_policy_violation") is C.CONTENT_REJECTED
    assert classify_openai(429, "insufficient_quota") is C.CONFIG
    assert classify_openai(429, "rate_limit_exceeded") is C.RATE_LIMITED
    assert classify_openai(429, "slow_down") is C.RATE_LIMITED
    assert classify_openai(503, "server_is_overloaded") is C.TRANSIENT
    assert classify_openai(408, None) is C.TRANSIENT and classify_openai(409, None) is C.TRANSIENT
    assert classify_openai(401, "invalid_api_key") is C.CONFIG
    assert classify_openai(413, None) is C.INVALID_REQUEST


def test_dashscope_classification():
    assert classify_dashscope("DataInspectionFailed", 400) is C.CONTENT_REJECTED
    assert classify_dashscope("IPInfringementSuspect") is C.CONTENT_REJECTED
    assert classify_dashscope("Throttling.RateQuota", 429) is C.RATE_LIMITED
    assert classify_dashscope("Throttling", 429) is C.RATE_LIMITED
    assert classify_dashscope("Throttling.AllocationQuota", 429) is C.CONFIG
    assert classify_dashscope("InternalError.Timeout") is C.TRANSIENT
    assert classify_dashscope(None, 504) is C.TRANSIENT


def test_retry_after_forms():
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "1500", "Retry-After": "9"}) == 1.5
    assert parse_retry_after({"Retry-After": "100000"}) == 120.0  # capped
    assert parse_retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412470.0) == 10.0
    assert parse_retry_after({}) is None and parse_retry_after({"Retry-After": "soon"}) is None
