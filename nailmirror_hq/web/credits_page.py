"""The review page's Credits tab (issue 14): each store's balance and usage as HQ knows it, and recent grants.

Read-only: grants are made with `nailmirror-hq credits grant` (a chain's finance step, scripted), and the
numbers are credits.books, the same as `credits show`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from fastapi.responses import Response

from nailmirror_hq import credits, db
from nailmirror_hq.roles import Permission
from nailmirror_hq.web.routes import PREFIX, Allowed, _hq, render
from nailmirror_hq.web.sessions import Session

RECENT_GRANTS = 50
router = APIRouter(prefix=PREFIX)


@router.get("/credits")
def credits_page(request: Request, session: Annotated[Session, Allowed(Permission.MANAGE_CREDITS)]) -> Response:
    with db.read(_hq(request).engine) as conn:
        books = credits.books(conn)
        recent = list(reversed(credits.grants(conn)))[:RECENT_GRANTS]
    names = {b.store_id: b.name for b in books}
    return render(request, "credits.html", session=session, books=books, grants=recent, names=names)
