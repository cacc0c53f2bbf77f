"""One HTTP exchange with a provider over http.client: explicit timeouts, a total deadline, a body size cap, no
retries.

Transport failures are classified by *when* they happen: before the request left (connect refused, DNS,
TLS) is TRANSIENT; after it was sent (timeout, reset while waiting) is AMBIGUOUS for a call that is not
idempotent (the provider may be generating and billing) and TRANSIENT for one that is (GET).

Deadlines: a socket timeout bounds one read only, so a server that drips a byte now and then would never be cut
off. `DeadlineGuard` shuts the socket when the whole answer (status, headers, body) has not arrived by the
deadline, or when the running attempt's StopSignal fires (`generate --timeout`), so every blocked read returns.

Answers: a 2xx body is parsed strictly (`HttpAnswer.document`): invalid UTF-8, invalid JSON, nesting too deep
for the parser, numbers of absurd length and NaN/Infinity are INVALID_RESPONSE, as is a body past the size cap.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from nailmirror_desktop.core.generation.provider_port import INVALID_RESPONSE, ProviderError, StopSignal, current_stop
from nailmirror_desktop.core.generation.provider_port import ProviderErrorClass as C

_CHUNK = 64 * 1024
_MAX_NUMBER_CHARS = 64  # no field of a provider answer needs a longer number


@dataclass(frozen=True)
class HttpAnswer:
    status: int
    headers: dict[str, str]  # keys lower-cased
    body: bytes

    def json(self) -> Any:
        """The body as JSON, or None when it is not usable JSON (for error answers, classified by status)."""
        try:
            return parse_json(self.body)
        except ProviderError:
            return None

    def document(self) -> dict[str, Any]:
        """The body of a 2xx answer as a JSON object; raises ProviderError INVALID_RESPONSE otherwise."""
        document = parse_json(self.body)
        if not isinstance(document, dict):
            raise invalid_response(f"the answer is a JSON {type(document).__name__}, not an object")
        return document

    @property
    def request_id(self) -> str | None:
        return self.headers.get("x-request-id") or self.headers.get("x-dashscope-request-id")


def invalid_response(why: str) -> ProviderError:
    return ProviderError(INVALID_RESPONSE, why[:300], C.INVALID_REQUEST)


def parse_json(body: bytes) -> Any:
    """Strict JSON: raises ProviderError INVALID_RESPONSE for anything but sane UTF-8 JSON."""
    try:
        return json.loads(body.decode("utf-8"), parse_int=_parse_int, parse_float=_parse_float,
                          parse_constant=_refuse_constant)
    except (ValueError, RecursionError, TypeError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise invalid_response(f"the answer is not usable JSON ({type(exc).__name__}: {str(exc)[:80]})") from None


def _parse_int(text: str) -> int:
    if len(text) > _MAX_NUMBER_CHARS:
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text) if len(text) <= _MAX_NUMBER_CHARS else float("inf")
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"a number out of range ({len(text)} characters)")
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


@contextmanager
def interpreting(what: str) -> Iterator[None]:
    """Around reading a 2xx answer: a shape the code did not expect becomes INVALID_RESPONSE, never an unclassified
    exception (which the engine would retry, sending a paid request again)."""
    try:
        yield
    except ProviderError:
        raise
    except Exception as exc:  # noqa: BLE001 — any surprise in a provider's answer is that answer's fault
        raise invalid_response(f"{what}: {type(exc).__name__}") from None


@dataclass(frozen=True)
class Timeouts:
    """connect_s bounds connecting; read_s bounds any single wait and also the whole answer (status, headers and
    body must all arrive within read_s of connecting); total_s, if set, caps connect + send + answer together
    (default connect_s + read_s)."""

    connect_s: float
    read_s: float
    total_s: float | None = None

    @property
    def overall_s(self) -> float:
        return self.total_s if self.total_s is not None else self.connect_s + self.read_s


class DeadlineGuard:
    """Shuts a connection's socket at a deadline or when a StopSignal fires, so every blocked read returns.

    `why` says what fired ("deadline" or "stopped"; None if nothing): a read that ended early because of the guard
    must be reported as that, never taken for a complete answer.
    """

    def __init__(self, conn: http.client.HTTPConnection, stop: StopSignal | None) -> None:
        self._conn = conn
        self._stop = stop
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._unregister = stop.on_stop(lambda: self._fire("stopped")) if stop is not None else None
        self.why: str | None = "stopped" if stop is not None and stop.fired else None
        self.deadline = float("inf")
        # Held from connect on: http.client drops conn.sock once it hands a closing connection to the response,
        # while the response still reads from the same file descriptor.
        self._sock: socket.socket | None = None

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sock = sock

    def arm(self, deadline: float) -> None:
        """Fire at `deadline` (time.monotonic seconds) unless disarmed first; re-arming replaces the deadline."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self.deadline = deadline
            self._timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._fire, ("deadline",))
            self._timer.daemon = True
            self._timer.start()

    def remaining(self) -> float:
        return max(0.001, self.deadline - time.monotonic())

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
        if self._unregister is not None:
            self._unregister()

    def _fire(self, why: str) -> None:
        with self._lock:
            if self.why is None:
                self.why = why
            sock = self._sock or self._conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):  # the plain socket's shutdown: wakes a blocked TLS read too
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def error(self, method: str, host: str, *, code: str, error_class: C) -> ProviderError:
        """The error for an exchange the guard cut short."""
        if self.why == "stopped" and self._stop is not None:
            return ProviderError(self._stop.code or "STOPPED", self._stop.reason or "stopped", C.TRANSIENT)
        return ProviderError(code, f"{method} {host}: no complete answer before the deadline", error_class)


