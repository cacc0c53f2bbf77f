"""The review page's Fleet tab (issue #25 §7, §8): every kiosk's last report (last seen, versions, state,
problems), filters, the alert list, and what an operator may do to one kiosk.

Each action names its reach on a confirmation page first (GET …/fleet/KIOSK/ACTION), and is done by the form
posted from there (POST, the session's CSRF token): ask the kiosk to retry its failed downloads, resync from a
snapshot or replay its dead letters (done at its next sync; never generation tasks nor OUTCOME_UNKNOWN ones,
which stay for staff at the kiosk); revoke it; replace it (a one-time code whose use revokes it); rename it.
The same domain functions as `nailmirror-hq kiosks` (fleet.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from fastapi.responses import Response

from nailmirror_hq import db, fleet
from nailmirror_hq.errors import HQError
from nailmirror_hq.roles import Permission
from nailmirror_hq.web.routes import PREFIX, Allowed, AllowedForm, Posted, _hq, render
from nailmirror_hq.web.sessions import Session
from nailmirror_protocol.shapes import FLEET_REQUEST_KINDS

ACTIONS = (*FLEET_REQUEST_KINDS, "revoke", "replace", "rename")
router = APIRouter(prefix=PREFIX)
FleetPage = Annotated[Session, Allowed(Permission.MANAGE_FLEET)]
FleetForm = Annotated[Posted, AllowedForm(Permission.MANAGE_FLEET)]


def _page(request: Request, session: object, wanted: str, status: int = 200, **notice: object) -> Response:
    with db.read(_hq(request).engine) as conn:
        rows = fleet.fleet(conn)
    wanted = wanted if wanted in fleet.FILTERS else "all"
    return render(request, "fleet.html", status, session=session, rows=fleet.select_rows(rows, wanted),
                  alerts=fleet.alerts(rows), wanted=wanted, filters=fleet.FILTERS, total=len(rows), **notice)


@router.get("/fleet")
def fleet_page(request: Request, session: FleetPage, filter: str = "all") -> Response:  # noqa: A002 (the query's name)
    return _page(request, session, filter)


def _kiosk(request: Request, kiosk_id: str) -> fleet.FleetKiosk | None:
    with db.read(_hq(request).engine) as conn:
        return next((k for k in fleet.fleet(conn) if k.kiosk_id == kiosk_id), None)


@router.get("/fleet/{kiosk_id}/{action}")
def confirm_page(request: Request, kiosk_id: str, action: str, session: FleetPage) -> Response:
    """What the action will do, to which kiosk of which store, before it is done."""
    kiosk = _kiosk(request, kiosk_id)
    if kiosk is None or action not in ACTIONS:
        return render(request, "error.html", 404, session=session, message_key="not_found")
    return render(request, "fleet.html", session=session, confirm=action, kiosk=kiosk, rows=[], alerts=[],
                  wanted="all", filters=fleet.FILTERS, total=0)


@router.post("/fleet/{kiosk_id}/{action}")
async def fleet_action(request: Request, kiosk_id: str, action: str, post: FleetForm) -> Response:
    session, form = post.session, post.form
    if action not in ACTIONS:
        return render(request, "error.html", 404, session=session, message_key="not_found")
    actor = f"hq:{session.reviewer}"
    code = None
    try:
        with db.write(_hq(request).engine) as conn:
            if action in FLEET_REQUEST_KINDS:
                fleet.ask(conn, kiosk_id, action, actor)
            elif action == "revoke":
                fleet.revoke(conn, kiosk_id, actor)
            elif action == "replace":
                _old, code = fleet.replacement_code(conn, kiosk_id, actor)
            else:
                fleet.rename(conn, kiosk_id, form.get("name", ""), actor)
    except HQError as exc:
        return _page(request, session, "all", exc.status, refused=exc.message, notice_kiosk=kiosk_id)
    # A replacement code is shown once, on this answer only (never in a URL, so never in a proxy's log).
    return _page(request, session, "all", done=action, notice_kiosk=kiosk_id, new_code=code)
