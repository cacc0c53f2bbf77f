"""`ShareServer`: the kiosk serves one snapshot to the customer's phone over the store network.

A phone that scans the QR code opens `http://<kiosk>:<port>/s/<token>`: a small page (it does not use the
offer up, so a link preview or a scanner's prefetch cannot spend it) whose image is
`/s/<token>/photo.png`, which is served exactly once. Answers: 404 for a token never offered, 410 for one
expired or already downloaded, 429 past the per-address rate limit (with Retry-After), 405 for anything but
GET. Tokens never reach the log (only the first four characters). The server thread starts on the first offer,
so a kiosk that never shares opens no port.
"""

from __future__ import annotations

import html
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from nailmirror_desktop.adapters.share.network import lan_address
from nailmirror_desktop.adapters.share.offers import Claim, Offer, RateLimiter, ShareOffers

log = logging.getLogger(__name__)
MAX_FILE_BYTES = 30_000_000
_STATUS = {Claim.UNKNOWN: 404, Claim.EXPIRED: 410, Claim.USED: 410}


@dataclass(frozen=True)
class ShareLink:
    url: str
    token: str
    expires_in_s: float
    reachable: bool  # False: the kiosk has no address a phone could use (only this machine could open it)


class ShareServer:
    """Offers a file through a one-time link; `on_download(token)` is called (on a server thread) once the
    file was sent. Close it when the kiosk stops."""

    def __init__(self, *, port: int = 0, bind: str = "0.0.0.0", offers: ShareOffers | None = None,
                 limiter: RateLimiter | None = None, advertised_host: Callable[[], str | None] = lan_address,
                 on_download: Callable[[str], None] | None = None) -> None:
        self.port = port
        self.bind = bind
        self.offers = offers or ShareOffers()
        self.limiter = limiter or RateLimiter()
        self._advertised_host = advertised_host
        self.on_download = on_download
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def offer(self, path: Path, content_type: str = "image/png") -> ShareLink:
        """Serve `path` once through a new link (older links stop working); raises OSError when the port cannot
        be opened."""
        port = self._ensure_started()
        offer = self.offers.offer(path, content_type)
        host = self._advertised_host()
        reachable = host is not None
        url = f"http://{host or '127.0.0.1'}:{port}/s/{offer.token}"
        log.info("share link offered (token %s…, %s)", offer.token[:4], "on the network" if reachable else
                 "no network address")
        return ShareLink(url, offer.token, self.offers.ttl_s, reachable)

    def withdraw_all(self) -> None:
        self.offers.withdraw_all()

    @property
    def bound_port(self) -> int | None:
        return self._httpd.server_address[1] if self._httpd is not None else None

    def close(self) -> None:
        with self._lock:
            httpd, self._httpd = self._httpd, None
        self.offers.withdraw_all()
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(2.0)

    def _ensure_started(self) -> int:
        with self._lock:
            if self._httpd is None:
                httpd = _HTTPServer((self.bind, self.port), self)
                self._thread = threading.Thread(target=httpd.serve_forever, name="share-server", daemon=True)
                self._thread.start()
                self._httpd = httpd
            return int(self._httpd.server_address[1])

    def _downloaded(self, offer: Offer) -> None:
        log.info("share link used (token %s…)", offer.token[:4])
        if self.on_download is not None:
            self.on_download(offer.token)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], share: ShareServer) -> None:
        super().__init__(address, _Handler)
        self.share = share


class _Handler(BaseHTTPRequestHandler):
    server_version = "NailMirror"
    sys_version = ""

    @property
    def share(self) -> ShareServer:
        server = self.server
        assert isinstance(server, _HTTPServer)
        return server.share

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        client = self.client_address[0]
        limiter = self.share.limiter
        if not limiter.allow(client):
            self._plain(429, "Too many requests", {"Retry-After": str(limiter.retry_after_s(client))})
            return
        parts = self.path.split("?", 1)[0].strip("/").split("/")
        if len(parts) == 2 and parts[0] == "s":
            self._landing(parts[1])
        elif len(parts) == 3 and parts[0] == "s" and parts[2] == "photo.png":
            self._photo(parts[1])
        else:
            self._plain(404, "Not found")

    def do_POST(self) -> None:  # noqa: N802
        self._plain(405, "Method not allowed", {"Allow": "GET"})

    do_PUT = do_DELETE = do_HEAD = do_POST  # noqa: N815 - a HEAD must not spend or probe a link either

    def _landing(self, token: str) -> None:
        claim, _offer = self.share.offers.peek(token)
        if claim is not Claim.OK:
            self._plain(_STATUS[claim], _GONE_TEXT)
            return
        photo = html.escape(f"/s/{token}/photo.png")
        self._send(200, _LANDING.replace("{photo}", photo).encode("utf-8"), "text/html; charset=utf-8")

    def _photo(self, token: str) -> None:
        claim, offer = self.share.offers.claim(token)
        if claim is not Claim.OK or offer is None:
            self._plain(_STATUS[claim], _GONE_TEXT)
            return
        try:
            if offer.path.stat().st_size > MAX_FILE_BYTES:
                raise OSError("too large")
            body = offer.path.read_bytes()
        except OSError:
            self._plain(410, _GONE_TEXT)  # the snapshot was purged meanwhile
            return
        self._send(200, body, offer.content_type, {"Content-Disposition": 'inline; filename="nailmirror.png"'})
        self.share._downloaded(offer)

    def _plain(self, status: int, text: str, headers: dict[str, str] | None = None) -> None:
        self._send(status, text.encode("utf-8"), "text/plain; charset=utf-8", headers)

    def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        # http.server writes every request to stderr; here they go to the log, without the token
        log.debug("share request from %s: %s", self.client_address[0], (format % args).split(" /s/")[0])


# The phone's browser shows this; the kiosk's language is not known here, so it speaks both.
_GONE_TEXT = "链接已失效（仅限一次、数分钟内有效）。This link has expired: it works once, for a few minutes."
_LANDING = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>NailMirror</title>
<style>body{margin:0;background:#17141a;color:#f4eef6;font:18px sans-serif;text-align:center}
img{max-width:100%;height:auto}p{padding:12px}</style></head><body>
<img src="{photo}" alt="NailMirror">
<p>长按照片保存到手机。<br>Press and hold the photo to save it.</p>
<p style="color:#a79fb0;font-size:14px">此链接仅可下载一次。This link works once.</p>
</body></html>"""
