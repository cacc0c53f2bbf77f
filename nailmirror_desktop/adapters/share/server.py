"""`ShareServer`: the kiosk serves one snapshot to the customer's phone over the store network.

A phone that scans the QR code opens `http://<kiosk>:<port>/s/<token>`: a small page (it does not use the link,
so a link preview or a scanner's prefetch cannot spend it) whose image is `/s/<token>/photo.jpg` (`.png` for an
offer of a PNG file). The kiosk offers a picture made for a phone (share_image.py): the server makes it on its
thread when a phone first asks, from the snapshot as it is then on disk (the still render may have replaced the
live "after" since the QR code was shown), and makes it again only if that file changes. The photo is
sent one transfer at a time and at most three times whole (a phone's "save image" fetches it again; a transfer
cut off midway does not count, and the same phone asking again takes over its dead transfer), until the link
expires or the idle reset withdraws it. Answers: 404 for a token never offered, 410 for one expired or used up,
503 while another phone's transfer is in progress, 429 past the per-address rate limit (with Retry-After), 405
for anything but GET. The server listens on the address the QR code advertises (127.0.0.1 when the kiosk has
no network address), on one thread with bounded connections (`http_loop.py`), and only from the first offer
on, so a kiosk that never shares opens no port. No log line holds a token or a request's path.
"""

from __future__ import annotations

import html
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nailmirror_desktop.adapters.share.http_loop import ConnectionLoop, Limits, LoopStats, Request, Response
from nailmirror_desktop.adapters.share.network import lan_address
from nailmirror_desktop.adapters.share.offers import Claim, Offer, RateLimiter, ShareOffers

log = logging.getLogger(__name__)
MAX_FILE_BYTES = 30_000_000
LOOPBACK = "127.0.0.1"
PHOTO_CACHE_CONTROL = "private, max-age=600"  # the phone's own "save image" may use its copy
BUSY_RETRY_AFTER_S = 5
_STATUS = {Claim.UNKNOWN: 404, Claim.EXPIRED: 410, Claim.USED: 410}
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")
_KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT", "TRACE"})


@dataclass(frozen=True)
class ShareLink:
    url: str
    token: str
    expires_in_s: float
    reachable: bool  # False: the kiosk has no address a phone could use (only this machine could open it)


