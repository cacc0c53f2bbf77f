"""The HQ URL a kiosk may enroll with: https:// anywhere, http:// only to this machine (a test HQ, or a TLS
proxy on the same box), because the store token travels in every request."""

from __future__ import annotations

import ipaddress
import urllib.parse

from nailmirror_desktop.core.sync.errors import Fault, SyncError

LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def normalise_hq_url(text: str) -> str:
    """The base URL without a trailing slash; SyncError(INVALID) for anything a kiosk must not use."""
    parts = urllib.parse.urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SyncError(Fault.INVALID, "bad_hq_url", f"{text!r} is not an http(s) URL")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise SyncError(Fault.INVALID, "bad_hq_url", "the HQ URL carries no credentials, query or fragment")
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        raise SyncError(Fault.INVALID, "https_required",
                        f"http:// is allowed only for this machine (loopback), not {parts.hostname}; use https://")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
