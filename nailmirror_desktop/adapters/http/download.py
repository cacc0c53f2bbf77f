"""Fetch a provider's result URL safely.

Rules (ARCHITECTURE.md §9): the body is streamed with a size limit; the content type must be an image type and
the bytes must decode; a URL on the configured provider's own origin (scheme, host, port of its base URL) is
allowed even when that is a private or loopback address (a self-hosted or test server); any other host must
resolve only to public addresses, and the connection goes to the address that was checked (no second DNS
lookup for a rebinding attack to slip into). Redirects are followed by hand, a few at most, and every hop is
checked again. A connection dropped mid-body, or a body that has not arrived by the deadline (the same total
deadline as provider requests: adapters/http/client.py), is TRANSIENT; a URL the provider no longer serves
(403/404/410: DashScope/Ark URLs live 24 h) is EXPIRED; everything the policy refuses is INVALID_REQUEST
(retrying would fetch the same thing again): a URL that does not parse, carries credentials, control characters
or white space, or names a host that resolves to a private, loopback, link-local, multicast or reserved address,
IPv4 forms embedded in IPv6 (mapped, compatible, translated, 6to4, Teredo, NAT64) judged as that IPv4 address.
Every check raises ProviderError and nothing else.
"""

from __future__ import annotations

import http.client
import ipaddress
import re
import socket
import ssl
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

from nailmirror_desktop.adapters.http.client import DeadlineGuard, Timeouts, read_capped
from nailmirror_desktop.adapters.providers.image_bytes import inspect_image
from nailmirror_desktop.core.catalog.assets import ImageInfo
from nailmirror_desktop.core.generation.classify import classify_http_status, parse_retry_after
from nailmirror_desktop.core.generation.provider_port import ProviderError, current_stop
from nailmirror_desktop.core.generation.provider_port import ProviderErrorClass as C

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/jpg", "image/webp"})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_GONE = frozenset({403, 404, 410})
_UNSAFE_URL_CHARS = re.compile(r"[\x00-\x20\x7f]")
_HOST_NAME = re.compile(r"[A-Za-z0-9_-]{1,63}(\.[A-Za-z0-9_-]{1,63})*\.?")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")

Resolver = Callable[[str, int], list[str]]


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
    resolve: Resolver | None = None  # host, port → addresses; None: the system resolver (getaddrinfo)

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
            try:
                current = urllib.parse.urljoin(current, reply.location)
            except ValueError as exc:
                raise _refuse_url(reply.location, f"redirect not understood ({exc})") from None
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


def check_url(url: str, policy: DownloadPolicy) -> tuple[Origin, str | None]:
    """The URL's origin and the address to connect to (None: a trusted origin, connected by name); raises
    ProviderError (download_url_refused, download_address_refused, network_unreachable) and nothing else."""
    target = _checked_target(url, policy)
    return target.origin, target.connect_ip


def _refuse_url(url: str, why: str) -> ProviderError:
    return ProviderError("download_url_refused", f"{why}: {url[:200]!r}", C.INVALID_REQUEST)


def _checked_target(url: str, policy: DownloadPolicy) -> _Target:
    if not isinstance(url, str) or _UNSAFE_URL_CHARS.search(url):
        raise _refuse_url(str(url), "control characters or white space in the URL")
    try:
        parts = urllib.parse.urlsplit(url)
        origin = Origin.of(url)
        has_credentials = parts.username is not None or parts.password is not None
    except ValueError as exc:  # bad port, unbalanced brackets …
        raise _refuse_url(url, f"not a URL ({exc})") from None
    if origin.scheme not in ("http", "https") or not origin.host:
        raise _refuse_url(url, "not an http(s) URL")
    if has_credentials:
        raise _refuse_url(url, "credentials in the URL")
    if not _is_host_name(origin.host):
        raise _refuse_url(url, "not a host name or address")
    if origin in policy.trusted_origins:
        return _Target(origin, None)
    addresses = _resolve(origin, policy.resolve)
    refused = [a for a in addresses if not _is_public(a)]
    if refused or not addresses:
        raise ProviderError(
            "download_address_refused", f"{origin.host} resolves to a non-public address {refused[:1]}",
            C.INVALID_REQUEST,
        )
    return _Target(origin, addresses[0])


