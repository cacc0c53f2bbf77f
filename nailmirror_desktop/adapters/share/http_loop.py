"""`ConnectionLoop`: a bounded HTTP/1.1 server loop on one thread (issue #20, point 8).

One selector watches the listening socket and every connection: there is no thread per connection, and the
loop never holds more than `max_connections` sockets, `max_per_address` of them from one address. A connection
past either bound is closed at once, with one exception that keeps a flood from locking a phone out: when the
table is full, a newcomer takes the oldest waiting connection of the address holding most, if that address
holds more than one connection over the newcomer's. A request's head must arrive within `header_timeout_s` of
the connection (or of its first byte on a kept-alive one), and a connection that moves no byte for
`idle_timeout_s` is closed, a stalled download included. Client trouble (resets, garbage, timeouts) closes that
connection quietly: nothing reaches stderr, and the request target (which holds a share token) is never logged.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import selectors
import socket
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus

log = logging.getLogger(__name__)

MAX_HEAD_BYTES = 8192
RECV_BYTES = 16384
ACCEPT_BURST = 64  # connections accepted per wake-up before the others get a turn
BACKLOG = 128
_LISTENER, _WAKE = object(), object()
_OUT_OF_DESCRIPTORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


@dataclass(frozen=True)
class Limits:
    max_connections: int = 64
    max_per_address: int = 8
    header_timeout_s: float = 10.0
    idle_timeout_s: float = 30.0


@dataclass(frozen=True)
class Request:
    method: str  # as sent: log it only when it is a known method
    target: str  # as sent: holds the token, so it is never logged
    client: str
    close: Callable[[], None]  # closes this request's connection (another request may end a dead transfer)


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    close: bool = False  # close the connection once it is sent
    on_done: Callable[[bool], None] | None = None  # True: every byte was sent; False: the connection went first


@dataclass(frozen=True)
class LoopStats:
    accepted: int  # connections taken in
    refused: int  # closed at once: over a bound
    evicted: int  # closed to make room for an address holding fewer
    timed_out: int  # closed by the header or the idle timeout
    open: int  # open now


class _Connection:
    def __init__(self, sock: socket.socket, client: str, now: float) -> None:
        self.sock = sock
        self.client = client
        self.last_active = now
        self.request_started: float | None = now  # the head's timeout counts from the connection
        self.inbuf = bytearray()
        self.pending: list[memoryview] = []  # what is still to send of the response in flight
        self.response: Response | None = None
        self.keep_alive = False
        self.closed = False

    def deadline(self, limits: Limits) -> float:
        if self.response is None and self.request_started is not None:
            return self.request_started + limits.header_timeout_s
        return self.last_active + limits.idle_timeout_s


class ConnectionLoop:
    """Listens on `address` (raises OSError when it cannot) and answers each request with `handler(request)`,
    called on the loop's thread. `start()` runs it, `stop()` closes every socket."""

    def __init__(self, address: tuple[str, int], handler: Callable[[Request], Response], limits: Limits) -> None:
        self.limits = limits
        self._handler = handler
        self._listener = socket.create_server(address, backlog=BACKLOG)
        self._listener.setblocking(False)
        self.address: tuple[str, int] = self._listener.getsockname()[:2]
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ, _LISTENER)
        self._selector.register(self._wake_r, selectors.EVENT_READ, _WAKE)
        self._connections: dict[int, _Connection] = {}  # by fd, oldest first
        self._per_address: Counter[str] = Counter()
        self._counts = Counter[str]()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="share-server", daemon=True)
        self._warned_at = -1e9

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            with contextlib.suppress(OSError):
                self._wake_w.send(b"x")
            self._thread.join(timeout_s)
        else:
            self._close_all()

    def stats(self) -> LoopStats:
        c = self._counts
        return LoopStats(c["accepted"], c["refused"], c["evicted"], c["timed_out"], len(self._connections))

    # --- the loop ---------------------------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                for key, mask in self._selector.select(self._wait_s()):
                    if key.data is _LISTENER:
                        self._quietly(self._accept)
                    elif key.data is _WAKE:
                        self._drain_wake()
                    else:
                        self._guarded(key.data, mask)
                self._quietly(self._expire)
        finally:
            self._close_all()

    def _quietly(self, step: Callable[[], None]) -> None:
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - a bug must not stop the loop nor write to stderr
            log.error("share server step failed: %s", _where(exc))

    def _wait_s(self) -> float:
        now = time.monotonic()
        nearest = min((c.deadline(self.limits) for c in self._connections.values()), default=now + 1.0)
        return max(0.0, min(nearest - now, 1.0))

    def _guarded(self, conn: _Connection, mask: int) -> None:
        """One connection's events; whatever goes wrong closes that connection, quietly."""
        try:
            if not conn.closed and mask & selectors.EVENT_READ:
                self._on_readable(conn)
            if not conn.closed and mask & selectors.EVENT_WRITE:
                self._on_writable(conn)
        except Exception as exc:  # noqa: BLE001 - a bug must not stop the loop, nor its message leak a token
            log.error("share connection failed: %s", _where(exc))
            self._close(conn)

    def _accept(self) -> None:
        for _ in range(ACCEPT_BURST):
            try:
                sock, peer = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in _OUT_OF_DESCRIPTORS:  # the process's descriptors, used elsewhere: wait a little
                    self._warn(f"share server cannot accept: {errno.errorcode.get(exc.errno or 0, exc.errno)}")
                    time.sleep(0.05)
                    return
                continue  # a connection reset before it was accepted
            self._admit(sock, str(peer[0]))

    def _admit(self, sock: socket.socket, client: str) -> None:
        full = len(self._connections) >= self.limits.max_connections
        if self._per_address[client] >= self.limits.max_per_address or (full and not self._make_room(client)):
            sock.close()
            self._counts["refused"] += 1
            return
        sock.setblocking(False)
        conn = _Connection(sock, client, time.monotonic())
        self._connections[sock.fileno()] = conn
        self._per_address[client] += 1
        self._selector.register(sock, selectors.EVENT_READ, conn)
        self._counts["accepted"] += 1

    def _make_room(self, client: str) -> bool:
        """Close the oldest waiting connection of the address holding most, when it holds more than one over
        `client`'s: a flood from a few addresses cannot keep another phone out."""
        heaviest, held = self._per_address.most_common(1)[0]
        if held <= self._per_address[client] + 1:
            return False
        victim = next((c for c in self._connections.values() if c.client == heaviest and c.response is None), None)
        if victim is None:
            return False
        self._close(victim)
        self._counts["evicted"] += 1
        return True

    def _on_readable(self, conn: _Connection) -> None:
        try:
            data = conn.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(conn)
            return
        if not data:
            self._close(conn)
            return
        conn.last_active = time.monotonic()
        if conn.request_started is None:
            conn.request_started = conn.last_active
        conn.inbuf += data
        self._next_request(conn)

    def _next_request(self, conn: _Connection) -> None:
        end = conn.inbuf.find(b"\r\n\r\n")
        if end < 0 or end > MAX_HEAD_BYTES:
            if len(conn.inbuf) > MAX_HEAD_BYTES:
                self._respond(conn, _error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE), keep_alive=False)
            return
        head = bytes(conn.inbuf[:end])
        del conn.inbuf[:end + 4]
        parsed = _parse_head(head)
        if parsed is None:
            self._respond(conn, _error(HTTPStatus.BAD_REQUEST), keep_alive=False)
            return
        method, target, version, headers = parsed
        response = self._handler(Request(method, target, conn.client, lambda: self._close(conn)))
        keep_alive = (version == "HTTP/1.1" and method == "GET" and not response.close
                      and headers.get("connection", "").lower() != "close"
                      and headers.get("content-length", "0") == "0" and "transfer-encoding" not in headers)
        self._respond(conn, response, keep_alive)

    def _respond(self, conn: _Connection, response: Response, keep_alive: bool) -> None:
        if conn.closed:  # the handler closed it
            _done(response, False)
            return
        conn.response, conn.keep_alive = response, keep_alive
        conn.pending = [memoryview(part) for part in (_head_bytes(response, keep_alive), response.body) if part]
        self._selector.modify(conn.sock, selectors.EVENT_WRITE, conn)
        self._on_writable(conn)

    def _on_writable(self, conn: _Connection) -> None:
        """One send per wake-up: a fast phone's download does not keep the loop from the other connections."""
        if conn.pending:
            try:
                sent = conn.sock.send(conn.pending[0])
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                self._close(conn)
                return
            conn.last_active = time.monotonic()
            conn.pending[0] = conn.pending[0][sent:]
            if not conn.pending[0]:
                conn.pending.pop(0)
            if conn.pending:
                return
        response, conn.response, conn.pending = conn.response, None, []
        if response is not None:
            _done(response, True)
        if not conn.keep_alive:
            self._close(conn)
            return
        conn.request_started = conn.last_active if conn.inbuf else None
        self._selector.modify(conn.sock, selectors.EVENT_READ, conn)
        if conn.inbuf:
            self._next_request(conn)

    def _expire(self) -> None:
        now = time.monotonic()
        for conn in [c for c in self._connections.values() if now >= c.deadline(self.limits)]:
            self._counts["timed_out"] += 1
            self._close(conn)

    def _close(self, conn: _Connection) -> None:
        if conn.closed:
            return
        conn.closed = True
        fd = conn.sock.fileno()
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(conn.sock)
        conn.sock.close()
        self._connections.pop(fd, None)
        self._per_address[conn.client] -= 1
        if self._per_address[conn.client] <= 0:
            del self._per_address[conn.client]
        response, conn.response = conn.response, None
        if response is not None:
            _done(response, False)

    def _close_all(self) -> None:
        for conn in list(self._connections.values()):
            self._close(conn)
        for sock in (self._listener, self._wake_r, self._wake_w):
            sock.close()
        self._selector.close()

    def _drain_wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_r.recv(64)

    def _warn(self, message: str) -> None:
        now = time.monotonic()
        if now - self._warned_at >= 60:
            self._warned_at = now
            log.warning(message)


