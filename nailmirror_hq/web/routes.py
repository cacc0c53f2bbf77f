"""The review page's routes, under /review. Every page and every POST depends on `Allowed(Permission.X)` or
`AllowedForm(Permission.X)` (no session → the login page; a POST's form without the session's CSRF token → 403;
a role without X (roles.py) → the 403 page), so a new route cannot forget sign-in, CSRF or its permission
(tests/hq/web/test_roles.py walks the route table). The login form uses a double-submit cookie instead. htmx
requests (HX-Request) get the changed row, plain form posts a redirect or the page.

Decisions go through the same domain functions as the CLI (drafts.approve / reject, catalog.set_status,
stores.revoke), so a reviewer deciding a draft another reviewer just decided gets 409 and "already decided".
"""

from __future__ import annotations

import hmac
import logging
import secrets
import zoneinfo
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from nailmirror_hq import catalog, db, draft_edits, drafts, feed, listing, logs, metrics, reach, reviewers, stores
from nailmirror_hq.api import observe
from nailmirror_hq.errors import HQError
from nailmirror_hq.images import MEDIA_TYPES
from nailmirror_hq.roles import Permission
from nailmirror_hq.schema import blob
from nailmirror_hq.service import HQ
from nailmirror_hq.throttle import Doors, client_address, retry_after_header
from nailmirror_hq.web import flash, i18n, reject_reasons, sessions

HERE = Path(__file__).parent
LOGIN_CSRF_COOKIE = "nm_hq_login_csrf"
LANG_COOKIE = "nm_hq_lang"
PREFIX = "/review"
log = logging.getLogger(__name__)

_env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]),
                   extensions=["jinja2.ext.i18n"])
router = APIRouter(prefix=PREFIX)
static = StaticFiles(directory=HERE / "static")


def _hq(request: Request) -> HQ:
    hq: HQ = request.app.state.hq
    return hq


def _lang(request: Request) -> str:
    return i18n.pick(request.query_params.get("lang"), request.cookies.get(LANG_COOKIE),
                     request.headers.get("accept-language"))


# The header's tabs, each shown only to a role that may open it. A page added on another branch adds its row here
# (its route then depends on the same permission).
NAV: list[tuple[str, str, Permission]] = [
    ("/", "Review queue", Permission.REVIEW_DRAFTS),
    ("/catalog", "Catalog", Permission.READ_CATALOG),
    ("/stores", "Stores", Permission.MANAGE_STORES),
    ("/fleet", "Fleet", Permission.MANAGE_FLEET),
    ("/credits", "Credits", Permission.MANAGE_CREDITS),
    ("/rollouts", "Rollouts", Permission.PUBLISH_ROLLOUTS),
    ("/captures", "Captures", Permission.READ_CAPTURES),
    ("/labels", "Labelling", Permission.LABEL_CAPTURES),
    ("/audit", "Audit log", Permission.READ_AUDIT),
]


def _nav(session: sessions.Session | None) -> list[tuple[str, str]]:
    return [(path, label) for path, label, permission in NAV if session is not None and session.can(permission)]


def render(request: Request, template: str, http_status: int = 200, **context: Any) -> HTMLResponse:
    lang = _lang(request)
    translations = i18n.translations(lang)
    _env.install_gettext_translations(translations, newstyle=True)  # type: ignore[attr-defined]
    context.setdefault("nav", _nav(context.get("session")))
    html = _env.get_template(template).render(lang=lang, prefix=PREFIX, request=request, P=Permission, **context)
    response = HTMLResponse(html, status_code=http_status, headers={"Cache-Control": "no-store",
                                                                "X-Frame-Options": "DENY",
                                                                "Content-Security-Policy": "default-src 'self'"})
    if request.query_params.get("lang") in i18n.LANGUAGES:
        response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax")
    return response


def _session(request: Request) -> sessions.Session | None:
    with db.read(_hq(request).engine) as conn:
        return sessions.find(conn, request.cookies.get(sessions.COOKIE))


def _to_login() -> RedirectResponse:
    return RedirectResponse(f"{PREFIX}/login", status_code=303)


async def _form(request: Request, session: sessions.Session) -> dict[str, str] | None:
    """The posted form, or None when its CSRF token is not this session's."""
    form = {k: str(v) for k, v in (await request.form()).items()}
    return form if sessions.csrf_ok(session, form.get("csrf")) else None


