"""The style status machine (ARCHITECTURE.md §8), in one place.

    DRAFT → PENDING_REVIEW → PUBLISHED | REJECTED
    REJECTED → DRAFT
    PUBLISHED ⇄ OFF_SHELF
    OFF_SHELF → DRAFT
    PUBLISHED → DRAFT   only through a content edit (StyleRepository.edit_content)

Every change of `style.status` goes through `transit`, which checks the table, updates the row only if it is still
in the state the caller saw (a conditional UPDATE, never read-then-write) and appends the audit_log row in the same
transaction.
"""

from __future__ import annotations

import json
import sqlite3
from enum import StrEnum
from typing import Any

from nailmirror_desktop.core.catalog.errors import IllegalTransition, StyleError, StyleNotFound
from nailmirror_desktop.core.db import write_transaction


class StyleStatus(StrEnum):
    DRAFT = "DRAFT"
    PENDING_REVIEW = "PENDING_REVIEW"
    PUBLISHED = "PUBLISHED"
    REJECTED = "REJECTED"
    OFF_SHELF = "OFF_SHELF"


class AuditAction(StrEnum):
    CREATE = "CREATE"
    SUBMIT = "SUBMIT"
    APPROVE = "APPROVE"
    REJECT = "REJECT"
    PUBLISH = "PUBLISH"
    OFF_SHELF = "OFF_SHELF"
    REVISE = "REVISE"
    EDIT_CONTENT = "EDIT_CONTENT"
    DELETE = "DELETE"
    SYNC = "SYNC"  # HQ's catalog wrote the row (core/sync): a new version, status or take-down from the feed
    SET_PRICE = "SET_PRICE"  # the store set or cleared its price (detail: old and new minor units)


S = StyleStatus
TRANSITIONS: dict[StyleStatus, frozenset[StyleStatus]] = {
    S.DRAFT: frozenset({S.PENDING_REVIEW}),
    S.PENDING_REVIEW: frozenset({S.PUBLISHED, S.REJECTED}),
    S.REJECTED: frozenset({S.DRAFT}),
    S.PUBLISHED: frozenset({S.OFF_SHELF, S.DRAFT}),
    S.OFF_SHELF: frozenset({S.PUBLISHED, S.DRAFT}),
}

# The action a transition records when the caller names none.
_DEFAULT_ACTION: dict[tuple[StyleStatus, StyleStatus], AuditAction] = {
    (S.DRAFT, S.PENDING_REVIEW): AuditAction.SUBMIT,
    (S.PENDING_REVIEW, S.PUBLISHED): AuditAction.APPROVE,
    (S.PENDING_REVIEW, S.REJECTED): AuditAction.REJECT,
    (S.REJECTED, S.DRAFT): AuditAction.REVISE,
    (S.PUBLISHED, S.OFF_SHELF): AuditAction.OFF_SHELF,
    (S.OFF_SHELF, S.PUBLISHED): AuditAction.PUBLISH,
    (S.OFF_SHELF, S.DRAFT): AuditAction.REVISE,
}
# Reachable only when the caller says it is editing content; a bare "back to draft" is refused.
_CONTENT_EDIT_ONLY = {(S.PUBLISHED, S.DRAFT)}


def can_transit(from_status: StyleStatus | str, to_status: StyleStatus | str) -> bool:
    try:
        return StyleStatus(to_status) in TRANSITIONS[StyleStatus(from_status)]
    except ValueError:
        return False


def transit(
    conn: sqlite3.Connection,
    style_id: int,
    to_status: StyleStatus | str,
    *,
    actor: str,
    reason: str | None = None,
    expect_from: StyleStatus | str | None = None,
    action: AuditAction | None = None,
    detail: dict[str, Any] | None = None,
) -> StyleStatus:
    """Move a style to `to_status`; return the status it left.

    `expect_from` pins the starting state (e.g. "approve" only from PENDING_REVIEW). A REJECTED decision needs a
    non-empty reason. PUBLISHED → DRAFT is reserved to content edits (action EDIT_CONTENT).
    Raises StyleNotFound, IllegalTransition, or StyleError(REASON_REQUIRED / CONCURRENT_CHANGE).
    """
    to_status = StyleStatus(to_status)
    if to_status is S.REJECTED and not (reason and reason.strip()):
        raise StyleError("REASON_REQUIRED", "a rejection needs a reason")
    with write_transaction(conn):
        row = conn.execute("SELECT status FROM style WHERE id = ? AND deleted = 0", (style_id,)).fetchone()
        if row is None:
            raise StyleNotFound(str(style_id))
        from_status = StyleStatus(row["status"])
        if expect_from is not None and from_status is not StyleStatus(expect_from):
            raise IllegalTransition(from_status, to_status)
        if not can_transit(from_status, to_status):
            raise IllegalTransition(from_status, to_status)
        if (from_status, to_status) in _CONTENT_EDIT_ONLY and action is not AuditAction.EDIT_CONTENT:
            raise IllegalTransition(from_status, to_status)
        chosen = action or _DEFAULT_ACTION[(from_status, to_status)]
        changed = conn.execute(
            "UPDATE style SET status = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') "
            "WHERE id = ? AND status = ? AND deleted = 0",
            (to_status.value, style_id, from_status.value),
        ).rowcount
        if changed != 1:  # cannot happen under BEGIN IMMEDIATE, but a row counts only if it changed
            raise StyleError("CONCURRENT_CHANGE", str(style_id))
        write_audit(conn, style_id, chosen, actor, from_status, to_status, reason, detail)
    return from_status


def write_audit(
    conn: sqlite3.Connection,
    style_id: int,
    action: AuditAction,
    actor: str,
    from_status: StyleStatus | None = None,
    to_status: StyleStatus | None = None,
    reason: str | None = None,
    detail: dict[str, Any] | None = None,
) -> None:
    conn.execute(
        "INSERT INTO audit_log (entity_type, entity_id, action, from_status, to_status, reason, actor, detail_json) "
        "VALUES ('STYLE', ?, ?, ?, ?, ?, ?, ?)",
        (
            style_id,
            action.value,
            from_status.value if from_status else None,
            to_status.value if to_status else None,
            reason,
            actor,
            json.dumps(detail, ensure_ascii=False, sort_keys=True) if detail else None,
        ),
    )
