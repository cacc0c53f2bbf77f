"""Result downloads against real loopback servers: size limits, type and decode checks, address policy."""

from __future__ import annotations

import struct
import time
import zlib

import pytest

from nailmirror_desktop.adapters.http.client import Timeouts
from nailmirror_desktop.adapters.http.download import DownloadPolicy, Origin, _is_public, download_image
from nailmirror_desktop.core.generation.provider_port import ProviderError
from nailmirror_desktop.core.generation.provider_port import ProviderErrorClass as C
from tests.support.fake_providers import FakeOpenAI, Reply, dripping, swatch_png

IMAGE = swatch_png(seed=9)


@pytest.fixture
def provider_host():
    """The configured provider's own server (trusted origin)."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def other_host():
    """A second loopback server that is *not* the configured provider."""
    with FakeOpenAI() as server:
        yield server


def policy_for(server, max_bytes: int = 2_000_000) -> DownloadPolicy:
    return DownloadPolicy.for_base_url(server.base_url, max_bytes=max_bytes, timeouts=Timeouts(2.0, 2.0))


def refused(url: str, policy: DownloadPolicy) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        download_image(url, policy)
    return caught.value


def test_an_image_on_the_providers_own_host_downloads(provider_host):
    url = provider_host.serve_blob("ok.png", Reply.image(IMAGE))
    downloaded = download_image(url, policy_for(provider_host))
    assert downloaded.data == IMAGE
    assert (downloaded.info.format, downloaded.info.width, downloaded.info.height) == ("PNG", 512, 512)


def test_a_redirect_within_the_providers_host_is_followed_and_rechecked(provider_host):
    provider_host.serve_blob("final.png", Reply.image(IMAGE))
    url = provider_host.serve_blob("hop.png", Reply.redirect("/blobs/final.png"))
    downloaded = download_image(url, policy_for(provider_host))
    assert downloaded.data == IMAGE and downloaded.final_url.endswith("/blobs/final.png")


def test_a_redirect_to_a_private_address_is_refused(provider_host):
    url = provider_host.serve_blob("evil.png", Reply.redirect("http://192.168.1.10/admin.png"))
    error = refused(url, policy_for(provider_host))
    assert (error.code, error.error_class) == ("download_address_refused", C.INVALID_REQUEST)


def test_a_redirect_to_another_loopback_server_is_refused_before_connecting(provider_host, other_host):
    target = other_host.serve_blob("secret.png", Reply.image(IMAGE))
    url = provider_host.serve_blob("hop.png", Reply.redirect(target, status=307))
    error = refused(url, policy_for(provider_host))
    assert error.code == "download_address_refused"
    assert other_host.requests == []  # the check happens before any connection


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",  # cloud metadata (link-local)
        "http://[::1]/x.png",
        "http://2130706433/x.png",  # 127.0.0.1 written as a number: checked after resolution
        "http://10.0.0.5/x.png",
        "http://0.0.0.0/x.png",
    ],
)
def test_non_public_addresses_are_refused(provider_host, url):
    assert refused(url, policy_for(provider_host)).code == "download_address_refused"


def test_the_same_server_under_another_name_is_not_trusted(provider_host):
    """Trust is by origin (scheme, host, port); `localhost` resolves to loopback, so it is refused."""
    url = provider_host.serve_blob("ok.png", Reply.image(IMAGE)).replace("127.0.0.1", "localhost")
    assert refused(url, policy_for(provider_host)).code == "download_address_refused"
    assert provider_host.requests == []


def test_non_http_schemes_are_refused(provider_host):
    assert refused("file:///etc/passwd", policy_for(provider_host)).code == "download_url_refused"


def test_redirect_loops_stop(provider_host):
    url = provider_host.serve_blob("loop.png", Reply.redirect("/blobs/loop.png"))
    assert refused(url, policy_for(provider_host)).code == "download_too_many_redirects"


def test_garbage_bytes_labelled_as_png_are_refused(provider_host):
    url = provider_host.serve_blob("garbage.png", Reply.image(b"\x00garbage" * 1000))
    error = refused(url, policy_for(provider_host))
    assert (error.code, error.error_class) == ("result_not_image", C.INVALID_REQUEST)


def test_a_non_image_content_type_is_refused(provider_host):
    url = provider_host.serve_blob("page.png", Reply(200, IMAGE, {"Content-Type": "text/html"}))
    assert refused(url, policy_for(provider_host)).code == "download_not_image"


def test_a_huge_declared_body_is_refused_without_reading_it(provider_host):
    url = provider_host.serve_blob("huge.png", Reply.image(IMAGE))
    error = refused(url, policy_for(provider_host, max_bytes=len(IMAGE) - 1))
    assert (error.code, error.error_class) == ("download_too_large", C.INVALID_REQUEST)


def test_an_endless_body_without_length_is_cut_at_the_limit(provider_host):
    url = provider_host.serve_blob("endless.png", Reply(200, IMAGE[:1024], {"Content-Type": "image/png"}, endless=True))
    assert refused(url, policy_for(provider_host, max_bytes=1_000_000)).code == "download_too_large"


def test_a_connection_dropped_mid_download_is_transient(provider_host):
    cut = Reply(200, IMAGE, {"Content-Type": "image/png"}, drop_after=len(IMAGE) // 3)
    url = provider_host.serve_blob("cut.png", cut)
    error = refused(url, policy_for(provider_host))
    assert (error.code, error.error_class) == ("download_interrupted", C.TRANSIENT)


def test_an_expired_url_means_resubmit(provider_host):
    error = refused(provider_host.url("/blobs/missing.png"), policy_for(provider_host))
    assert (error.code, error.error_class, error.http_status) == ("download_expired", C.EXPIRED, 404)


def test_a_server_error_while_downloading_is_transient(provider_host):
    url = provider_host.serve_blob("busy.png", Reply(503, b"busy", {"Content-Type": "text/plain"}))
    assert refused(url, policy_for(provider_host)).error_class is C.TRANSIENT


def test_a_decompression_bomb_is_refused_from_its_header(provider_host):
    # A valid-looking PNG header claiming 60000 × 60000 pixels: refused before anything inflates it.
    ihdr = struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    bomb = b"\x89PNG\r\n\x1a\n" + chunk + IMAGE[33:]
    url = provider_host.serve_blob("bomb.png", Reply.image(bomb))
    assert refused(url, policy_for(provider_host)).code == "result_too_many_pixels"


def test_address_classification():
    assert _is_public("8.8.8.8") and _is_public("2606:4700:4700::1111")
    for address in ("127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.0.1", "169.254.1.1", "::1", "fe80::1",
                    "::ffff:127.0.0.1", "::ffff:10.0.0.1", "100.64.0.1", "224.0.0.1", "0.0.0.0", "fc00::1"):
        assert not _is_public(address), address


def test_origins_compare_scheme_host_and_port():
    assert Origin.of("https://dashscope.aliyuncs.com/api") == Origin.of("https://DashScope.aliyuncs.com:443/x")
    assert Origin.of("http://127.0.0.1:8000/") != Origin.of("http://127.0.0.1:8001/")
    assert Origin.of("http://example.com/") != Origin.of("https://example.com/")


# --- issue #12 --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_dripping_download_is_cut_at_the_total_deadline(provider_host):
    url = provider_host.serve_blob("drip.png", dripping(Reply.image(IMAGE), 4.0))
    policy = DownloadPolicy.for_base_url(provider_host.base_url, max_bytes=2_000_000, timeouts=Timeouts(1.0, 1.0))
    started = time.monotonic()
    error = refused(url, policy)
    assert (error.code, error.error_class) == ("download_timeout", C.TRANSIENT)
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize("url", ["http://[::1/x.png", "http://host:99999/x.png", "http://host:port/x.png",
                                 "http://exa mple.com/x.png", "http://127.0.0.1:1/x\r\nHost: evil",
                                 "http://user:pw@/x.png", "http://%00/x.png"])
def test_malformed_urls_are_refused_not_crashed_on(provider_host, url):
    assert refused(url, policy_for(provider_host)).error_class is C.INVALID_REQUEST


@pytest.mark.parametrize("address", ["::127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::1", "::ffff:0:7f00:1",
                                     "2001:0:4136:e378:8000:63bf:80ff:fffe"])
def test_ipv4_addresses_embedded_in_ipv6_are_judged_as_the_ipv4_address(address):
    assert not _is_public(address), address