def _forbidden(request: Request) -> HTMLResponse:
    return render(request, "error.html", 403, message_key="csrf")


class Refused(Exception):
    """Raised by the dependencies below with the answer to send instead of running the route: the login
    redirect (a plain 401 for an image), 403 for a form without this session's CSRF token, or the 403 page for a
    role without the route's permission. create_app installs `refused` for it."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


async def refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return exc.response


@dataclass(frozen=True)
class Posted:
    session: sessions.Session
    form: dict[str, str]


def signed_in(request: Request) -> sessions.Session:
    """The reviewer's session, or the login redirect."""
    session = _session(request)
    if session is None:
        raise Refused(_to_login())
    return session


def _not_allowed(request: Request, session: sessions.Session) -> HTMLResponse:
    return render(request, "error.html", 403, message_key="not_allowed", session=session, role=session.role)


class _Allowed:
    """The dependency behind `Allowed`: kept as an object so a test can read which permission a route needs."""

    def __init__(self, permission: Permission, signed_out: int | None = None) -> None:
        self.permission = permission
        self.signed_out = signed_out

    def __call__(self, request: Request) -> sessions.Session:
        session = _session(request)
        if session is None:
            raise Refused(Response(status_code=self.signed_out) if self.signed_out else _to_login())
        if not session.can(self.permission):
            raise Refused(_not_allowed(request, session))
        return session


class _AllowedForm:
    """The dependency behind `AllowedForm`: the session, then its CSRF-checked form, then the role, in that order
    (no session → login redirect, whatever the form says; a form without the session's token → 403, before the
    role is looked at; a role without the permission → the 403 page). Nothing is written before all three pass."""

    def __init__(self, permission: Permission) -> None:
        self.permission = permission

    async def __call__(self, request: Request) -> Posted:
        session = signed_in(request)
        form = await _form(request, session)
        if form is None:
            raise Refused(_forbidden(request))
        if not session.can(self.permission):
            raise Refused(_not_allowed(request, session))
        return Posted(session, form)


def Allowed(permission: Permission, signed_out: int | None = None) -> Any:  # noqa: N802 (reads as a type)
    """A page's session, if its role allows `permission` (roles.allows, the one check)."""
    return Depends(_Allowed(permission, signed_out))


def AllowedForm(permission: Permission) -> Any:  # noqa: N802
    """A POST's session and CSRF-checked form, if its role allows `permission`."""
    return Depends(_AllowedForm(permission))


# --- sign-in -----------------------------------------------------------------------------------------------------

@router.get("/login")
def login_page(request: Request) -> HTMLResponse:
    token = secrets.token_urlsafe(24)
    response = render(request, "login.html", csrf=token, failed=False)
    response.set_cookie(LOGIN_CSRF_COOKIE, token, httponly=True, samesite="strict", path=PREFIX)
    return response


def _verify(hq: HQ, name: str, password: str) -> bool:
    # In the thread pool: argon2 takes most of a second on a small server, and on the event loop it would hold
    # up every other request (the kiosks' included) while it runs.
    with db.read(hq.engine) as conn:
        return reviewers.verify(conn, name, password)


