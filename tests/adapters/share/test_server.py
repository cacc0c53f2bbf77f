"""The one-time share link, over a real HTTP server on loopback."""

from __future__ import annotations

import http.client
import time
from pathlib import Path

import pytest

from nailmirror_desktop.adapters.share.offers import RateLimiter, ShareOffers
from nailmirror_desktop.adapters.share.server import ShareServer

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8  # the server sends bytes as they are: any content will do


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    path = tmp_path / "20261201T000000Z_FR-ABC123_after.png"
    path.write_bytes(PNG)
    return path


@pytest.fixture
def clock() -> list[float]:
    return [1000.0]


@pytest.fixture
def server(clock):
    downloads: list[str] = []
    share = ShareServer(port=0, bind="127.0.0.1", offers=ShareOffers(ttl_s=300, clock=lambda: clock[0]),
                        limiter=RateLimiter(limit=6, window_s=60, clock=lambda: clock[0]),
                        advertised_host=lambda: "127.0.0.1", on_download=downloads.append)
    share.downloads = downloads  # type: ignore[attr-defined]
    yield share
    share.close()


def wait_for(condition, timeout_s: float = 3.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def get(url: str, method: str = "GET") -> tuple[int, bytes, dict[str, str]]:
    rest = url.removeprefix("http://")
    host, _, path = rest.partition("/")
    name, _, port = host.partition(":")
    conn = http.client.HTTPConnection(name, int(port), timeout=5)
    try:
        conn.request(method, "/" + path)
        response = conn.getresponse()
        return response.status, response.read(), {k.lower(): v for k, v in response.getheaders()}
    finally:
        conn.close()


def test_a_shared_snapshot_downloads_exactly_once(server, snapshot):
    link = server.offer(snapshot)
    assert link.reachable and link.url.startswith("http://127.0.0.1:") and len(link.token) >= 40
    status, page, headers = get(link.url)  # the page the phone opens first does not spend the link
    assert status == 200 and b"photo.png" in page and headers["cache-control"] == "no-store"
    status, body, headers = get(link.url + "/photo.png")
    assert status == 200 and body == PNG and headers["content-type"] == "image/png"
    wait_for(lambda: server.downloads == [link.token])  # told after the body was written: on the server's thread
    status, body, _ = get(link.url + "/photo.png")
    assert status == 410 and PNG not in body
    assert get(link.url)[0] == 410  # the page says so too
    assert server.downloads == [link.token]


def test_links_expire_and_a_new_snapshot_withdraws_the_old_link(server, snapshot, clock, tmp_path):
    first = server.offer(snapshot)
    clock[0] += 299
    assert get(first.url)[0] == 200
    clock[0] += 1
    assert get(first.url + "/photo.png")[0] == 410  # expired after 5 minutes, never downloaded
    second_file = tmp_path / "second.png"
    second_file.write_bytes(PNG[:100])
    again = server.offer(snapshot)
    second = server.offer(second_file)
    assert get(again.url + "/photo.png")[0] == 404  # withdrawn: only the newest snapshot is offered
    status, body, _ = get(second.url + "/photo.png")
    assert status == 200 and body == PNG[:100]


def test_guessing_is_rate_limited_and_other_methods_refused(server, snapshot, clock):
    link = server.offer(snapshot)
    assert get(link.url, "HEAD")[0] == 405 and get(link.url + "/photo.png", "POST")[0] == 405
    statuses = [get(link.url.rsplit("/", 1)[0] + f"/guess{i}")[0] for i in range(6)]
    assert statuses == [404] * 6
    status, _, headers = get(link.url + "/photo.png")  # the 7th request in a minute, even with the right token
    assert status == 429 and int(headers["retry-after"]) > 0
    clock[0] += 60
    status, body, _ = get(link.url + "/photo.png")  # the window has passed: the link still works, once
    assert status == 200 and body == PNG


def test_a_purged_snapshot_is_gone_not_an_error(server, snapshot):
    link = server.offer(snapshot)
    snapshot.unlink()
    assert get(link.url + "/photo.png")[0] == 410
    assert server.downloads == []


def test_no_port_is_open_until_something_is_shared(server, snapshot):
    assert server.bound_port is None
    server.offer(snapshot)
    assert server.bound_port
