"""The HQ ASGI app: protocol v1 routes, the protocol's error bodies, gzip for JSON (never for blobs, whose
Range answers must stay byte-exact), and a 426 for a kiosk speaking a protocol version HQ does not."""

from __future__ import annotations

import re

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from nailmirror_hq import __version__, clock
from nailmirror_hq.api import captures, credits, errors, observe, v1
from nailmirror_hq.api.errors import error_response
from nailmirror_hq.api.v1 import MIN_KIOSK_VERSION
from nailmirror_hq.blob_access import BlobAccess
from nailmirror_hq.errors import HQError
from nailmirror_hq.metrics import Metrics
from nailmirror_hq.service import HQ
from nailmirror_hq.throttle import Doors
from nailmirror_protocol import SUPPORTED_PROTOCOLS
from nailmirror_protocol.errors import ErrorCode
from nailmirror_protocol.paths import HEADER_PROTOCOL


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def _kiosk_version(user_agent: str) -> tuple[int, ...] | None:
    """"nailmirror-kiosk/0.6.0 (Windows 10)" → (0, 6, 0); None for any other client."""
    match = re.match(r"nailmirror-kiosk/([0-9][0-9.]*)", user_agent)
    return _version(match.group(1)) if match else None


class ProtocolGate:
    """426 upgrade_required when NM-Protocol names no version HQ speaks or the kiosk (User-Agent
    nailmirror-kiosk/<version>) is older than hello's min_kiosk_version; gzip except on blob paths."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=1024)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        wanted = headers.get(HEADER_PROTOCOL.lower())
        too_old = _kiosk_version(headers.get("user-agent", ""))
        if too_old is not None and too_old < _version(MIN_KIOSK_VERSION):
            response = error_response(HQError(426, ErrorCode.UPGRADE_REQUIRED,
                                              f"this kiosk app is older than {MIN_KIOSK_VERSION}; update it",
                                              {"min": MIN_KIOSK_VERSION}))
            await response(scope, receive, send)
            return
        if wanted is not None and wanted.strip() not in {str(v) for v in SUPPORTED_PROTOCOLS}:
            response = error_response(HQError(426, ErrorCode.UPGRADE_REQUIRED,
                                              f"HQ speaks protocol {list(SUPPORTED_PROTOCOLS)}, not {wanted}",
                                              {"protocols": list(SUPPORTED_PROTOCOLS)}))
            await response(scope, receive, send)
            return
        if scope["path"].startswith("/v1/blobs/"):
            await self.app(scope, receive, send)
        else:
            await self.gzip(scope, receive, send)


def create_app(hq: HQ, ticks: clock.Ticks = clock.monotonic) -> FastAPI:
    """The app over `hq`; `ticks` is the clock its throttles count in (a test's own, so it never sleeps).
    Its counters (GET /metrics) are its own: they start at zero with the app."""
    app = FastAPI(title="NailMirror HQ", version=__version__, docs_url=None, redoc_url=None)
    app.state.hq = hq
    app.state.metrics = Metrics()
    app.state.doors = Doors(ticks)
    app.state.blob_access = BlobAccess()
    errors.install(app)
    app.include_router(v1.router)
    app.include_router(observe.router)
    app.include_router(credits.router)
    app.include_router(captures.router)
    from nailmirror_hq.web import routes as review  # Jinja2 and the templates load only with the app

    app.mount(f"{review.PREFIX}/static", review.static, name="review-static")
    app.include_router(review.router)
    app.add_exception_handler(review.Refused, review.refused)  # the login redirect or 403 its dependencies chose
    from nailmirror_hq.web import audit_page, credits_page, fleet_page, rollouts_page

    app.include_router(credits_page.router)
    app.include_router(audit_page.router)
    app.include_router(fleet_page.router)
    app.include_router(rollouts_page.router)
    from nailmirror_hq.web import captures_page, labels_page

    app.include_router(captures_page.router)
    app.include_router(labels_page.router)
    app.add_middleware(ProtocolGate)
    app.add_middleware(observe.CountRequests, registry=app.state.metrics)  # last added: outermost, sees all
    return app