@router.post("/login")
async def login(request: Request) -> Response:
    form = {k: str(v) for k, v in (await request.form()).items()}
    cookie = request.cookies.get(LOGIN_CSRF_COOKIE) or ""
    if not cookie or not hmac.compare_digest(cookie, form.get("csrf", "")):
        return _forbidden(request)
    hq = _hq(request)
    doors: Doors = request.app.state.doors
    name, address = form.get("name", ""), client_address(request)
    wait = doors.login_wait(name, address)
    if wait > 0:  # refused before the password is looked at: the right one too
        seconds = retry_after_header(wait)
        log.warning("review login throttled: account %r from %s, %d s left", name[:80], address, seconds)
        observe.of(request).inc(metrics.THROTTLED, door="review")
        throttled = render(request, "login.html", 429, csrf=cookie, failed=False, throttled=seconds)
        throttled.headers["Retry-After"] = str(seconds)
        return throttled
    ok = await run_in_threadpool(_verify, hq, name, form.get("password", ""))
    if not ok:
        observe.of(request).inc(metrics.FAILED_LOGINS, door="review")
        lock = doors.login_failed(name, address)
        # The account name as typed (cut short), never the password.
        logs.event(log, logging.WARNING if lock > 0 else logging.INFO, "review login failed", account=name[:80],
                   address=address, locked_s=retry_after_header(lock) if lock > 0 else 0)
        return render(request, "login.html", 401, csrf=cookie, failed=True)
    doors.login_succeeded(name)
    with db.write(hq.engine) as conn:
        session_id = sessions.start(conn, form["name"])
        account = reviewers.get(conn, form["name"])
    # The first tab this role may open (a labeller has no review queue).
    home = _nav(sessions.Session(name, "", account.role if account else ""))
    response = RedirectResponse(f"{PREFIX}{home[0][0] if home else '/'}", status_code=303)
    response.set_cookie(sessions.COOKIE, session_id, httponly=True, samesite="strict", path=PREFIX,
                        secure=request.url.scheme == "https" or request.headers.get("x-forwarded-proto") == "https",
                        max_age=int(sessions.LIFETIME.total_seconds()))
    response.delete_cookie(LOGIN_CSRF_COOKIE, path=PREFIX)
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    session = _session(request)
    if session is not None and await _form(request, session) is not None:
        with db.write(_hq(request).engine) as conn:
            sessions.end(conn, request.cookies.get(sessions.COOKIE))
    response = _to_login()
    response.delete_cookie(sessions.COOKIE, path=PREFIX)
    return response


# --- the queue -----------------------------------------------------------------------------------------------

QUEUE_FILTERS = ("PENDING_REVIEW", "APPROVED", "REJECTED", "WITHDRAWN", "ALL")


@dataclass(frozen=True)
class Notice:
    """What the notice area says: a code the templates word (_notice.html), and HQ's own one-line message for
    codes they do not know, so no refusal is ever swallowed."""

    code: str
    detail: str = ""
    field: str = ""


def _notice(exc: HQError) -> Notice:
    return Notice(str(exc.code), exc.message)


def _names(categories: list[dict[str, Any]], tags: list[dict[str, Any]]) -> dict[str, dict[str, tuple[str, str]]]:
    """code → (Chinese, English) name of every category and tag, for the chips (a code HQ lacks shows as is)."""
    return {kind: {r["code"]: (r["name_zh"], r["name_en"] or r["name_zh"]) for r in rows}
            for kind, rows in (("category", categories), ("tag", tags))}


def _queue_context(hq: HQ, params: Any) -> dict[str, Any]:
    status = params.get("status") if params.get("status") in QUEUE_FILTERS else "PENDING_REVIEW"
    q, store_id = str(params.get("q") or "")[:listing.MAX_QUERY], str(params.get("store") or "")
    with db.read(hq.engine) as conn:
        paging, rows = listing.queue_page(conn, None if status == "ALL" else status, q, store_id,
                                          listing.page_number(params.get("page")))
        store_ids = [s.id for s in stores.list_stores(conn)]
        categories = catalog.list_references(conn, "category")
        tags = catalog.list_references(conn, "tag")
        channel_codes = feed.channels(conn)
    return {"drafts": rows, "paging": paging, "status": status, "q": q, "store": store_id, "stores": store_ids,
            "query": urlencode({"status": status, "store": store_id, "q": q}),
            "categories": categories, "tags": tags, "channels": channel_codes, "reasons": reject_reasons.REASONS,
            "price_text": draft_edits.price_text, "names": _names(categories, tags)}


@router.get("/")
def queue(request: Request, session: Annotated[sessions.Session, Allowed(Permission.REVIEW_DRAFTS)]) -> Response:
    notices: dict[str, Any] = {}
    carried = flash.take(request, session)  # a bulk approve's answer, shown once (POST-redirect-GET)
    if carried is not None and carried.get("kind") == "bulk_approved":
        refused = [str(r) for r in carried.get("refused") or []]
        more = int(carried.get("more") or 0)
        detail = "; ".join(refused + ([f"+{more}"] if more else []))
        notices = {"notice": Notice("bulk_approved", detail), "approved": int(carried.get("approved") or 0),
                   "refused": len(refused) + more}
    elif carried is not None and carried.get("kind") == "none_ticked":
        notices = {"notice": Notice("none_ticked")}
    response = render(request, "queue.html", session=session, **notices,
                      **_queue_context(_hq(request), request.query_params))
    flash.clear(request, response, PREFIX)
    return response