def _parse_head(head: bytes) -> tuple[str, str, str, dict[str, str]] | None:
    """(method, target, version, headers with lower-case names), or None when it is not an HTTP/1.x head."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or parts[2] not in ("HTTP/1.0", "HTTP/1.1"):
        return None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            return None
        headers[name.strip().lower()] = value.strip()
    return parts[0], parts[1], parts[2], headers


def _head_bytes(response: Response, keep_alive: bool) -> bytes:
    try:
        reason = HTTPStatus(response.status).phrase
    except ValueError:
        reason = ""
    lines = [f"HTTP/1.1 {response.status} {reason}", *(f"{k}: {v}" for k, v in response.headers),
             f"Content-Length: {len(response.body)}", f"Connection: {'keep-alive' if keep_alive else 'close'}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _error(status: HTTPStatus) -> Response:
    return Response(int(status), status.phrase.encode(), [("Content-Type", "text/plain; charset=utf-8")], close=True)


def _done(response: Response, delivered: bool) -> None:
    if response.on_done is None:
        return
    try:
        response.on_done(delivered)
    except Exception as exc:  # noqa: BLE001 - the loop goes on
        log.error("share response callback failed: %s", _where(exc))


def _where(exc: BaseException) -> str:
    """The exception's type and where it was raised, without its message (which could quote a request)."""
    frames = traceback.extract_tb(exc.__traceback__)
    place = f" at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else ""
    return type(exc).__name__ + place
