"""Draft revisions the stores submit, and their review.

A revision (draft id + rev) is immutable: an identical replay (same canonical-JSON sha256) answers 200, a
different body 409 revision_conflict, so a kiosk retrying after a lost answer never makes a second revision.
Approving publishes the draft as a catalog style *with the draft's id* (the origin kiosk's own row is then taken
over by the feed: no duplicate, whichever of inbox and feed arrives first); the reviewer may edit the published
fields first (`DraftEdits`). A revision may carry a `sample_render` (the style painted on the kiosk's sample hand
photo, for the reviewer's eyes only): it is kept with the revision, never published, and left out of the digest, so a
retry that renders otherwise (or not at all) still replays the revision the first attempt stored.
A decision is a conditional update (WHERE state = 'PENDING_REVIEW'): of two reviewers deciding the same revision,
the second gets already_decided.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, func, select, update

from nailmirror_hq import audit, catalog, clock, inbox, reviewers
from nailmirror_hq.draft_edits import DraftEdits
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import blob, draft, draft_revision
from nailmirror_protocol.canonical import body_sha256, is_sha256_hex
from nailmirror_protocol.errors import ErrorCode
from nailmirror_protocol.shapes import Asset, StyleBody, recommended_nail_form

DRAFT_MAX_ASSETS = 12
DRAFTS_PER_DAY = 20
ASSET_TYPES = {"NAIL_TEXTURE", "COVER", "THUMBNAIL", "TRY_ON_EXAMPLE", "AI_DRAFT"}
SAMPLE_RENDER = "sample_render"  # optional field of a revision (shapes.DraftRevision)
# What the published style's kiosks must have before showing it; AI_DRAFT (the raw image) stays at HQ.
REQUIRED_TYPES = {"NAIL_TEXTURE", "COVER"}


@dataclass(frozen=True)
class Revision:
    draft_id: str
    rev: int
    store_id: str
    state: str
    body: dict[str, Any]
    received_at: str
    decided_at: str | None
    reviewer: str | None
    reason: str | None


def _invalid(message: str) -> HQError:
    return HQError(400, ErrorCode.INVALID_DRAFT, message)


def validate(draft_id: str, rev: int, body: dict[str, Any]) -> None:
    try:
        uuid.UUID(draft_id)
    except ValueError:
        raise _invalid(f"draft id {draft_id!r} is not a UUID") from None
    if rev < 1:
        raise _invalid("rev starts at 1")
    name = body.get("name")
    if not isinstance(name, dict) or not isinstance(name.get("zh", ""), str) or not (name.get("zh") or name.get("en")):
        raise _invalid("name must be {\"zh\": …, \"en\": …} with at least one of them")
    assets = body.get("assets")
    if not isinstance(assets, list) or not assets or len(assets) > DRAFT_MAX_ASSETS:
        raise _invalid(f"assets must list 1 to {DRAFT_MAX_ASSETS} images")
    for asset in assets:
        known = isinstance(asset, dict) and asset.get("type") in ASSET_TYPES
        if not known or not is_sha256_hex(asset.get("sha256")):
            raise _invalid("every asset needs a known type and a lower-case sha256")
    if not any(a["type"] == "NAIL_TEXTURE" for a in assets):
        raise _invalid("a draft needs at least one NAIL_TEXTURE")
    render = body.get(SAMPLE_RENDER)
    if render is not None and not (isinstance(render, dict) and is_sha256_hex(render.get("sha256"))):
        raise _invalid("sample_render needs a lower-case sha256")


def revision_digest(body: dict[str, Any]) -> str:
    """What makes two submissions the same revision: everything but the sample render."""
    return body_sha256({k: v for k, v in body.items() if k != SAMPLE_RENDER})


def named_blobs(body: dict[str, Any]) -> list[str]:
    """Every blob a revision names: its assets and its sample render."""
    render = body.get(SAMPLE_RENDER)
    extra = [render["sha256"]] if isinstance(render, dict) else []
    return sorted({a["sha256"] for a in body["assets"]} | set(extra))


def get_revision(conn: Connection, draft_id: str, rev: int) -> Revision | None:
    row = conn.execute(select(draft_revision, draft.c.store_id).join(draft, draft.c.id == draft_revision.c.draft_id)
                       .where(draft_revision.c.draft_id == draft_id, draft_revision.c.rev == rev)).one_or_none()
    return _revision(row) if row else None


def _revision(row: Any) -> Revision:
    return Revision(row.draft_id, row.rev, row.store_id, row.state, json.loads(row.body), row.received_at,
                    row.decided_at, row.reviewer, row.reason)


def put_revision(conn: Connection, store_id: str, kiosk_id: str, draft_id: str, rev: int,
                 body: dict[str, Any]) -> tuple[Revision, bool]:
    """Store a revision (inside db.write); (revision, created). Raises the protocol's 4xx as HQError."""
    validate(draft_id, rev, body)
    owner = conn.execute(select(draft.c.store_id).where(draft.c.id == draft_id)).scalar_one_or_none()
    if owner is not None and owner != store_id:
        raise HQError(403, ErrorCode.NOT_YOUR_DRAFT, f"draft {draft_id} belongs to another store")
    digest = revision_digest(body)
    existing = get_revision(conn, draft_id, rev)
    if existing is not None:
        if revision_digest(existing.body) == digest:
            return existing, False
        raise HQError(409, ErrorCode.REVISION_CONFLICT, f"draft {draft_id} rev {rev} exists with another body")
    decided = conn.execute(select(func.max(draft_revision.c.rev)).where(
        draft_revision.c.draft_id == draft_id, draft_revision.c.rev > rev)).scalar_one_or_none()
    if decided is not None:
        raise HQError(409, ErrorCode.ALREADY_DECIDED, f"draft {draft_id} has a newer revision {decided}")
    wanted = named_blobs(body)
    have = set(conn.execute(select(blob.c.sha256).where(blob.c.sha256.in_(wanted))).scalars())
    missing = [sha for sha in wanted if sha not in have]
    if missing:
        raise HQError(422, ErrorCode.MISSING_BLOBS, "upload these blobs first", {"missing": missing})
    today = conn.execute(select(func.count()).select_from(draft_revision).join(draft)
                         .where(draft.c.store_id == store_id,
                                draft_revision.c.received_at >= clock.now_text(-timedelta(days=1)))).scalar_one()
    if today >= DRAFTS_PER_DAY:
        raise HQError(429, ErrorCode.SUBMISSION_QUOTA_EXCEEDED, f"over {DRAFTS_PER_DAY} drafts a day",
                      retry_after=3600)
    if owner is None:
        conn.execute(draft.insert().values(id=draft_id, store_id=store_id, created_at=clock.now_text()))
    now = clock.now_text()
    conn.execute(draft_revision.insert().values(draft_id=draft_id, rev=rev, kiosk_id=kiosk_id,
                                                body=json.dumps(body, ensure_ascii=False), body_sha256=digest,
                                                state="PENDING_REVIEW", received_at=now))
    # An older revision still waiting is superseded: the store revised it before anyone decided.
    conn.execute(update(draft_revision).where(draft_revision.c.draft_id == draft_id, draft_revision.c.rev < rev,
                                              draft_revision.c.state == "PENDING_REVIEW")
                 .values(state="WITHDRAWN", decided_at=now))
    inbox.append(conn, store_id, "draft.received", draft_id=draft_id, rev=rev)
    found = get_revision(conn, draft_id, rev)
    assert found is not None
    return found, True


