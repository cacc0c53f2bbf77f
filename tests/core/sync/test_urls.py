"""The enrollment URL rule: https:// anywhere, http:// only to this machine, never credentials in the URL."""

from __future__ import annotations

import pytest

from nailmirror_desktop.core.sync.errors import Fault, SyncError
from nailmirror_desktop.core.sync.urls import normalise_hq_url


@pytest.mark.parametrize(("given", "expected"), [
    ("https://hq.example.com/", "https://hq.example.com"),
    ("https://hq.example.com:8443/nm/", "https://hq.example.com:8443/nm"),
    ("http://127.0.0.1:8780", "http://127.0.0.1:8780"),
    ("http://127.8.9.10", "http://127.8.9.10"),
    ("http://localhost:8780/", "http://localhost:8780"),
    ("http://[::1]:8780", "http://[::1]:8780"),
])
def test_allowed(given: str, expected: str) -> None:
    assert normalise_hq_url(given) == expected


@pytest.mark.parametrize(("given", "code"), [
    ("http://hq.example.com", "https_required"),
    ("http://192.168.1.10:8780", "https_required"),
    ("http://localhost.evil.com", "https_required"),
    ("ftp://hq.example.com", "bad_hq_url"),
    ("hq.example.com", "bad_hq_url"),
    ("https://user:pw@hq.example.com", "bad_hq_url"),
    ("https://hq.example.com/?token=x", "bad_hq_url"),
])
def test_refused(given: str, code: str) -> None:
    with pytest.raises(SyncError) as caught:
        normalise_hq_url(given)
    assert caught.value.fault is Fault.INVALID and caught.value.code == code
