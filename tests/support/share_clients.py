"""Clients for the share server's tests, on loopback only: a GET, a raw socket from a chosen 127.0.0.x address,
and whether the server closed a socket."""

from __future__ import annotations

import http.client
import socket
import struct
import time


def get(url: str, method: str = "GET", source: str | None = None) -> tuple[int, bytes, dict[str, str]]:
    """(status, body, headers with lower-case names) of one request to `url`."""
    rest = url.removeprefix("http://")
    host, _, path = rest.partition("/")
    name, _, port = host.partition(":")
    conn = http.client.HTTPConnection(name, int(port), timeout=5, source_address=(source, 0) if source else None)
    try:
        conn.request(method, "/" + path)
        response = conn.getresponse()
        return response.status, response.read(), {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()


def connect(port: int, source: str = "127.0.0.1", host: str = "127.0.0.1", rcvbuf: int | None = None) -> socket.socket:
    """A TCP connection from `source`; `rcvbuf`: a small receive buffer, for a phone that stops reading."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.bind((source, 0))
    sock.settimeout(5)
    sock.connect((host, port))
    return sock


def request_line(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: kiosk\r\n\r\n".encode()


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """True when the server closed `sock` within `seconds` (whatever it sent first is read and dropped)."""
    deadline = time.monotonic() + seconds
    try:
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False
    return False


def reset(sock: socket.socket) -> None:
    """Close with a TCP reset, as a phone whose connection breaks."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def wait_for(condition, timeout_s: float = 3.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)
