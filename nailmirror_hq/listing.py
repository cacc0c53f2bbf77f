"""Pages of the review queue and of the catalog for the review page: search, filters and paging, in a fixed
number of queries per page whatever the page shows (a count and the page's rows; the catalog one more for the
page's chosen channels), so a catalog of thousands stays as fast as one of ten (tests/hq/web/test_listing.py
counts the statements).

Search is a case-insensitive substring of the stored JSON body (names, prompt, tags, codes) or of the ids; the
category filter matches the body's `"category": "<code>"` as json.dumps writes it (catalog.py, drafts.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Select, func, or_, select

from nailmirror_hq.schema import draft, draft_revision, style, style_channel
from nailmirror_protocol.shapes import recommended_nail_form

PER_PAGE = 24
DRAFT_STATES = ("PENDING_REVIEW", "APPROVED", "REJECTED", "WITHDRAWN")
STYLE_STATES = ("UNPUBLISHED", "PUBLISHED", "OFF_SHELF", "WITHDRAWN")
PREVIEW_TYPES = ("AI_DRAFT", "COVER", "NAIL_TEXTURE")  # what a reviewer looks at, in that order
MAX_QUERY = 80
# An approved draft's style has the draft's id (drafts.approve): its body names what was published.
_STYLE_BODY = style.c.body.label("style_body")


@dataclass(frozen=True)
class Paging:
    page: int
    per_page: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page


@dataclass(frozen=True)
class QueueRow:
    draft_id: str
    rev: int
    status: str
    store_id: str
    name: str
    name_en: str
    category: str | None
    tags: tuple[str, ...]
    prompt: str
    previews: tuple[str, ...]
    sample_render: str | None
    received_at: str
    decided_at: str | None
    reviewer: str | None
    reason: str | None
    nail_form: tuple[str | None, str | None] | None = None  # the designer's shape and length, if the style says
    # The name the approved style goes by (a reviewer may have edited it), when it differs from the store's.
    published_name: str | None = None


@dataclass(frozen=True)
class CatalogRow:
    id: str
    style_code: str
    version: int
    status: str
    name_zh: str
    name_en: str
    category: str | None
    tags: tuple[str, ...]
    thumbnail: str | None
    channels: tuple[str, ...]  # chosen; empty: every channel
    price_guidance_minor: int | None


def page_number(text: str | None) -> int:
    return int(text) if text and text.isdigit() and 0 < int(text) < 100_000 else 1


def _search(columns: list[Any], q: str) -> Any:
    needle = q.strip().lower()[:MAX_QUERY]
    return or_(*[func.lower(c).contains(needle, autoescape=True) for c in columns])


def _paged(conn: Connection, query: Select[Any], page: int, per_page: int) -> tuple[Paging, list[Any]]:
    total = int(conn.execute(select(func.count()).select_from(query.order_by(None).subquery())).scalar_one())
    paging = Paging(min(page, max(1, -(-total // per_page))), per_page, total)
    return paging, list(conn.execute(query.limit(per_page).offset(paging.offset)))


def queue_page(conn: Connection, status: str | None, q: str = "", store_id: str = "", page: int = 1,
               per_page: int = PER_PAGE) -> tuple[Paging, list[QueueRow]]:
    """One row per draft (its latest revision); waiting drafts oldest first, decided ones newest first."""
    latest = (select(draft_revision.c.draft_id, func.max(draft_revision.c.rev).label("rev"))
              .group_by(draft_revision.c.draft_id).subquery())
    query = (select(draft_revision, draft.c.store_id, _STYLE_BODY)
             .join(latest, (latest.c.draft_id == draft_revision.c.draft_id) & (latest.c.rev == draft_revision.c.rev))
             .join(draft, draft.c.id == draft_revision.c.draft_id)
             .outerjoin(style, style.c.id == draft_revision.c.draft_id))
    if status in DRAFT_STATES:
        query = query.where(draft_revision.c.state == status)
    if store_id:
        query = query.where(draft.c.store_id == store_id)
    if q.strip():
        query = query.where(_search([draft_revision.c.body, draft_revision.c.draft_id, draft.c.store_id], q))
    received = draft_revision.c.received_at
    order = received.asc() if status == "PENDING_REVIEW" else received.desc()
    paging, rows = _paged(conn, query.order_by(order, draft_revision.c.draft_id), page, per_page)
    return paging, [_queue_row(row) for row in rows]


def queue_row(conn: Connection, draft_id: str) -> QueueRow | None:
    """One draft's latest revision as the queue shows it (the row htmx swaps after a decision)."""
    row = conn.execute(select(draft_revision, draft.c.store_id, _STYLE_BODY)
                       .join(draft, draft.c.id == draft_revision.c.draft_id)
                       .outerjoin(style, style.c.id == draft_revision.c.draft_id)
                       .where(draft_revision.c.draft_id == draft_id)
                       .order_by(draft_revision.c.rev.desc()).limit(1)).one_or_none()
    return _queue_row(row) if row else None


