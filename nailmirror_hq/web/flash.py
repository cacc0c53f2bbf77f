"""A notice that survives one redirect (POST-redirect-GET): a form's answer is a 303 to a page, and what the
post did rides to that page in a short-lived cookie, shown once and then deleted, so reloading the page shows
the page and never posts again.

The cookie is signed with the session's CSRF token (HMAC-SHA256): another session's, or a hand-made one, is
ignored. It holds at most MAX_BYTES, so a long list (a bulk approve's refusals) is cut with a count of the rest.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from nailmirror_hq.web.sessions import Session

COOKIE = "nm_hq_flash"
MAX_AGE_S = 60  # long enough for the redirect, short enough that a later visit does not see it
MAX_BYTES = 3000  # under a browser's 4 KiB per cookie, with room for the name and attributes


def _sign(session: Session, data: str) -> str:
    return hmac.new(session.csrf.encode(), data.encode(), hashlib.sha256).hexdigest()


def _encode(payload: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload, ensure_ascii=False).encode()).decode().rstrip("=")


def put(response: Response, session: Session, path: str, payload: dict[str, Any], *, listed: str = "") -> None:
    """Carry `payload` to the next page under `path`; its list under key `listed` is cut from the end until the
    cookie fits (how many were cut goes under "more")."""
    payload = dict(payload)
    everything = list(payload.get(listed) or []) if listed else []
    items = list(everything)
    while True:
        if listed:
            payload[listed], payload["more"] = items, len(everything) - len(items)
        data = _encode(payload)
        if len(data) <= MAX_BYTES or not items:
            break
        items.pop()
    response.set_cookie(COOKIE, f"{data}.{_sign(session, data)}", max_age=MAX_AGE_S, httponly=True,
                        samesite="strict", path=path)


def take(request: Request, session: Session) -> dict[str, Any] | None:
    """The notice carried to this page, None when there is none or it is not this session's (the caller deletes
    the cookie on its answer: `clear`)."""
    data, _, signature = (request.cookies.get(COOKIE) or "").partition(".")
    if not data or not hmac.compare_digest(signature.encode(), _sign(session, data).encode()):
        return None
    try:
        found = json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def clear(request: Request, response: Response, path: str) -> None:
    if COOKIE in request.cookies:
        response.delete_cookie(COOKIE, path=path)
