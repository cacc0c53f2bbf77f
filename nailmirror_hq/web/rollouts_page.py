"""The review page's Rollouts tab (issue #25 point 10): each channel's canary stores, every publish with how many
kiosks show it, and the operator's two decisions: widen a rollout in canary to every store, or roll a style (or a
model release's slot) back to its previous published version (after a confirmation that names how many stores
and kiosks it reaches).

The same domain functions as `nailmirror-hq channels canary`, `rollouts widen` and `styles rollback`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from nailmirror_hq import (
    catalog,
    db,
    feed,
    model_releases,
    rollout_actions,
    rollout_report,
    rollouts,
    stores,
)
from nailmirror_hq.errors import HQError
from nailmirror_hq.roles import Permission
from nailmirror_hq.web.routes import PREFIX, Allowed, AllowedForm, Posted, _hq, render
from nailmirror_hq.web.sessions import Session

SHOWN = 100
# A refusal's one line, by the code _back carries (English msgids; the page translates them). Every refusal the
# page can meet comes from a page that was out of date, so each line says what to do next; an unknown code
# gets the last line, never the code itself.
REFUSALS = {
    "not_found": "Not done: that store, channel or rollout is no longer there; reload the page.",
    "bad_request": "Not done: this no longer applies (the page was out of date); reload the page and try again.",
    "not_latest": "Not done: a newer publish of this style came since; reload the page.",
    "": "Not done: HQ refused this change; reload the page and try again.",
}
router = APIRouter(prefix=PREFIX)
RolloutsPage = Annotated[Session, Allowed(Permission.PUBLISH_ROLLOUTS)]
RolloutsForm = Annotated[Posted, AllowedForm(Permission.PUBLISH_ROLLOUTS)]


def _back(refused: str | None = None) -> RedirectResponse:
    return RedirectResponse(f"{PREFIX}/rollouts" + (f"?refused={refused}" if refused else ""), status_code=303)


@router.get("/rollouts")
def rollouts_page(request: Request, session: RolloutsPage) -> Response:
    with db.read(_hq(request).engine) as conn:
        reports = [rollout_report.report(conn, r) for r in rollouts.list_rollouts(conn, limit=SHOWN)]
        sets = rollouts.canary_sets(conn)
        by_channel: dict[str, list[stores.Store]] = {}
        for found in stores.list_stores(conn):
            by_channel.setdefault(found.channel, []).append(found)
        channels = feed.channels(conn)
    return render(request, "rollouts.html", session=session, reports=reports, sets=sets, channels=channels,
                  by_channel=by_channel, refused=_refusal(request.query_params.get("refused")))


def _refusal(code: str | None) -> str | None:
    """The refusal's line (a msgid), None when nothing was refused."""
    return None if not code else REFUSALS.get(code, REFUSALS[""])


@router.post("/channels/{channel_code}/canary")
async def canary_action(request: Request, channel_code: str, post: RolloutsForm) -> Response:
    store_id, action = post.form.get("store", ""), post.form.get("action", "")
    try:
        with db.write(_hq(request).engine) as conn:
            if action == "add":
                rollouts.add_canary(conn, channel_code, store_id, f"hq:{post.session.reviewer}")
            elif action == "remove":
                rollouts.remove_canary(conn, channel_code, store_id, f"hq:{post.session.reviewer}")
            else:
                return _back("bad_request")
    except HQError as exc:
        return _back(str(exc.code))
    return _back()


@router.post("/rollouts/{rollout_id}/widen")
async def widen(request: Request, rollout_id: int, post: RolloutsForm) -> Response:
    try:
        with db.write(_hq(request).engine) as conn:
            rollout_actions.widen(conn, rollout_id, f"hq:{post.session.reviewer}")
    except HQError as exc:
        return _back(str(exc.code))
    return _back()


@router.get("/rollouts/{rollout_id}/rollback")
def confirm_rollback(request: Request, rollout_id: int, session: RolloutsPage) -> Response:
    """The confirmation: which version comes back, and how many stores and kiosks that reaches."""
    try:
        with db.read(_hq(request).engine) as conn:
            r = rollouts.get(conn, rollout_id)
            if r.kind == model_releases.KIND:
                channel_code, slot = model_releases.parse_subject(r.subject_id)
                store_count, kiosk_count = rollout_report.channel_reach(conn, [channel_code])
                return render(request, "rollback_confirm.html", session=session, rollout=r, style=None,
                              model=r.body["manifest"]["version"], slot=slot, channel=channel_code,
                              stores=store_count, kiosks=kiosk_count)
            row = catalog.get_style(conn, r.subject_id) if r.kind == "style" else None
            if row is None:
                return _back("not_found")
            store_count, kiosk_count = rollout_report.reach(conn, row.id)
    except HQError as exc:
        return _back(str(exc.code))
    return render(request, "rollback_confirm.html", session=session, rollout=r, style=row, stores=store_count,
                  kiosks=kiosk_count)


@router.post("/rollouts/{rollout_id}/rollback")
async def rollback(request: Request, rollout_id: int, post: RolloutsForm) -> Response:
    try:
        with db.write(_hq(request).engine) as conn:  # a stale page is refused (not_latest): undo only what it showed
            rollout_actions.roll_back(conn, rollout_id, _hq(request).kek, f"hq:{post.session.reviewer}")
    except HQError as exc:
        return _back(str(exc.code))
    return _back()
