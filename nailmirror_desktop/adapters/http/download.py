"""Fetch a provider's result URL safely.

Rules (ARCHITECTURE.md §9): the body is streamed with a size limit; the content type must be an image type and
the bytes must decode; a URL on the configured provider's own origin (scheme, host, port of its base URL) is
allowed even when that is a private or loopback address (a self-hosted or test server); any other host must
resolve only to public addresses, and the connection goes to the address that was checked (no second DNS
lookup for a rebinding attack to slip into). Redirects are followed by hand, a few at most, and every hop is
checked again. A connection dropped mid-body is TRANSIENT; a URL the provider no longer serves (403/404/410:
DashScope/Ark URLs live 24 h) is EXPIRED; everything the policy refuses is INVALID_REQUEST (retrying would
fetch the same thing again).
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import urllib.parse
from dataclasses import dataclass

from nailmirror_desktop.adapters.http.client import Timeouts, read_capped
from nailmirror_desktop.adapters.providers.image_bytes import inspect_image
from nailmirror_desktop.core.catalog.assets import ImageInfo
from nailmirror_desktop.core.generation.classify import classify_http_status, parse_retry_after
from nailmirror_desktop.core.generation.provider_port import ProviderError
from nailmirror_desktop.core.generation.provider_port import ProviderErrorClass as C

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/jpg", "image/webp"})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_GONE = frozenset({403, 404, 410})


@dataclass(frozen=True)
class Origin:
    scheme: str
    host: str  # lower-case
    port: int

    @staticmethod
    def of(url: str) -> Origin:
        parts = urllib.parse.urlsplit(url)
        scheme = parts.scheme.lower()
        port = parts.port or (443 if scheme == "https" else 80)
        return Origin(scheme, (parts.hostname or "").lower(), port)


@dataclass(frozen=True)
class DownloadPolicy:
    trusted_origins: frozenset[Origin]  # the configured provider's base URL(s)
    max_bytes: int = 20_000_000
    timeouts: Timeouts = Timeouts(10.0, 60.0)
    max_redirects: int = 3

    @staticmethod
    def for_base_url(base_url: str, *, max_bytes: int, timeouts: Timeouts) -> DownloadPolicy:
        return DownloadPolicy(frozenset({Origin.of(base_url)}), max_bytes=max_bytes, timeouts=timeouts)


@dataclass(frozen=True)
class Downloaded:
    data: bytes
    content_type: str
    final_url: str
    info: ImageInfo


def download_image(url: str, policy: DownloadPolicy) -> Downloaded:
    """Download and check one result image; raises ProviderError (see the module docstring for classes)."""
    current = url
    for _hop in range(policy.max_redirects + 1):
        target = _checked_target(current, policy)
        reply = _fetch_once(current, target, policy)
        if reply.status in _REDIRECTS:
            current = urllib.parse.urljoin(current, reply.location)
            continue
        content_type = reply.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type not in IMAGE_TYPES:
            raise ProviderError("download_not_image", f"content type {content_type!r}", C.INVALID_REQUEST)
        info = inspect_image(reply.body)
        return Downloaded(reply.body, content_type, current, info)
    raise ProviderError("download_too_many_redirects", f"more than {policy.max_redirects} redirects", C.INVALID_REQUEST)


@dataclass(frozen=True)
class _Reply:
    status: int  # 200 or a redirect
    headers: dict[str, str]  # names lower-case
    body: bytes = b""  # the image, for 200
    location: str = ""  # where a redirect points


@dataclass(frozen=True)
class _Target:
    origin: Origin
    connect_ip: str | None  # None: a trusted origin, connect by name


def _checked_target(url: str, policy: DownloadPolicy) -> _Target:
    origin = Origin.of(url)
    if origin.scheme not in ("http", "https") or not origin.host:
        raise ProviderError("download_url_refused", f"not an http(s) URL: {url[:200]}", C.INVALID_REQUEST)
    if origin in policy.trusted_origins:
        return _Target(origin, None)
    addresses = _resolve(origin)
    refused = [a for a in addresses if not _is_public(a)]
    if refused or not addresses:
        raise ProviderError(
            "download_address_refused", f"{origin.host} resolves to a non-public address {refused[:1]}",
            C.INVALID_REQUEST,
        )
    return _Target(origin, addresses[0])


def _resolve(origin: Origin) -> list[str]:
    try:
        infos = socket.getaddrinfo(origin.host, origin.port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ProviderError("network_unreachable", f"cannot resolve {origin.host}: {exc}", C.TRANSIENT) from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_link_local or ip.is_loopback)


def _fetch_once(url: str, target: _Target, policy: DownloadPolicy) -> _Reply:
    """One GET: a 200 with its body or a redirect with its location; any other answer raises ProviderError."""
    parts = urllib.parse.urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    conn = _connection(target, policy.timeouts)
    try:
        try:
            conn.connect()
        except (OSError, ssl.SSLError) as exc:
            raise ProviderError("network_unreachable", f"connect to {target.origin.host}: {exc}", C.TRANSIENT) from exc
        conn.sock.settimeout(policy.timeouts.read_s)
        try:
            conn.request("GET", path, headers={"Accept": "image/png, image/jpeg, image/webp"})
            response = conn.getresponse()
            headers = {k.lower(): v for k, v in response.getheaders()}
            if response.status in _REDIRECTS:
                location = headers.get("location")
                if not location:
                    raise ProviderError("download_bad_redirect", "redirect without Location", C.INVALID_REQUEST)
                return _Reply(response.status, headers, location=location)
            if response.status != 200:
                raise _status_error(response.status, headers)
            return _Reply(200, headers, body=read_capped_download(response, policy.max_bytes))
        except ProviderError:
            raise
        except (OSError, http.client.HTTPException) as exc:  # GET is idempotent: a drop is transient
            raise ProviderError("download_interrupted", f"{target.origin.host}: {exc!r}", C.TRANSIENT) from exc
    finally:
        conn.close()


def read_capped_download(response: http.client.HTTPResponse, max_bytes: int) -> bytes:
    try:
        return read_capped(response, max_bytes)
    except ProviderError as exc:
        raise ProviderError("download_too_large", exc.message, C.INVALID_REQUEST) from exc


def _status_error(status: int, headers: dict[str, str]) -> ProviderError:
    if status in _GONE:
        return ProviderError("download_expired", f"result URL answered {status}", C.EXPIRED, http_status=status)
    error_class = classify_http_status(status)
    if error_class is C.CONFIG:
        error_class = C.INVALID_REQUEST
    retry_after = parse_retry_after(headers) if error_class is C.RATE_LIMITED else None
    return ProviderError(f"download_http_{status}", f"result URL answered {status}", error_class, retry_after,
                         http_status=status)


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to the address that was checked, while Host names the real host."""

    def __init__(self, host: str, port: int, ip: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._pinned_ip = ip

    def connect(self) -> None:
        self.sock = socket.create_connection((self._pinned_ip, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, ip: str, timeout: float) -> None:
        tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=tls)
        self._tls = tls
        self._pinned_ip = ip

    def connect(self) -> None:
        sock = socket.create_connection((self._pinned_ip, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)  # SNI + certificate check by name


def _connection(target: _Target, timeouts: Timeouts) -> http.client.HTTPConnection:
    origin = target.origin
    https = origin.scheme == "https"
    if target.connect_ip is None:
        if https:
            return http.client.HTTPSConnection(origin.host, origin.port, timeout=timeouts.connect_s)
        return http.client.HTTPConnection(origin.host, origin.port, timeout=timeouts.connect_s)
    if https:
        return _PinnedHTTPSConnection(origin.host, origin.port, target.connect_ip, timeouts.connect_s)
    return _PinnedHTTPConnection(origin.host, origin.port, target.connect_ip, timeouts.connect_s)