class ShareServer:
    """Offers a file through a link; `on_download(token)` is called (on the server's thread) each time the whole
    file was sent. `bind`: the address to listen on; None, the address the link advertises. Close it when the
    kiosk stops."""

    def __init__(self, *, port: int = 0, bind: str | None = None, offers: ShareOffers | None = None,
                 limiter: RateLimiter | None = None, advertised_host: Callable[[], str | None] = lan_address,
                 on_download: Callable[[str], None] | None = None, max_connections: int = 64,
                 max_per_address: int = 8, header_timeout_s: float = 10.0, idle_timeout_s: float = 30.0) -> None:
        self.port = port
        self.bind = bind
        self.offers = offers or ShareOffers()
        self.limiter = limiter or RateLimiter()
        self.limits = Limits(max_connections, max_per_address, header_timeout_s, idle_timeout_s)
        self._advertised_host = advertised_host
        self.on_download = on_download
        self._loop: ConnectionLoop | None = None
        self._listening_on: str | None = None
        self._lock = threading.Lock()
        # token → (client address, close its connection) of the transfer in progress; the loop's thread only
        self._sending: dict[str, tuple[str, Callable[[], None]]] = {}

    def offer(self, path: Path, content_type: str = "image/png", build: Callable[[], bytes] | None = None) -> ShareLink:
        """Serve `path` through a new link (older links stop working), or what `build()` makes of it (called on
        the server's thread; OSError or ValueError: the file is unusable, the phone is told the link ended);
        raises OSError when the port cannot be opened."""
        host = self._advertised_host()
        port = self._ensure_started(self.bind or host or LOOPBACK)
        offer = self.offers.offer(path, content_type, build)
        shown = host or LOOPBACK
        url = f"http://{f'[{shown}]' if ':' in shown else shown}:{port}/s/{offer.token}"
        log.info("share link %s offered (%s)", offer.log_id, "on the network" if host else "no network address")
        return ShareLink(url, offer.token, self.offers.ttl_s, host is not None)

    def withdraw_all(self) -> None:
        self.offers.withdraw_all()

    @property
    def bound_address(self) -> tuple[str, int] | None:
        loop = self._loop
        return loop.address if loop is not None else None

    @property
    def bound_port(self) -> int | None:
        address = self.bound_address
        return address[1] if address is not None else None

    def stats(self) -> LoopStats | None:
        loop = self._loop
        return loop.stats() if loop is not None else None

    def close(self) -> None:
        with self._lock:
            loop, self._loop = self._loop, None
        self.offers.withdraw_all()
        if loop is not None:
            loop.stop()

    def _ensure_started(self, address: str) -> int:
        with self._lock:
            if self._loop is not None and self._listening_on != address:
                log.info("share server: the kiosk's address changed, listening again")
                self._loop.stop()
                self._loop = None
            if self._loop is None:
                loop = ConnectionLoop((address, self.port), self._answer, self.limits)
                loop.start()
                self._loop, self._listening_on = loop, address
            return self._loop.address[1]

    # --- on the loop's thread ---------------------------------------------------------------------------------
    def _answer(self, request: Request) -> Response:
        route = _route(request.target)
        response = self._route_answer(request, route)
        method = request.method if request.method in _KNOWN_METHODS else "?"
        log.debug("share request from %s: %s %s → %d", request.client, method, route[0] if route else "other",
                  response.status)
        return response

    def _route_answer(self, request: Request, route: tuple[str, str] | None) -> Response:
        if request.method != "GET":  # a HEAD must not spend or probe a link either
            return _plain(405, "Method not allowed", [("Allow", "GET")], close=True)
        if not self.limiter.allow(request.client):
            return _plain(429, _TOO_MANY_TEXT, [("Retry-After", str(self.limiter.retry_after_s(request.client)))])
        if route is None:
            return _plain(404, "Not found")
        kind, token = route
        return self._landing(token) if kind == "page" else self._photo(token, request)

    def _landing(self, token: str) -> Response:
        claim, offer = self.offers.peek(token)
        if claim is not Claim.OK or offer is None:
            return _plain(_STATUS[claim], _GONE_TEXT)
        page = _LANDING.replace("{photo}", html.escape(f"/s/{token}/photo.{_extension(offer.content_type)}"))
        return Response(200, page.encode("utf-8"), _headers("text/html; charset=utf-8"))

    def _photo(self, token: str, request: Request) -> Response:
        claim, offer = self.offers.begin(token)
        if claim is Claim.BUSY and offer is not None:
            holder = self._sending.get(offer.token)
            if holder is not None and holder[0] == request.client:
                holder[1]()  # the same phone asks again: its transfer died with its Wi-Fi (ends it, not counted)
                claim, offer = self.offers.begin(token)
        if claim is Claim.BUSY:
            return _plain(503, _BUSY_TEXT, [("Retry-After", str(BUSY_RETRY_AFTER_S))])
        if claim is not Claim.OK or offer is None:
            return _plain(_STATUS[claim], _GONE_TEXT)
        try:
            body = self._body(offer)
        except Exception as exc:  # noqa: BLE001 - purged meanwhile, or unreadable: the link ends, the loop goes on
            if not isinstance(exc, OSError):
                log.warning("share link %s: the picture could not be made (%s)", offer.log_id, type(exc).__name__)
            self.offers.end(offer.token, delivered=False)
            return _plain(410, _GONE_TEXT)
        holder = (request.client, request.close)
        self._sending[offer.token] = holder
        headers = _headers(offer.content_type, PHOTO_CACHE_CONTROL)
        headers.append(("Content-Disposition", f'inline; filename="nailmirror.{_extension(offer.content_type)}"'))
        return Response(200, body, headers, on_done=lambda delivered: self._sent(offer, holder, delivered))

    def _body(self, offer: Offer) -> bytes:
        """The file, or what the offer's `build` makes of it: made once per version of the file."""
        stat = offer.path.stat()
        if stat.st_size > MAX_FILE_BYTES:
            raise OSError("too large")
        if offer.build is None:
            return offer.path.read_bytes()
        stamp = (stat.st_mtime_ns, stat.st_size)
        if offer.body is not None and offer.body_stamp == stamp:
            return offer.body
        body = offer.build()
        self.offers.keep_body(offer.token, stamp, body)
        return body

    def _sent(self, offer: Offer, holder: tuple[str, Callable[[], None]], delivered: bool) -> None:
        if self._sending.get(offer.token) is holder:
            del self._sending[offer.token]
        ended = self.offers.end(offer.token, delivered=delivered)
        if not delivered:
            log.info("share link %s: a transfer was cut off (not counted)", offer.log_id)
            return
        count = ended.deliveries if ended is not None else 0
        log.info("share link %s delivered (%d of %d)", offer.log_id, count, self.offers.max_deliveries)
        if self.on_download is not None:
            self.on_download(offer.token)


def _extension(content_type: str) -> str:
    return "jpg" if content_type == "image/jpeg" else "png"


def _route(target: str) -> tuple[str, str] | None:
    """("page" | "photo", token) for `/s/<token>` and `/s/<token>/photo.jpg` or `.png` (the same picture, whatever
    its type; a query is ignored); None else."""
    parts = target.split("?", 1)[0].split("/")
    if len(parts) in (3, 4) and parts[0] == "" and parts[1] == "s" and _TOKEN.fullmatch(parts[2]):
        if len(parts) == 3:
            return "page", parts[2]
        if parts[3] in ("photo.jpg", "photo.png"):
            return "photo", parts[2]
    return None


def _headers(content_type: str, cache_control: str = "no-store") -> list[tuple[str, str]]:
    return [("Content-Type", content_type), ("Cache-Control", cache_control), ("Referrer-Policy", "no-referrer"),
            ("X-Content-Type-Options", "nosniff")]


def _plain(status: int, text: str, headers: list[tuple[str, str]] | None = None, close: bool = False) -> Response:
    return Response(status, text.encode("utf-8"), _headers("text/plain; charset=utf-8") + (headers or []), close)


# The phone's browser shows these; the kiosk's language is not known here, so they speak both.
_GONE_TEXT = ("链接已失效：离开指尖魔镜或几分钟后，链接即失效。"
              "This link has ended: it works for a few minutes, until you leave the kiosk.")
_BUSY_TEXT = "照片正在发送，请稍后再试。The photo is being sent: try again in a moment."
_TOO_MANY_TEXT = "请求过多，请稍后再试。Too many requests: try again in a moment."
_LANDING = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>NailMirror</title>
<style>body{margin:0;background:#17141a;color:#f4eef6;font:18px sans-serif;text-align:center}
img{max-width:100%;height:auto}p{padding:12px}</style></head><body>
<img src="{photo}" alt="NailMirror">
<p>长按照片保存到手机。<br>Press and hold the photo to save it.</p>
<p style="color:#a79fb0;font-size:14px">离开指尖魔镜后，此链接即失效，请现在保存。<br>
This link ends when you leave the kiosk: save the photo now.</p>
</body></html>"""
