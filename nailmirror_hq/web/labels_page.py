"""The labelling page (issue #27 §1): a queue of captures needing a label, each drawn over on a canvas
(static/labels.js: brush, eraser, polygon, zoom, pan, undo) starting from the newest label version's mask or the
kiosk's proposal, and accepted (with skin tone and nail kind), skipped, or rejected with a reason.

Every route needs LABEL_CAPTURES (`# permission: label_captures`) and labels.can_label (which also asks
READ_CAPTURES); every read — the queue, the capture, its versions, its proposal, a version's mask — is audited by
labels.py / captures.py. The mask comes back as a PNG data URL in the form; labels.save checks it (one line).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from nailmirror_hq import captures, labels
from nailmirror_hq.errors import HQError
from nailmirror_hq.roles import Permission
from nailmirror_hq.web.routes import PREFIX, Allowed, AllowedForm, Posted, _hq, render
from nailmirror_hq.web.sessions import Session

QUEUED = 50
router = APIRouter(prefix=PREFIX)
_IMAGE_HEADERS = {"Cache-Control": "no-store, private", "X-Content-Type-Options": "nosniff"}


@router.get("/labels")
def labels_page(request: Request, session: Annotated[Session, Allowed(Permission.LABEL_CAPTURES)],
                code: str | None = None, saved: str | None = None, decision: str | None = None) -> Response:
    if not labels.can_label(session):
        return render(request, "labels.html", http_status=403, session=session, allowed=False)
    context = _context(request, session, code)
    return render(request, "labels.html", session=session, allowed=True, saved=saved,
                  saved_decision=decision if decision in labels.DECISIONS else None, **context)


def _context(request: Request, session: Session, code: str | None) -> dict[str, Any]:
    hq = _hq(request)
    queue = labels.queue(hq.engine, session, limit=QUEUED)
    chosen = code or (queue[0].code if queue else None)
    current, history = None, []
    start: dict[str, Any] = {"source": "blank", "version": None, "url": ""}
    if chosen:
        try:
            current = captures.show(hq.engine, session, chosen)
        except HQError:
            current = None
    if current is not None:
        history = labels.versions(hq.engine, session, current.code)
        with_mask = [v for v in history if v.mask_sha256]
        if with_mask:
            start = {"source": "label", "version": with_mask[-1].id,
                     "url": f"{PREFIX}/labels/mask/{with_mask[-1].id}.png"}
        elif current.facts.get("proposed_mask_png_b64"):
            start = {"source": "kiosk", "version": None, "url": f"{PREFIX}/labels/{current.code}/proposal.png"}
    return {"queue": queue, "current": current, "history": history, "start": start, "nails": _nails(current),
            "skin_tones": labels.SKIN_TONES, "nail_kinds": labels.NAIL_KINDS, "reasons": labels.REJECT_REASONS}


def _nails(current: captures.CaptureRow | None) -> list[dict[str, Any]]:
    """Each nail quad of the capture's facts as a box to zoom to (left, top, right, bottom in capture pixels)."""
    out: list[dict[str, Any]] = []
    for nail in (current.facts.get("nails") or []) if current is not None else []:
        try:
            xs = [float(p[0]) for p in nail["corners"]]
            ys = [float(p[1]) for p in nail["corners"]]
        except (KeyError, TypeError, ValueError, IndexError):
            continue
        out.append({"finger": str(nail.get("finger", "")), "hand": nail.get("hand", 0),
                    "box": [round(min(xs)), round(min(ys)), round(max(xs)), round(max(ys))]})
    return out


@router.get("/labels/{code}/proposal.png")
def proposal(request: Request, code: str,
             session: Annotated[Session, Allowed(Permission.LABEL_CAPTURES)]) -> Response:
    try:
        data = labels.proposal(_hq(request).engine, session, code)
    except HQError as exc:
        return Response(status_code=exc.status, headers={"Cache-Control": "no-store"})
    if data is None:
        return Response(status_code=404, headers={"Cache-Control": "no-store"})
    return Response(data, media_type="image/png", headers=_IMAGE_HEADERS)


@router.get("/labels/mask/{version_id}.png")
def mask(request: Request, version_id: int,
         session: Annotated[Session, Allowed(Permission.LABEL_CAPTURES)]) -> Response:
    hq = _hq(request)
    try:
        data = labels.read_mask(hq.engine, hq.require_captures(), session, version_id)
    except HQError as exc:
        return Response(status_code=exc.status, headers={"Cache-Control": "no-store"})
    return Response(data, media_type="image/png", headers=_IMAGE_HEADERS)


@router.post("/labels/{code}")
def save(request: Request, code: str,
         posted: Annotated[Posted, AllowedForm(Permission.LABEL_CAPTURES)]) -> Response:
    hq, form = _hq(request), posted.form
    try:
        decision = form.get("decision", "")
        version = form.get("source_version") or None
        draw = labels.Draw(
            decision, labels.parse_data_url(form.get("mask", "")) if decision == "accepted" else None,
            source=form.get("source", "blank"), source_version=int(version) if version and version.isdigit()
            else None, skin_tone=form.get("skin_tone") or None, nail_kind=form.get("nail_kind") or None,
            reason=form.get("reason") or None)
        done = labels.save(hq.engine, hq.require_captures(), posted.session, code, draw)
    except HQError as exc:
        if exc.status == 403:
            return render(request, "labels.html", http_status=403, session=posted.session, allowed=False)
        context = _context(request, posted.session, code)
        return render(request, "labels.html", http_status=exc.status, session=posted.session, allowed=True,
                      error=exc.message, saved=None, saved_decision=None, **context)
    return RedirectResponse(f"{PREFIX}/labels?saved={done.code}&decision={done.decision}", status_code=303)