def _is_host_name(host: str) -> bool:
    """An IP literal or a DNS name (IDNA allowed) of sane length; percent signs, spaces and the like are not."""
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except (UnicodeError, ValueError):
        return False
    return len(ascii_host) <= 253 and _HOST_NAME.fullmatch(ascii_host) is not None


def _resolve(origin: Origin, resolve: Resolver | None) -> list[str]:
    try:
        if resolve is not None:
            return list(dict.fromkeys(resolve(origin.host, origin.port)))
        infos = socket.getaddrinfo(origin.host, origin.port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ProviderError("network_unreachable", f"cannot resolve {origin.host[:100]}: {exc}", C.TRANSIENT) from exc
    except (UnicodeError, ValueError, OSError) as exc:  # a name IDNA cannot encode, a label too long …
        raise ProviderError("download_url_refused", f"host {origin.host[:100]!r}: {exc}", C.INVALID_REQUEST) from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _is_public(address: str) -> bool:
    """True only for a globally routable unicast address; an IPv4 address carried inside an IPv6 one (mapped,
    compatible, translated, 6to4, Teredo, NAT64) must be public too. An unparseable address is not public."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    candidates: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        low32 = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if ip.ipv4_mapped is not None:
            candidates.append(ip.ipv4_mapped)
        if ip.sixtofour is not None:
            candidates.append(ip.sixtofour)
        if ip.teredo is not None:
            candidates.extend(ip.teredo)
        if ip in _IPV4_COMPATIBLE or ip in _IPV4_TRANSLATED or any(ip in net for net in _NAT64):
            candidates.append(low32)
    return all(_is_public_one(candidate) for candidate in candidates)


def _is_public_one(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_link_local or ip.is_loopback
                                 or ip.is_unspecified or ip.is_private)


def _fetch_once(url: str, target: _Target, policy: DownloadPolicy) -> _Reply:
    """One GET: a 200 with its body or a redirect with its location; any other answer raises ProviderError."""
    started = time.monotonic()
    path = _request_path(url)
    conn = _connection(target, policy.timeouts)
    guard = DeadlineGuard(conn, current_stop())
    try:
        guard.arm(started + policy.timeouts.overall_s)
        try:
            conn.connect()
        except (OSError, ssl.SSLError) as exc:
            if guard.why is not None:
                raise guard.error("GET", target.origin.host, code="download_timeout", error_class=C.TRANSIENT) from None
            raise ProviderError("network_unreachable", f"connect to {target.origin.host}: {exc}", C.TRANSIENT) from exc
        if guard.why is not None:
            raise guard.error("GET", target.origin.host, code="download_timeout", error_class=C.TRANSIENT)
        guard.watch(conn.sock)
        guard.arm(min(guard.deadline, time.monotonic() + policy.timeouts.read_s))
        conn.sock.settimeout(guard.remaining())
        try:
            reply = _get(conn, path, policy)
        except ProviderError:
            raise
        except (OSError, http.client.HTTPException) as exc:  # GET is idempotent: a drop is transient
            if guard.why is not None:
                raise guard.error("GET", target.origin.host, code="download_timeout", error_class=C.TRANSIENT) from None
            raise ProviderError("download_interrupted", f"{target.origin.host}: {exc!r}", C.TRANSIENT) from exc
        if guard.why is not None:  # the guard cut the body short
            raise guard.error("GET", target.origin.host, code="download_timeout", error_class=C.TRANSIENT)
        return reply
    finally:
        guard.close()
        conn.close()


def _request_path(url: str) -> str:
    """The request target, percent-encoded where the URL left characters raw (non-ASCII, say)."""
    parts = urllib.parse.urlsplit(url)
    safe = "/%:@!$&'()*+,;=-._~"
    path = urllib.parse.quote(parts.path or "/", safe=safe)
    return path + (f"?{urllib.parse.quote(parts.query, safe=safe + '?')}" if parts.query else "")


def _get(conn: http.client.HTTPConnection, path: str, policy: DownloadPolicy) -> _Reply:
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
