"""The review page's Captures tab (issue #26 §6): consented nail captures, counts per store and day, thumbnails
for the readers allowed, and a withdrawal by the code a customer gives.

Every read goes through captures.can_read_captures (the one permission, `# permission: read_captures`) and is
audited: the list, and each thumbnail served (/captures/{code}/image, never cached). A reviewer without the
permission sees that they lack it and nothing else. HQ never decodes a capture: the thumbnail is the capture
itself, sized by the page.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from nailmirror_hq import captures
from nailmirror_hq.errors import HQError
from nailmirror_hq.roles import Permission
from nailmirror_hq.web.routes import PREFIX, Allowed, AllowedForm, Posted, _hq, render
from nailmirror_hq.web.sessions import Session

LISTED = 120
router = APIRouter(prefix=PREFIX)


@router.get("/captures")
def captures_page(request: Request, session: Annotated[Session, Allowed(Permission.READ_CAPTURES)],
                  notice: str | None = None) -> Response:
    if not captures.can_read_captures(session):
        return render(request, "captures.html", http_status=403, session=session, allowed=False, rows=[],
                      counts=[], notice=None)
    hq = _hq(request)
    rows = captures.list_captures(hq.engine, session, limit=LISTED)
    counts = captures.counts(hq.engine, session)
    return render(request, "captures.html", session=session, allowed=True, rows=rows, counts=counts,
                  notice=notice)


@router.get("/captures/{code}/image")
def capture_image(request: Request, code: str,
                  session: Annotated[Session, Allowed(Permission.READ_CAPTURES)]) -> Response:
    hq = _hq(request)
    try:
        data = captures.read_image(hq.engine, hq.require_captures(), session, code)
    except HQError as exc:
        return Response(status_code=exc.status, headers={"Cache-Control": "no-store"})
    return Response(data, media_type="image/png", headers={"Cache-Control": "no-store, private",
                                                           "X-Content-Type-Options": "nosniff"})


@router.post("/captures/withdraw")
def withdraw(request: Request, posted: Annotated[Posted, AllowedForm(Permission.WITHDRAW_CAPTURES)]) -> Response:
    hq = _hq(request)
    try:
        done = captures.withdraw(hq.engine, hq.require_captures(), posted.form.get("code", ""),
                                 f"reviewer:{posted.session.reviewer}")
    except HQError:
        return RedirectResponse(f"{PREFIX}/captures?notice=bad_code", status_code=303)
    notice = "withdrawn_held" if done.held else "withdrawn_not_held"
    return RedirectResponse(f"{PREFIX}/captures?notice={notice}&code={done.code}", status_code=303)