def _row_response(request: Request, session: sessions.Session, draft_id: str, status: int,
                  notice: Notice | None) -> Response:
    hq = _hq(request)
    if request.headers.get("hx-request"):
        with db.read(hq.engine) as conn:
            row = listing.queue_row(conn, draft_id)
            categories, tags = catalog.list_references(conn, "category"), catalog.list_references(conn, "tag")
            references = {"categories": categories, "tags": tags, "channels": feed.channels(conn),
                          "names": _names(categories, tags)}
        return render(request, "_draft_row.html", status, session=session, d=row, notice=notice,
                      reasons=reject_reasons.REASONS, price_text=draft_edits.price_text, **references)
    return render(request, "queue.html", status, session=session, notice=notice, notice_draft=draft_id,
                  **_queue_context(hq, {}))


@router.post("/drafts/bulk-approve")
async def bulk_approve(request: Request, post: Annotated[Posted, AllowedForm(Permission.REVIEW_DRAFTS)]) -> Response:
    """Approve every ticked draft as it was sent, each in its own transaction: one already decided by another
    reviewer is reported, the others still go. The answer is a redirect to the queue, which says what was done
    (flash.py), so reloading it approves nothing again."""
    ticked = [str(v) for v in (await request.form()).getlist("draft")]
    approved, refused = 0, []
    for item in ticked[:listing.PER_PAGE * 4]:
        draft_id, _, rev = item.partition(":")
        try:
            with db.write(_hq(request).engine) as conn:
                drafts.approve(conn, draft_id, f"hq:{post.session.reviewer}", int(rev) if rev.isdigit() else None)
            approved += 1
        except HQError as exc:
            refused.append(f"{draft_id[:8]}… {exc.message}")
    response = RedirectResponse(f"{PREFIX}/", status_code=303)
    carried = {"kind": "bulk_approved", "approved": approved, "refused": refused} if ticked else {"kind": "none_ticked"}
    flash.put(response, post.session, PREFIX, carried, listed="refused")
    return response


@router.post("/drafts/{draft_id}/{action}")
async def decide(request: Request, draft_id: str, action: str,
                 post: Annotated[Posted, AllowedForm(Permission.REVIEW_DRAFTS)]) -> Response:
    """Approve (as sent, or edited first) or reject with a reason picked from the list or typed, or both."""
    session, form = post.session, post.form
    if action not in ("approve", "reject"):
        return render(request, "error.html", 404, message_key="not_found")
    reason = reject_reasons.reason_text(form.get("reason_code", ""), form.get("reason", ""))
    if action == "reject" and not reason:
        return _row_response(request, session, draft_id, 400, Notice("reason_required"))
    rev = int(form["rev"]) if form.get("rev", "").isdigit() else None
    try:
        edits = draft_edits.parse(form) if action == "approve" and draft_edits.submitted(form) else None
    except draft_edits.EditError as exc:
        return _row_response(request, session, draft_id, 400, Notice(f"edit_{exc.code}", field=exc.field))
    if edits is not None and not session.can(Permission.EDIT_DRAFTS):  # approving as sent needs less
        return _not_allowed(request, session)
    try:
        with db.write(_hq(request).engine) as conn:
            before = feed.appended_total(conn)
            if action == "approve":
                drafts.approve(conn, draft_id, f"hq:{session.reviewer}", rev, edits=edits)
            else:
                drafts.reject(conn, draft_id, f"hq:{session.reviewer}", reason, rev)
            fanout = feed.appended_total(conn) - before
    except HQError as exc:
        return _row_response(request, session, draft_id, exc.status, _notice(exc))
    _count_decision(request, action, fanout)
    logs.event(log, logging.INFO, "draft decided", action=action, draft_id=draft_id, rev=rev,
               reviewer=session.reviewer, fanout=fanout)
    return _row_response(request, session, draft_id, 200, None)