def _published_name(row: Any, sent: dict[str, Any]) -> str | None:
    """The approved style's names ("zh en"), when a reviewer's edit made them differ from the store's."""
    if row.state != "APPROVED" or not row.style_body:
        return None
    published = json.loads(row.style_body).get("name") or {}
    names = (published.get("zh") or "", published.get("en") or "")
    return " ".join(filter(None, names)) or None if names != (sent.get("zh") or "", sent.get("en") or "") else None


def _queue_row(row: Any) -> QueueRow:
    body = json.loads(row.body)
    name = body.get("name") or {}
    assets = [a for a in body.get("assets") or [] if isinstance(a, dict)]
    previews = [a["sha256"] for kind in PREVIEW_TYPES for a in assets if a.get("type") == kind]
    render = body.get("sample_render")
    return QueueRow(row.draft_id, row.rev, row.state, row.store_id, name.get("zh") or name.get("en") or "",
                    name.get("en") or "", body.get("category"), tuple(body.get("tags") or ()),
                    body.get("prompt") or "", tuple(dict.fromkeys(previews))[:4],
                    render.get("sha256") if isinstance(render, dict) else None, row.received_at, row.decided_at,
                    row.reviewer, row.reason, recommended_nail_form(body.get("design")), _published_name(row, name))


def catalog_page(conn: Connection, status: str | None, q: str = "", category: str = "", page: int = 1,
                 per_page: int = PER_PAGE) -> tuple[Paging, list[CatalogRow]]:
    query = select(style)
    if status in STYLE_STATES:
        query = query.where(style.c.status == status)
    if category:
        query = query.where(style.c.body.contains(json.dumps({"category": category})[1:-1], autoescape=True))
    if q.strip():
        query = query.where(_search([style.c.body, style.c.style_code, style.c.id], q))
    paging, rows = _paged(conn, query.order_by(style.c.created_at.desc(), style.c.id), page, per_page)
    chosen: dict[str, list[str]] = {}
    if rows:
        for link in conn.execute(select(style_channel).where(style_channel.c.style_id.in_([r.id for r in rows]))
                                 .order_by(style_channel.c.channel)):
            chosen.setdefault(link.style_id, []).append(link.channel)
    return paging, [_catalog_row(row, tuple(chosen.get(row.id, ()))) for row in rows]


def _catalog_row(row: Any, channels: tuple[str, ...]) -> CatalogRow:
    body = json.loads(row.body)
    name = body.get("name") or {}
    assets = [a for a in body.get("assets") or [] if isinstance(a, dict)]
    thumb = next((a["sha256"] for kind in ("THUMBNAIL", "COVER", "NAIL_TEXTURE") for a in assets
                  if a.get("type") == kind), None)
    price = body.get("price_guidance_minor")
    return CatalogRow(row.id, row.style_code, row.version, row.status, name.get("zh") or "", name.get("en") or "",
                      body.get("category"), tuple(body.get("tags") or ()), thumb, channels,
                      price if isinstance(price, int) else None)
