"""The review page's audit log (issue #25 point 13): actions in the reader's language, times in the store's zone,
style codes instead of UUIDs, people by their display names, details as text (Chinese as Chinese), filters by
store, person and style, and paging (audit_view.py: one query per page).

Every action HQ records has a label below (tests/hq/web/test_audit_page.py finds each `audit.record` call in
nailmirror_hq/ and fails on one without); an action another branch adds shows as its code until it gets one.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from fastapi.responses import Response

from nailmirror_hq import audit_view, db, reviewers, stores
from nailmirror_hq.roles import Permission
from nailmirror_hq.web.routes import PREFIX, Allowed, _hq, render
from nailmirror_hq.web.sessions import Session

router = APIRouter(prefix=PREFIX)

# action code → the English source text of its label (translated through the .po files like every page word)
ACTION_LABELS: dict[str, str] = {
    "DRAFT_APPROVE": "Approved a draft",
    "DRAFT_REJECT": "Rejected a draft",
    "STYLE_CREATE": "Added a style",
    "STYLE_EDIT": "Changed a style",
    "STYLE_CHANNELS": "Chose a style's channels",
    "STYLE_PUBLISHED": "Published a style",
    "STYLE_OFF_SHELF": "Took a style off the shelf",
    "STYLE_WITHDRAWN": "Took a style down",
    "STYLE_UNPUBLISHED": "Unpublished a style",
    "CATEGORY_ADD": "Added a category",
    "CATEGORY_RENAME": "Renamed a category",
    "TAG_ADD": "Added a tag",
    "TAG_RENAME": "Renamed a tag",
    "STORE_ADD": "Added a store",
    "STORE_MOVE": "Moved a store to another channel",
    "ENROLL_CODE": "Made an enrollment code",
    "ENROLL": "A kiosk enrolled",
    "TOKEN_ROTATE": "A kiosk renewed its token",
    "REVOKE": "Revoked a store or kiosk",
    "CREDITS_GRANT": "Granted credits",
    "CREDITS_GRANT_PARKED": "Parked a grant HQ cannot verify",
    "CREDITS_GRANT_LEARNED": "Learned a grant back from a kiosk",
    "CREDITS_GRANT_ACCEPTED": "Accepted a parked grant",
    "CREDITS_GRANT_REJECTED": "Rejected a parked grant",
    "LEDGER_ENTRY_REPLACED": "A kiosk replaced a ledger entry",
    "REVIEWER_ADD": "Added a person",
    "REVIEWER_PASSWD": "Changed a person's password",
    "REVIEWER_DISABLE": "Disabled a person",
    "REVIEWER_ROLE": "Changed a person's role",
    "REVIEWER_NAME": "Changed a person's display name",
    "RESTORE": "Restored HQ from a backup",
}

# entity_type → the English word for what was acted on
ENTITY_LABELS: dict[str, str] = {"style": "Style", "draft": "Draft", "store": "Store", "category": "Category",
                                 "tag": "Tag", "reviewer": "Person", "hq": "HQ"}


def _actor_label(row: audit_view.AuditRow) -> tuple[str, str]:
    """(kind, name) for the Who column: kind is an English word the template translates."""
    kind, _, name = row.actor.partition(":")
    if kind == "hq":
        return "", row.actor_name or name
    if kind == "cli":
        return "HQ shell", name
    if kind == "kiosk":
        return "Kiosk", name
    return "", row.actor


@router.get("/audit")
def audit_page(request: Request, session: Annotated[Session, Allowed(Permission.READ_AUDIT)],
               store: str = "", person: str = "", style: str = "", before: str = "") -> Response:
    wanted = audit_view.AuditFilter(store_id=store.strip() or None,
                                    actor=audit_view.actor_for(person) if person.strip() else None,
                                    style=style.strip() or None,
                                    before=int(before) if before.isdigit() else None)
    with db.read(_hq(request).engine) as conn:
        found = audit_view.page(conn, wanted)
        store_rows = stores.list_stores(conn)
        people = reviewers.accounts(conn)
    entries = [{"row": r, "action": ACTION_LABELS.get(r.action), "entity": ENTITY_LABELS.get(r.entity_type),
                "who": _actor_label(r),
                "detail": audit_view.detail_text(r.detail, skip=("style_code", "store_id"))} for r in found.rows]
    filters = {"store": store.strip(), "person": person.strip(), "style": style.strip()}
    return render(request, "audit.html", session=session, entries=entries, older=found.older, filters=filters,
                  stores=store_rows, people=people, first_page=wanted.before is None)