@router.get("/blobs/{sha256}")
def blob_view(request: Request, sha256: str,
              _session_: Annotated[sessions.Session, Allowed(Permission.REVIEW_DRAFTS, signed_out=401)]) -> Response:
    """Draft previews for the people who review drafts only: AI drafts are not public (an image, so a plain 401
    without a session rather than the login page)."""
    hq = _hq(request)
    with db.read(hq.engine) as conn:
        row = conn.execute(select(blob).where(blob.c.sha256 == sha256)).one_or_none()
    if row is None:
        return Response(status_code=404)
    local = hq.blobs.local_path(sha256)
    if local is not None:
        return FileResponse(local, media_type=MEDIA_TYPES.get(row.format, "application/octet-stream"))
    url = hq.blobs.url_for(sha256, 600)
    return RedirectResponse(url, status_code=307) if url else Response(status_code=404)


# --- catalog, stores ------------------------------------------------------------------------------------------

def _catalog_context(hq: HQ, params: Any) -> dict[str, Any]:
    status = params.get("status") if params.get("status") in listing.STYLE_STATES else ""
    q, category = str(params.get("q") or "")[:listing.MAX_QUERY], str(params.get("category") or "")
    with db.read(hq.engine) as conn:
        paging, rows = listing.catalog_page(conn, status or None, q, category,
                                            listing.page_number(params.get("page")))
        channel_codes = feed.channels(conn)
        categories = catalog.list_references(conn, "category")
        tags = catalog.list_references(conn, "tag")
    return {"styles": rows, "paging": paging, "status": status, "q": q, "category": category,
            "query": urlencode({"status": status, "category": category, "q": q}),
            "channels": channel_codes, "categories": categories, "tags": tags, "price_text": draft_edits.price_text,
            "names": _names(categories, tags)}


@router.get("/catalog")
def catalog_page(request: Request, session: Annotated[sessions.Session, Allowed(Permission.READ_CATALOG)]) -> Response:
    return render(request, "catalog.html", session=session, refused=request.query_params.get("refused"),
                  **_catalog_context(_hq(request), request.query_params))


@router.post("/catalog/{kind}")
async def reference_action(request: Request, kind: str,
                           post: Annotated[Posted, AllowedForm(Permission.EDIT_CATALOG)]) -> Response:
    """Add a category or tag, or rename one (the same form: an existing code is renamed)."""
    session, form = post.session, post.form
    entity = {"categories": "category", "tags": "tag"}.get(kind)
    if entity is None:
        return render(request, "error.html", 404, message_key="not_found")
    code, zh, en = form.get("code", "").strip(), form.get("name_zh", ""), form.get("name_en", "")
    order = form.get("sort_order", "").strip()
    actor = f"hq:{session.reviewer}"
    try:
        sort_order = int(order) if order else None
        with db.write(_hq(request).engine) as conn:
            if catalog.reference(conn, entity, code) is not None:
                catalog.rename_reference(conn, entity, code, actor, zh, en, sort_order)
            else:
                catalog.add_reference(conn, entity, code, zh, en, actor, sort_order or 0)
    except (HQError, ValueError):
        return RedirectResponse(f"{PREFIX}/catalog?refused={kind}", status_code=303)
    return RedirectResponse(f"{PREFIX}/catalog", status_code=303)


# Actions that take a style away from stores: each needs a confirming second post naming its reach.
CONFIRMED_STYLE_ACTIONS = ("off-shelf", "take-down")


def _set_status(request: Request, session: sessions.Session, style_id: str, action: str, status: str,
                form: dict[str, str]) -> Response:
    hq = _hq(request)
    # "north, south" publishes to those channels only, "*" to every channel, nothing: where it was.
    wanted = form.get("channels", "").strip() if action == "publish" else ""
    channels = None if not wanted else [] if wanted == "*" else [c.strip() for c in wanted.split(",") if c.strip()]
    try:
        if action in CONFIRMED_STYLE_ACTIONS and form.get("confirm") != "yes":
            with db.read(hq.engine) as conn:
                found = reach.style_reach(conn, style_id)
            return render(request, "confirm.html", session=session, action=action, style_reach=found,
                          target=f"{PREFIX}/styles/{style_id}/{action}", back=f"{PREFIX}/catalog")
        with db.write(hq.engine) as conn:
            before = feed.appended_total(conn)
            catalog.set_status(conn, style_id, status, f"hq:{session.reviewer}", channels=channels)
            fanout = feed.appended_total(conn) - before
    except HQError as exc:
        return render(request, "catalog.html", exc.status, session=session, notice=_notice(exc),
                      **_catalog_context(hq, {}))
    _count_decision(request, action, fanout)
    logs.event(log, logging.INFO, "style status set", action=action, style_id=style_id, status=status,
               channels=wanted or "as before", reviewer=session.reviewer, fanout=fanout)
    return RedirectResponse(f"{PREFIX}/catalog", status_code=303)