def open_connection(url: urllib.parse.SplitResult, timeouts: Timeouts) -> http.client.HTTPConnection:
    host, port = url.hostname or "", url.port
    connect_s = min(timeouts.connect_s, timeouts.overall_s)
    if url.scheme == "https":
        return http.client.HTTPSConnection(host, port, timeout=connect_s, context=ssl.create_default_context())
    if url.scheme == "http":
        return http.client.HTTPConnection(host, port, timeout=connect_s)
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
    """Send one request and read the whole answer (any status) before the deadline. Raises ProviderError on
    transport failures, on a deadline or stop, and on a body past `max_body_bytes` (INVALID_RESPONSE)."""
    started = time.monotonic()
    parts = urllib.parse.urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    conn = open_connection(parts, timeouts)
    guard = DeadlineGuard(conn, current_stop())
    after_send_class = C.TRANSIENT if idempotent else C.AMBIGUOUS
    try:
        guard.arm(started + timeouts.overall_s)
        try:
            conn.connect()
        except (OSError, ssl.SSLError) as exc:  # nothing was sent: always safe to retry
            if guard.why is not None:
                raise guard.error(method, str(parts.hostname), code="network_timeout",
                                  error_class=C.TRANSIENT) from None
            raise ProviderError("network_unreachable", f"connect to {parts.hostname}: {exc}", C.TRANSIENT) from exc
        if guard.why is not None:  # stopped while connecting: nothing was sent
            raise guard.error(method, str(parts.hostname), code="network_timeout", error_class=C.TRANSIENT)
        guard.watch(conn.sock)
        guard.arm(min(guard.deadline, time.monotonic() + timeouts.read_s))
        conn.sock.settimeout(guard.remaining())
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            answer_headers = {k.lower(): v for k, v in response.getheaders()}
            data = read_capped(response, max_body_bytes)
        except ProviderError:
            raise
        except (OSError, http.client.HTTPException) as exc:
            if guard.why is not None:
                raise guard.error(method, str(parts.hostname), code="network_timeout",
                                  error_class=after_send_class) from None
            code = "network_timeout" if isinstance(exc, socket.timeout) else "network_interrupted"
            raise ProviderError(code, f"{method} {parts.hostname}: {exc!r}", after_send_class) from exc
        if guard.why is not None:  # the guard cut the body short: what was read is not the answer
            raise guard.error(method, str(parts.hostname), code="network_timeout", error_class=after_send_class)
        return HttpAnswer(response.status, answer_headers, data)
    finally:
        guard.close()
        conn.close()


def read_capped(response: http.client.HTTPResponse, max_bytes: int) -> bytes:
    """Read the body in chunks, refusing more than `max_bytes` (checked before and while reading)."""
    declared = response.getheader("Content-Length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise ProviderError(INVALID_RESPONSE, f"declared {declared[:20]} bytes > {max_bytes}", C.INVALID_REQUEST)
    chunks, total = [], 0
    while True:
        chunk = response.read(_CHUNK)
        if not chunk:
            break
        total += len(chunk)
        if total > max_bytes:
            raise ProviderError(INVALID_RESPONSE, f"more than {max_bytes} bytes", C.INVALID_REQUEST)
        chunks.append(chunk)
    if response.length:  # read(amt) returns b"" at EOF even when bytes of a declared length are missing
        raise http.client.IncompleteRead(b"".join(chunks), response.length)
    return b"".join(chunks)


def json_body(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")
