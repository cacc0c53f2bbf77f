"""The audit log as people read it (issue #25 point 13): one page of rows, newest first, filtered by store, person
and style, each row carrying what a reader needs beside the codes — the style's code instead of its UUID, the
store and its time zone, the person's display name — from ONE query per page (joins, keyset paging on the id,
the 0009 indexes), so the page stays flat however many styles and rows HQ holds. Words are the page's job
(web/audit_page.py); this module returns rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Connection, String, and_, case, literal, or_, select

from nailmirror_hq import clock
from nailmirror_hq.schema import audit_log, draft, reviewer, store, style

PAGE_SIZE = 50
STYLE_ENTITIES = ("style", "draft")  # an approved draft is published under the draft's id (drafts.py)


@dataclass(frozen=True)
class AuditFilter:
    store_id: str | None = None
    actor: str | None = None  # as recorded: "hq:li.wang", "cli:root", "kiosk:…" (see `actor_for`)
    style: str | None = None  # a style code, or a style's / draft's id
    before: int | None = None  # keyset paging: only rows older than this id


@dataclass(frozen=True)
class AuditRow:
    id: int
    at: str  # UTC text, as recorded
    local_at: str  # "2026-12-04 21:03" in `time_zone`
    time_zone: str
    actor: str
    actor_name: str | None  # an HQ account's display name, when it has one
    action: str
    entity_type: str
    entity_id: str
    style_code: str | None
    store_id: str | None
    store_name: str | None
    detail: dict[str, Any]


@dataclass(frozen=True)
class AuditPage:
    rows: list[AuditRow]
    older: int | None  # the `before` of the next (older) page; None on the last one


def actor_for(person: str) -> str:
    """What a person filter matches: an account name means its web actions ("li.wang" → "hq:li.wang"); an actor
    with its kind ("cli:root", "kiosk:k_…") is taken as it is."""
    person = person.strip()
    return person if ":" in person else f"hq:{person}"


def store_time_zone_column() -> ColumnElement[Any]:
    """SEAM(store time zone): a store's own zone is a column another branch adds (store.time_zone). Until it is
    in schema.py every store reads as None here, i.e. clock.DEFAULT_TIME_ZONE; once it is, this picks it up with
    no other change."""
    column = store.c.get("time_zone")
    return column if column is not None else literal(None, String)


def page(conn: Connection, wanted: AuditFilter, size: int = PAGE_SIZE) -> AuditPage:
    """One page of rows matching `wanted`, newest first: one SELECT (size + 1 rows, to know if there is more)."""
    is_style = audit_log.c.entity_type.in_(STYLE_ENTITIES)
    is_draft = audit_log.c.entity_type == "draft"
    store_of_row = case((audit_log.c.entity_type == "store", audit_log.c.entity_id), else_=draft.c.store_id)
    query = (select(audit_log, style.c.style_code, store.c.id.label("store_id"), store.c.name.label("store_name"),
                    store_time_zone_column().label("time_zone"), reviewer.c.display_name)
             .outerjoin(style, and_(is_style, style.c.id == audit_log.c.entity_id))
             .outerjoin(draft, and_(is_draft, draft.c.id == audit_log.c.entity_id))
             .outerjoin(store, store.c.id == store_of_row)
             .outerjoin(reviewer, audit_log.c.actor == literal("hq:").concat(reviewer.c.name))
             .order_by(audit_log.c.id.desc()).limit(size + 1))
    if wanted.store_id:
        query = query.where(or_(and_(audit_log.c.entity_type == "store", audit_log.c.entity_id == wanted.store_id),
                                and_(is_draft, draft.c.store_id == wanted.store_id)))
    if wanted.actor:
        query = query.where(audit_log.c.actor == wanted.actor)
    if wanted.style:
        code = wanted.style.strip()
        query = query.where(is_style, or_(style.c.style_code == code.upper(), audit_log.c.entity_id == code))
    if wanted.before is not None:
        query = query.where(audit_log.c.id < wanted.before)
    found = conn.execute(query).all()
    rows = [_row(r) for r in found[:size]]
    return AuditPage(rows, rows[-1].id if len(found) > size else None)


def _row(r: Any) -> AuditRow:
    zone = r.time_zone or clock.DEFAULT_TIME_ZONE
    try:
        detail = json.loads(r.detail)
    except ValueError:
        detail = {"text": r.detail}
    return AuditRow(int(r.id), r.at, clock.local_time(r.at, zone), zone, r.actor, r.display_name, r.action,
                    r.entity_type, r.entity_id, r.style_code, r.store_id, r.store_name,
                    detail if isinstance(detail, dict) else {"value": detail})


def detail_items(detail: dict[str, Any], skip: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """[("reason", "颜色与品牌色不符"), ("rev", "2")]: values as text, Chinese as Chinese (never \\u escapes), empty
    ones left out; the page puts its words for the keys it knows."""
    items = []
    for key in sorted(detail):
        value = detail[key]
        if key in skip or value is None or value == "":
            continue
        items.append((key, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)))
    return items
