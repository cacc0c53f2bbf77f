"""The share server's bounds (issue #20, point 8), over real sockets from 127.0.0.x: no thread per connection,
at most 8 connections per address and 64 in all (the excess closed at once, yet a new phone gets in), and the
header and idle timeouts (shortened here)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from nailmirror_desktop.adapters.share.server import ShareServer
from tests.support.share_clients import closed_within, connect, get, request_line, wait_for

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    path = tmp_path / "after.png"
    path.write_bytes(PNG)
    return path


def started(snapshot: Path, **limits: float) -> tuple[ShareServer, str]:
    server = ShareServer(bind="127.0.0.1", advertised_host=lambda: "127.0.0.1", **limits)  # type: ignore[arg-type]
    return server, server.offer(snapshot).url


def test_connections_past_eight_from_one_address_are_closed_at_once_and_no_thread_is_started(snapshot):
    server, url = started(snapshot)
    try:
        threads = threading.active_count()
        socks = [connect(server.bound_port, "127.0.0.2") for _ in range(12)]
        assert [closed_within(s, 0.5) for s in socks[8:]] == [True] * 4  # the excess, at once
        assert not any(closed_within(s, 0.05) for s in socks[:8])  # the first eight are kept
        assert threading.active_count() <= threads  # no thread per connection
        assert get(url + "/photo.png")[1] == PNG  # another address is served meanwhile
        stats = server.stats()
        assert stats.refused == 4 and stats.open <= 9
    finally:
        server.close()


@pytest.mark.slow
def test_at_most_64_connections_in_all_yet_a_new_phone_gets_in(snapshot):
    server, url = started(snapshot)
    try:
        held = [connect(server.bound_port, f"127.0.0.{n}") for n in range(2, 10) for _ in range(8)]  # 8 × 8
        wait_for(lambda: server.stats().open == 64)
        late = [connect(server.bound_port, f"127.0.0.{n}") for n in (10, 11) for _ in range(8)]
        status, body, _ = get(url + "/photo.png")  # the customer's phone, with the table full
        assert status == 200 and body == PNG
        wait_for(lambda: server.stats().open <= 64)
        still_open = [s for s in held + late if not closed_within(s, 0.02)]
        stats = server.stats()
        assert len(still_open) == stats.open <= 64 and stats.evicted > 0 and stats.refused > 0
    finally:
        server.close()


@pytest.mark.slow
def test_a_silent_or_slow_client_is_closed_at_the_header_timeout_and_an_idle_one_later(snapshot):
    server, url = started(snapshot, header_timeout_s=0.4, idle_timeout_s=1.0)
    try:
        silent = connect(server.bound_port)
        slow = connect(server.bound_port, "127.0.0.2")
        began = time.monotonic()
        for byte in b"GET /s/":  # a byte every 50 ms does not keep the head's deadline away
            slow.send(bytes([byte]))
            time.sleep(0.05)
        assert closed_within(silent, 2.0) and closed_within(slow, 2.0)
        assert 0.3 <= time.monotonic() - began <= 1.0
        kept = connect(server.bound_port, "127.0.0.3")
        kept.sendall(request_line("/" + url.split("/", 3)[3]))  # the page
        answered = time.monotonic()
        assert kept.recv(4096).startswith(b"HTTP/1.1 200") and not closed_within(kept, 0.6)  # idle, not head
        assert closed_within(kept, 1.5) and 0.9 <= time.monotonic() - answered <= 2.0
        assert server.stats().timed_out == 3
    finally:
        server.close()


def test_a_stalled_download_is_closed_at_the_idle_timeout_and_frees_the_link(tmp_path):
    big = tmp_path / "big.png"
    big.write_bytes(bytes(range(256)) * (16 * 4096))
    server = ShareServer(bind="127.0.0.1", advertised_host=lambda: "127.0.0.1", idle_timeout_s=0.5)
    try:
        link = server.offer(big)
        stalled = connect(server.bound_port, "127.0.0.2", rcvbuf=4096)
        stalled.sendall(request_line(f"/s/{link.token}/photo.png"))
        assert stalled.recv(64).startswith(b"HTTP/1.1 200")
        assert get(link.url + "/photo.png", source="127.0.0.3")[0] == 503  # the stalled one holds the link
        wait_for(lambda: server.stats().timed_out == 1, timeout_s=2.0)
        status, body, _ = get(link.url + "/photo.png", source="127.0.0.3")
        assert status == 200 and len(body) == big.stat().st_size
    finally:
        server.close()
