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
    "STORE_TIME_ZONE": "Set a store's time zone",
    "FLEET_REQUEST": "Asked a kiosk to fix itself",
    "KIOSK_RENAME": "Renamed a kiosk",
    "KIOSK_REPLACE_CODE": "Made a code to replace a kiosk",
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
    "CANARY_ADD": "Added a store to a canary set",
    "CANARY_REMOVE": "Took a store out of a canary set",
    "ROLLOUT_START": "Started a rollout",
    "ROLLOUT_WIDEN": "Widened a rollout to every store",
    "STYLE_ROLLBACK": "Rolled a style back",
    "CAPTURE_RECEIVE": "A kiosk sent a consented capture",
    "CAPTURE_WITHDRAW": "Withdrew a capture",
    "CAPTURE_EXPIRE": "A capture reached its retention age",
    "CAPTURE_LIST": "Listed captures",
    "CAPTURE_SHOW": "Looked at a capture",
    "CAPTURE_IMAGE": "Opened a capture's image",
    "CAPTURE_COUNTS": "Counted captures",
    "LABEL_SAVE": "Saved a label version",
    "LABEL_QUEUE": "Opened the labelling queue",
    "LABEL_VERSIONS": "Looked at a capture's label versions",
    "LABEL_PROPOSAL": "Opened a kiosk's proposed mask",
    "LABEL_MASK": "Opened a label's mask",
    "DATASET_CREATE": "Froze a dataset of labels",
    "DATASET_EXPORT": "Exported labelled captures",
    "RESTORE": "Restored HQ from a backup",
    "MODEL_RELEASE": "Released a nail model",
    "MODEL_WITHDRAW": "Withdrew a nail model release",
    "MODEL_ROLLBACK": "Rolled a nail model back",
    "KEY_ROTATE": "Rotated HQ's signing key",
    "MODEL_TRAIN": "Trained a nail model",
    "MODEL_EVALUATE": "Put a nail model through the gate",
}

# entity_type → the English word for what was acted on
ENTITY_LABELS: dict[str, str] = {"style": "Style", "draft": "Draft", "store": "Store", "category": "Category",
                                 "tag": "Tag", "reviewer": "Person", "hq": "HQ",
                                 "capture": "Capture", "dataset": "Dataset", "model": "Nail model"}


# detail key → the English word for it (a key without one shows as it is)
DETAIL_LABELS: dict[str, str] = {"reason": "Reason", "rev": "Revision", "version": "Version", "channel": "Channel",
                                 "channels": "Channels", "was": "Was", "kiosk_name": "Kiosk name",
                                 "kiosk_id": "Kiosk", "amount": "Amount", "role": "Role",
                                 "display_name": "Display name", "name_zh": "Chinese name",
                                 "name_en": "English name", "tokens": "Tokens",
                                 "time_zone": "Time zone", "edited": "Edited before approving"}

# an actor's kind → the English word the Who column puts before its name ("hq:" people show by name alone)
ACTOR_KINDS: dict[str, str] = {"cli": "HQ shell", "kiosk": "Kiosk"}


def _actor_label(row: audit_view.AuditRow) -> tuple[str, str]:
    """(kind, name) for the Who column: kind is an English word the template translates."""
    kind, _, name = row.actor.partition(":")
    if kind == "hq":
        return "", row.actor_name or name
    if kind in ACTOR_KINDS and name:
        return ACTOR_KINDS[kind], name
    return "", row.actor


@router.get("/audit")
def audit_page(request: Request, session: Annotated[Session, Allowed(Permission.READ_AUDIT)],
               store: str = "", person: str = "", style: str = "", before: str = "") -> Response:
    with db.read(_hq(request).engine) as conn:
        people = reviewers.accounts(conn)
        # a person is found by account name or by the display name the page shows ("王丽" → li.wang)
        account = next((p.name for p in people if person.strip() and person.strip() == p.display_name), person)
        wanted = audit_view.AuditFilter(store_id=store.strip() or None,
                                        actor=audit_view.actor_for(account) if account.strip() else None,
                                        style=style.strip() or None,
                                        before=int(before) if before.isdigit() else None)
        found = audit_view.page(conn, wanted)
        store_rows = stores.list_stores(conn)
    entries = [{"row": r, "action": ACTION_LABELS.get(r.action), "entity": ENTITY_LABELS.get(r.entity_type),
                "who": _actor_label(r),
                "detail": [(DETAIL_LABELS.get(key), key, value)
                           for key, value in audit_view.detail_items(r.detail, skip=("style_code", "store_id"))]}
               for r in found.rows]
    filters = {"store": store.strip(), "person": person.strip(), "style": style.strip()}
    return render(request, "audit.html", session=session, entries=entries, older=found.older, filters=filters,
                  stores=store_rows, people=people, first_page=wanted.before is None)