def list_drafts(conn: Connection, status: str | None = None) -> list[dict[str, Any]]:
    """One row per draft: its latest revision."""
    latest = (select(draft_revision.c.draft_id, func.max(draft_revision.c.rev).label("rev"))
              .group_by(draft_revision.c.draft_id).subquery())
    query = (select(draft_revision, draft.c.store_id)
             .join(latest, (latest.c.draft_id == draft_revision.c.draft_id) & (latest.c.rev == draft_revision.c.rev))
             .join(draft, draft.c.id == draft_revision.c.draft_id)
             .order_by(draft_revision.c.received_at, draft_revision.c.draft_id))
    if status:
        query = query.where(draft_revision.c.state == status)
    out = []
    for row in conn.execute(query):
        rev = _revision(row)
        name = rev.body.get("name") or {}
        out.append({"draft_id": rev.draft_id, "rev": rev.rev, "status": rev.state, "store_id": rev.store_id,
                    "name": name.get("zh") or name.get("en") or "", "name_en": name.get("en") or "",
                    "prompt": rev.body.get("prompt") or "", "received_at": rev.received_at,
                    "nail_form": recommended_nail_form(rev.body.get("design")),
                    "decided_at": rev.decided_at, "reviewer": rev.reviewer, "reason": rev.reason})
    return out


def _latest_pending(conn: Connection, draft_id: str, rev: int | None) -> Revision:
    if rev is None:
        rev = conn.execute(select(func.max(draft_revision.c.rev)).where(draft_revision.c.draft_id == draft_id)
                           ).scalar_one_or_none()
    found = get_revision(conn, draft_id, rev) if rev is not None else None
    if found is None:
        raise not_found(f"draft {draft_id}")
    return found