# Declared before /styles/{style_id}/{action}, so "take-down" is never that route's action: a take-down deletes
# the style on every kiosk, which only a role with TAKE_DOWN_STYLES may do.
@router.post("/styles/{style_id}/take-down")
async def take_down(request: Request, style_id: str,
                    post: Annotated[Posted, AllowedForm(Permission.TAKE_DOWN_STYLES)]) -> Response:
    return _set_status(request, post.session, style_id, "take-down", "WITHDRAWN", post.form)


@router.post("/styles/{style_id}/{action}")
async def style_action(request: Request, style_id: str, action: str,
                       post: Annotated[Posted, AllowedForm(Permission.EDIT_CATALOG)]) -> Response:
    status = {"publish": "PUBLISHED", "off-shelf": "OFF_SHELF"}.get(action)
    if status is None:
        return render(request, "error.html", 404, message_key="not_found", session=post.session)
    return _set_status(request, post.session, style_id, action, status, post.form)


def _count_decision(request: Request, action: str, fanout: int) -> None:
    """A decision that reached kiosks' feeds: /metrics counts it by action and its fan-out (changes appended).
    A rejection appends nothing and is not a catalog decision kiosks see."""
    if fanout > 0 or action != "reject":
        observe.of(request).inc(metrics.PUBLISHES, action=action.replace("-", "_"))
        observe.of(request).observe(metrics.FANOUT, fanout)


@cache
def _time_zones() -> list[str]:
    """What the stores page offers to type from (any IANA name zoneinfo knows is taken)."""
    return sorted(name for name in zoneinfo.available_timezones() if "/" in name and not name.startswith(
        ("posix/", "right/", "SystemV/", "US/", "Etc/"))) + ["UTC"]


def _stores_page(request: Request, session: sessions.Session, status: int = 200, **notices: Any) -> Response:
    with db.read(_hq(request).engine) as conn:
        rows = [{"store": s, "kiosks": stores.kiosks(conn, s.id)} for s in stores.list_stores(conn)]
    context = {"new_code": None, "new_code_store": None, "bad_zone": None, "notice": None, **notices}
    return render(request, "stores.html", status, session=session, stores=rows, time_zones=_time_zones(), **context)


@router.get("/stores")
def stores_page(request: Request, session: Annotated[sessions.Session, Allowed(Permission.MANAGE_STORES)]) -> Response:
    return _stores_page(request, session)


@router.post("/stores/{store_id}/{action}")
async def store_action(request: Request, store_id: str, action: str,
                       post: Annotated[Posted, AllowedForm(Permission.MANAGE_STORES)]) -> Response:
    session, form = post.session, post.form
    new_code, notice, status = None, None, 200
    hq = _hq(request)
    try:
        if action == "revoke" and form.get("confirm") != "yes":
            with db.read(hq.engine) as conn:
                found = reach.store_reach(conn, store_id, form.get("kiosk") or None)
            return render(request, "confirm.html", session=session, action=action, store_reach=found,
                          kiosk=form.get("kiosk") or "", target=f"{PREFIX}/stores/{store_id}/revoke",
                          back=f"{PREFIX}/stores")
        with db.write(hq.engine) as conn:
            if action == "enroll-code":
                new_code = stores.new_enroll_code(conn, store_id, f"hq:{session.reviewer}")
            elif action == "revoke":
                stores.revoke(conn, store_id, f"hq:{session.reviewer}", form.get("kiosk") or None)
            elif action == "time-zone":
                stores.set_time_zone(conn, store_id, form.get("time_zone", ""), f"hq:{session.reviewer}")
    except HQError as exc:
        if action == "time-zone":  # the one form here whose input can be wrong: say so, keep the old zone
            return _stores_page(request, session, 400, bad_zone=form.get("time_zone", "")[:64])
        notice, status = _notice(exc), exc.status
    # The code is shown once, on this answer only (never in a URL, so never in a proxy's log).
    return _stores_page(request, session, status, new_code=new_code, new_code_store=store_id, notice=notice)
