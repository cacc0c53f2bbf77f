"""The share link, over a real HTTP server on loopback: three whole deliveries, one transfer at a time, quiet
about broken clients, no token in any log line, listening only where the link points."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import pytest

from nailmirror_desktop.adapters.share.offers import RateLimiter, ShareOffers
from nailmirror_desktop.adapters.share.server import ShareServer
from tests.support.share_clients import closed_within, connect, get, request_line, reset, wait_for

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


def test_a_link_delivers_the_whole_photo_three_times(server, snapshot):
    link = server.offer(snapshot)
    assert link.reachable and link.url.startswith("http://127.0.0.1:") and len(link.token) >= 40
    status, page, headers = get(link.url)  # the page the phone opens first does not use the link
    assert status == 200 and b"photo.png" in page and headers["cache-control"] == "no-store"
    assert b"leave the kiosk" in page and "离开指尖魔镜".encode() in page
    for delivered in (1, 2, 3):  # the page's image, then the phone's "save image" fetching it again
        status, body, headers = get(link.url + "/photo.png")
        assert status == 200 and body == PNG and headers["content-type"] == "image/png"
        assert headers["cache-control"] == "private, max-age=600"
        wait_for(lambda n=delivered: server.downloads == [link.token] * n)  # told once it was sent, on its thread
    status, body, _ = get(link.url + "/photo.png")
    assert status == 410 and PNG not in body and b"leave the kiosk" in body
    assert get(link.url)[0] == 410  # the page says so too
    assert server.downloads == [link.token] * 3


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
    status, body, _ = get(link.url + "/photo.png")  # the window has passed: the link still works
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


BIG = bytes(range(256)) * (16 * 4096)  # 16 MiB: more than loopback's socket buffers hold


@pytest.fixture
def big_snapshot(tmp_path: Path) -> Path:
    path = tmp_path / "big_after.png"
    path.write_bytes(BIG)
    return path


def start_stalled_transfer(port: int, token: str, source: str) -> socket.socket:
    """A phone that asked for the photo and then stopped reading (its Wi-Fi dropped)."""
    sock = connect(port, source, rcvbuf=4096)
    sock.sendall(request_line(f"/s/{token}/photo.png"))
    assert sock.recv(1024).startswith(b"HTTP/1.")
    return sock


def test_a_download_cut_off_midway_is_quiet_and_can_be_fetched_again(server, big_snapshot, capfd):
    link = server.offer(big_snapshot)
    phone = start_stalled_transfer(server.bound_port, link.token, "127.0.0.1")
    reset(phone)  # the connection breaks mid-download
    wait_for(lambda: not server.offers.peek(link.token)[1].sending)
    status, body, _ = get(link.url + "/photo.png")  # the phone asks again
    assert status == 200 and body == BIG
    wait_for(lambda: server.downloads == [link.token])  # only the whole delivery counts
    assert server.offers.peek(link.token)[1].deliveries == 1
    assert capfd.readouterr().err == ""  # no traceback for a client that reset


def test_one_transfer_at_a_time_and_the_same_phone_takes_over_its_dead_transfer(server, big_snapshot):
    link = server.offer(big_snapshot)
    stalled = start_stalled_transfer(server.bound_port, link.token, "127.0.0.2")
    status, _, headers = get(link.url + "/photo.png", source="127.0.0.3")  # another phone meanwhile
    assert status == 503 and int(headers["retry-after"]) > 0
    assert get(link.url, source="127.0.0.3")[0] == 200  # the page still shows
    status, body, _ = get(link.url + "/photo.png", source="127.0.0.2")  # the first phone, back on the Wi-Fi
    assert status == 200 and body == BIG
    assert closed_within(stalled, 3.0)  # its dead transfer was ended
    wait_for(lambda: server.downloads == [link.token])
    stalled.close()


def test_no_log_line_nor_stderr_holds_the_token_whatever_the_request(server, snapshot, caplog, capfd):
    server.limiter = RateLimiter(limit=1000)
    link = server.offer(snapshot)
    token = link.token
    heads = [f"GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n" for path in (
        f"/s/{token}", f"//s/{token}", f"/./s/{token}", f"/s/{token}/photo.png", f"/s/{token}/../{token}",
        f"http://127.0.0.1/s/{token}", f"/%73/{token}", f"/s/{token}?a=1", f"/s/{token}/x", f"/{token}",
        f"/s/{token}%2Fphoto.png", f"/s/{token[:-1]}é")]
    heads += [f"HEAD /s/{token} HTTP/1.1\r\n\r\n", f"POST /s/{token} HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",
              f"{token} /s/{token} HTTP/1.1\r\n\r\n", f"GET /s/{token}\r\n\r\n", f"GET /s/{token} HTTP/9.9\r\n\r\n",
              f"GET /s/{token} HTTP/1.1\r\n{token}\r\n\r\n", f"GET /s/{token} HTTP/1.1\r\nX: " + "a" * 9000]
    with caplog.at_level(logging.DEBUG):
        for head in heads:
            sock = connect(server.bound_port)
            sock.sendall(head.encode("utf-8"))
            closed_within(sock, 2.0)  # answered and closed
            sock.close()
        half = connect(server.bound_port)
        half.sendall(f"GET /s/{token}".encode())
        reset(half)
        wait_for(lambda: server.stats().open == 0)
    messages = [record.getMessage() for record in caplog.records]
    assert sum("share request" in m for m in messages) >= 10  # the requests were logged, the tokens not
    for text in [*messages, *(record.exc_text or "" for record in caplog.records), capfd.readouterr().err]:
        assert token not in text and token[:6] not in text and "Traceback" not in text


def test_it_listens_only_on_the_address_the_link_advertises_or_loopback(snapshot):
    address = ["127.0.0.3"]
    share = ShareServer(advertised_host=lambda: address[0])
    try:
        link = share.offer(snapshot)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", share.bound_port), timeout=2)
        assert share.bound_address[0] == "127.0.0.3" and link.url.startswith("http://127.0.0.3:")
        assert get(link.url)[0] == 200
        address[0] = "127.0.0.4"  # a new lease: the next link points there and the server follows
        link = share.offer(snapshot)
        assert share.bound_address[0] == "127.0.0.4" and get(link.url)[0] == 200
    finally:
        share.close()
    alone = ShareServer(advertised_host=lambda: None)  # no address a phone could use
    try:
        link = alone.offer(snapshot)
        assert not link.reachable and alone.bound_address[0] == "127.0.0.1"
    finally:
        alone.close()


def test_a_picture_made_for_the_phone_is_made_once_per_version_of_the_file(server, snapshot):
    made: list[bytes] = []

    def build() -> bytes:
        made.append(b"\xff\xd8" + snapshot.read_bytes()[:32] + b"\xff\xd9")
        return made[-1]

    link = server.offer(snapshot, "image/jpeg", build=build)
    status, page, _ = get(link.url)
    assert status == 200 and b"/photo.jpg" in page and b"photo.png" not in page
    status, body, headers = get(link.url + "/photo.jpg")
    assert status == 200 and body == made[0] and headers["content-type"] == "image/jpeg"
    assert 'filename="nailmirror.jpg"' in headers["content-disposition"]
    assert get(link.url + "/photo.jpg")[1] == made[0] and len(made) == 1  # "save image": the same bytes, kept
    snapshot.write_bytes(b"\x89PNG the still render, written over the live after")
    assert get(link.url + "/photo.jpg")[1] == made[1] != made[0]  # the better photo, made again
    server.withdraw_all()
    assert get(link.url + "/photo.jpg")[0] == 404 and server.offers.peek(link.token)[1] is None


def test_a_picture_that_cannot_be_made_ends_the_link_and_the_server_goes_on(server, snapshot, caplog):
    def broken() -> bytes:
        raise ValueError("the before and after frames differ in size")

    link = server.offer(snapshot, "image/jpeg", build=broken)
    with caplog.at_level(logging.WARNING):
        assert get(link.url + "/photo.jpg")[0] == 410
    assert "ValueError" in caplog.text and link.token not in caplog.text
    good = server.offer(snapshot, "image/jpeg", build=lambda: b"\xff\xd8 fine \xff\xd9")
    assert get(good.url + "/photo.jpg")[:2] == (200, b"\xff\xd8 fine \xff\xd9")
