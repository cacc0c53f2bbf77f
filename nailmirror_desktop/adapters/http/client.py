"""One HTTP exchange with a provider over http.client: explicit timeouts, a body size cap, no retries.

Transport failures are classified by *when* they happen: before the request left (connect refused, DNS,
TLS) is TRANSIENT; after it was sent (timeout, reset while waiting) is AMBIGUOUS for a call that is not
idempotent (the provider may be generating and billing) and TRANSIENT for one that is (GET).
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import urllib.parse
from dataclasses import dataclass
from typing import Any

from nailmirror_desktop.core.generation.provider_port import ProviderError
from nailmirror_desktop.core.generation.provider_port import ProviderErrorClass as C

_CHUNK = 64 * 1024


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    headers: dict[str, str]  # keys lower-cased
    body: bytes

    def json(self) -> Any:
        """The body as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None

    @property
    def request_id(self) -> str | None:
        return self.headers.get("x-request-id") or self.headers.get("x-dashscope-request-id")


@dataclass(frozen=True)
class Timeouts:
    connect_s: float
    read_s: float


def open_connection(url: urllib.parse.SplitResult, timeouts: Timeouts) -> http.client.HTTPConnection:
    host, port = url.hostname or "", url.port
    if url.scheme == "https":
        return http.client.HTTPSConnection(host, port, timeout=timeouts.connect_s, context=ssl.create_default_context())
    if url.scheme == "http":
        return http.client.HTTPConnection(host, port, timeout=timeouts.connect_s)
    raise ProviderError("url_scheme_refused", f"scheme {url.scheme!r} not allowed", C.CONFIG)


def exchange(
    method: str,
    url: str,
    *,
    headers: dict[str, str],
    body: bytes | None,
    timeouts: Timeouts,
    idempotent: bool,
    max_body_bytes: int,
) -> HttpAnswer:
    """Send one request and read the whole answer (any status). Raises ProviderError on transport failures."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    conn = open_connection(parts, timeouts)
    try:
        try:
            conn.connect()
        except (OSError, ssl.SSLError) as exc:  # nothing was sent: always safe to retry
            raise ProviderError("network_unreachable", f"connect to {parts.hostname}: {exc}", C.TRANSIENT) from exc
        conn.sock.settimeout(timeouts.read_s)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            answer_headers = {k.lower(): v for k, v in response.getheaders()}
            data = read_capped(response, max_body_bytes)
        except ProviderError:
            raise
        except (OSError, http.client.HTTPException) as exc:
            after_send_class = C.TRANSIENT if idempotent else C.AMBIGUOUS
            code = "network_timeout" if isinstance(exc, socket.timeout) else "network_interrupted"
            raise ProviderError(code, f"{method} {parts.hostname}: {exc!r}", after_send_class) from exc
        return HttpAnswer(response.status, answer_headers, data)
    finally:
        conn.close()


def read_capped(response: http.client.HTTPResponse, max_bytes: int) -> bytes:
    """Read the body in chunks, refusing more than `max_bytes` (checked before and while reading)."""
    declared = response.getheader("Content-Length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise ProviderError("response_too_large", f"declared {declared} bytes > {max_bytes}", C.INVALID_REQUEST)
    chunks, total = [], 0
    while True:
        chunk = response.read(_CHUNK)
        if not chunk:
            break
        total += len(chunk)
        if total > max_bytes:
            raise ProviderError("response_too_large", f"more than {max_bytes} bytes", C.INVALID_REQUEST)
        chunks.append(chunk)
    if response.length:  # read(amt) returns b"" at EOF even when bytes of a declared length are missing
        raise http.client.IncompleteRead(b"".join(chunks), response.length)
    return b"".join(chunks)


def json_body(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")
