"""GET /metrics (no login: counters only, nailmirror_hq/metrics.py) and the ASGI layer that counts every request.

The layer sits outside everything else (the 426 gate and gzip included), so it sees every answer as the client
gets it. A request is labelled with its route's template ("/v1/blobs/{sha256}", never the hash itself), "other"
when no route matched; a kiosk's poll is timed from its first byte in to its last byte out; blob bytes are
counted as they are sent, so a Range answer or a download cut short counts what left HQ.
"""

from __future__ import annotations

import os
import time

from fastapi import APIRouter, Request, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nailmirror_hq import metrics
from nailmirror_hq.metrics import Metrics
from nailmirror_protocol import paths

METRICS_PATH = "/metrics"
BLOB_ROUTE = "/v1/blobs/{sha256}"
router = APIRouter()


def of(request: Request) -> Metrics:
    found: Metrics = request.app.state.metrics
    return found


@router.get(METRICS_PATH, include_in_schema=False)
def metrics_page(request: Request) -> Response:
    return Response(of(request).render(), media_type=metrics.CONTENT_TYPE, headers={"Cache-Control": "no-store"})


class CountRequests:
    def __init__(self, app: ASGIApp, registry: Metrics) -> None:
        self.app = app
        self.registry = registry

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0
        sent = 0

        async def counting_send(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            elif message["type"] == "http.response.pathsend":  # a server that sends the file itself
                sent += os.stat(message["path"]).st_size
            await send(message)

        try:
            await self.app(scope, receive, counting_send)
        finally:
            self._record(scope, status or 500, sent, time.perf_counter() - started)

    def _record(self, scope: Scope, status: int, sent: int, seconds: float) -> None:
        route = getattr(scope.get("route"), "path", None)
        template = route if isinstance(route, str) else "other"
        method = str(scope.get("method", "")).upper()
        if method not in {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"}:
            method = "other"
        self.registry.inc(metrics.REQUESTS, method=method, route=template, status=metrics.status_class(status))
        if template == paths.CATALOG_CHANGES and method == "GET":
            self.registry.observe(metrics.POLL_SECONDS, seconds)
        elif template == BLOB_ROUTE and method in ("GET", "HEAD"):
            if 300 <= status < 400:
                self.registry.inc(metrics.BLOB_REDIRECTS)
            elif 200 <= status < 300 and sent:
                self.registry.inc(metrics.BLOB_BYTES, sent)