def _decide(conn: Connection, revision: Revision, state: str, reviewer: str, reason: str | None) -> None:
    result = conn.execute(update(draft_revision).where(
        draft_revision.c.draft_id == revision.draft_id, draft_revision.c.rev == revision.rev,
        draft_revision.c.state == "PENDING_REVIEW").values(state=state, decided_at=clock.now_text(),
                                                           reviewer=reviewer, reason=reason))
    if result.rowcount != 1:
        current = get_revision(conn, revision.draft_id, revision.rev)
        decided_state = current.state if current else None
        by = f" by {current.reviewer}" if current and current.reviewer else ""
        raise HQError(409, ErrorCode.ALREADY_DECIDED,
                      f"draft {revision.draft_id} rev {revision.rev} is already decided ({decided_state}{by})",
                      {"state": decided_state, "reviewer": current.reviewer if current else None})


def published_body(revision: Revision) -> StyleBody:
    body = revision.body
    assets: list[Asset] = []
    for asset in body["assets"]:
        if asset["type"] == "AI_DRAFT":
            continue
        item = {k: asset[k] for k in ("type", "slot", "sha256", "size", "format", "width", "height") if k in asset}
        item["required"] = asset["type"] in REQUIRED_TYPES
        assets.append(item)  # type: ignore[arg-type]
    name = body.get("name") or {}
    return {"style_code": str(body.get("style_code") or ""), "status": "PUBLISHED",
            "name": {"zh": name.get("zh") or "", "en": name.get("en") or ""}, "category": body.get("category"),
            "tags": list(body.get("tags") or []), "accent_fingers": list(body.get("accent_fingers") or []),
            "prompt": body.get("prompt") or "", "design": body.get("design"),
            "origin": {"store_id": revision.store_id, "draft_id": revision.draft_id, "rev": revision.rev},
            "published_at": None, "assets": assets}


def approve(conn: Connection, draft_id: str, reviewer: str, rev: int | None = None,
            channels: list[str] | None = None, edits: DraftEdits | None = None) -> Revision:
    """Approve the latest (or the given) pending revision and publish it, one transaction: to `channels` when
    given (catalog.set_status: [] every channel), else where the style already goes (every channel if new).
    `edits` (the reviewer's) replace the names, category, tags and price guidance the store sent, and their
    channels, when chosen, win over `channels`."""
    revision = _latest_pending(conn, draft_id, rev)
    _decide(conn, revision, "APPROVED", reviewer, None)
    body = published_body(revision)
    if edits is not None:
        body = edits.apply(body)
        if edits.channels is not None:
            channels = list(edits.channels)
    for code in filter(None, [body.get("category")]):
        if catalog.reference(conn, "category", str(code)) is None:
            catalog.ensure_category(conn, str(code), str(code), str(code))
    for code in body["tags"]:
        if catalog.reference(conn, "tag", code) is None:
            catalog.ensure_tag(conn, code, code, code)
    existing = catalog.get_style(conn, draft_id)
    if existing is None:
        source = str(revision.body.get("source") or "AI")
        catalog.insert_style(conn, draft_id, body, reviewer, preferred_code=body["style_code"] or None, source=source)
    else:  # a revision of a draft approved before: a new content version of the same style
        catalog.replace_body(conn, draft_id, body, reviewer)
    catalog.set_status(conn, draft_id, "PUBLISHED", reviewer, channels=channels)
    inbox.append(conn, revision.store_id, "draft.decision", draft_id=draft_id, rev=revision.rev,
                 decision="APPROVED", published_style_id=draft_id, reviewer=reviewer, reason=None,
                 reviewer_name=reviewers.shown_name(conn, reviewer))
    audit.record(conn, reviewer, "DRAFT_APPROVE", "draft", draft_id, rev=revision.rev, store_id=revision.store_id,
                 **({"edited": edits.audit_detail()} if edits is not None else {}))
    found = get_revision(conn, draft_id, revision.rev)
    assert found is not None
    return found


def reject(conn: Connection, draft_id: str, reviewer: str, reason: str, rev: int | None = None) -> Revision:
    if not reason or not reason.strip():
        raise HQError(400, ErrorCode.BAD_REQUEST, "a rejection needs a reason")
    revision = _latest_pending(conn, draft_id, rev)
    _decide(conn, revision, "REJECTED", reviewer, reason.strip())
    inbox.append(conn, revision.store_id, "draft.decision", draft_id=draft_id, rev=revision.rev,
                 decision="REJECTED", published_style_id=None, reviewer=reviewer, reason=reason.strip(),
                 reviewer_name=reviewers.shown_name(conn, reviewer))
    audit.record(conn, reviewer, "DRAFT_REJECT", "draft", draft_id, rev=revision.rev, reason=reason.strip())
    found = get_revision(conn, draft_id, revision.rev)
    assert found is not None
    return found
