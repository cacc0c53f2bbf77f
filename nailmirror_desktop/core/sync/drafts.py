"""Kiosk drafts going to HQ: queueing a submission, building its revision body, and the review decisions that
come back through the inbox.

The draft id is the style's `client_uid`; each submission is a new immutable revision (1, 2, … per draft), so a
push retried after a lost answer replays the same body (HQ answers 200) instead of making a second revision.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from nailmirror_desktop.core.catalog.records import StyleRecord
from nailmirror_desktop.core.catalog.repository import AssetType, StyleRepository
from nailmirror_desktop.core.catalog.status import StyleStatus, transit
from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.sync import ledger, state
from nailmirror_protocol.shapes import Asset, DraftRevision, InboxEvent, InboxPage

_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"


@dataclass(frozen=True)
class SampleRender:
    """The style painted on the kiosk's sample hand photo, encoded: what HQ's reviewer sees beside its images."""

    data: bytes
    format: str  # "JPEG" | "PNG"
    width: int
    height: int


# The port app/ implements with the still try-on path (core has no vision): a style id → its render, or None.
SampleRenderer = Callable[[StyleRepository, int], SampleRender | None]
_PUSHED_TYPES = (AssetType.NAIL_TEXTURE, AssetType.COVER, AssetType.AI_DRAFT)


def queue_submission(repo: StyleRepository, style_code: str, *, actor: str) -> tuple[StyleRecord, str, int]:
    """DRAFT → PENDING_REVIEW and a queued upload of the next revision, in one transaction.
    Returns (style, draft_id, rev)."""
    style = repo.get_by_code(style_code)
    with write_transaction(repo.conn):
        transit(repo.conn, style.id, StyleStatus.PENDING_REVIEW, actor=actor, expect_from=StyleStatus.DRAFT,
                detail={"to": "HQ"})
        rev = repo.conn.execute("SELECT COALESCE(MAX(rev), 0) + 1 FROM sync_draft_upload WHERE draft_id = ?",
                                (style.client_uid,)).fetchone()[0]
        repo.conn.execute("INSERT INTO sync_draft_upload (style_id, draft_id, rev) VALUES (?, ?, ?)",
                          (style.id, style.client_uid, rev))
    return repo.get(style.id), style.client_uid, int(rev)


def revision_body(repo: StyleRepository, style_id: int) -> tuple[DraftRevision, dict[str, bytes]]:
    """The revision body of a style's current version, and the bytes of each blob it names (by sha256)."""
    style = repo.get(style_id)
    store = repo.require_store()
    assets: list[Asset] = []
    blobs: dict[str, bytes] = {}
    for record in repo.assets(style.id):
        if record.asset_type not in _PUSHED_TYPES:
            continue
        assets.append(cast(Asset, {"type": record.asset_type, "slot": record.slot, "sha256": record.file_sha256,
                                   "size": record.file_size, "format": record.format, "width": record.width,
                                   "height": record.height}))
        blobs[record.file_sha256] = store.read(record.storage_path)
    category = repo.conn.execute("SELECT code FROM category WHERE id = ?", (style.category_id,)).fetchone()
    design = json.loads(style.design_json) if style.design_json else None
    body: DraftRevision = {
        "nm": 1, "source": "AI" if style.source == "AI" else "MANUAL", "style_code": style.style_code,
        "created_at": style.created_at, "name": {"zh": style.name, "en": style.name_en},
        "category": category["code"] if category else None, "tags": [t.code for t in repo.tags_of(style.id)],
        "accent_fingers": list(style.accent_fingers), "prompt": style.prompt,
        "design": design if isinstance(design, dict) else None, "assets": assets,
    }
    if style.origin_task_no:
        body["origin_task_no"] = style.origin_task_no
    return body, blobs


def attach_sample_render(body: DraftRevision, blobs: dict[str, bytes], render: SampleRender | None) -> None:
    """Add the sample render to a revision about to be pushed (its blob goes up with the others). Optional both
    ways: an older HQ ignores the field, and HQ leaves it out of the revision's digest, so an attempt that renders
    otherwise, or not at all, replays the same revision."""
    if render is None:
        return
    sha256 = hashlib.sha256(render.data).hexdigest()
    body["sample_render"] = cast(Asset, {"type": "TRY_ON_EXAMPLE", "slot": "", "sha256": sha256,
                                         "size": len(render.data), "format": render.format,
                                         "width": render.width, "height": render.height})
    blobs[sha256] = render.data


def mark_upload(conn: sqlite3.Connection, draft_id: str, rev: int, upload_state: str,
                error: str | None = None) -> None:
    sent = f", sent_at = {_NOW}" if upload_state == "SENT" else ""
    conn.execute(f"UPDATE sync_draft_upload SET state = ?, last_error = ?{sent} WHERE draft_id = ? AND rev = ?",
                 (upload_state, error, draft_id, rev))


def queued_uploads(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM sync_draft_upload WHERE state = 'QUEUED' ORDER BY queued_at").fetchall()


def requeue_undecided(conn: sqlite3.Connection) -> int:
    """HQ went back in time (restored from a backup: a new epoch, or a cursor ahead of it): revisions it had
    from us but never decided may be gone with what it lost, so they go up again (inside the caller's
    transaction). A PUT of an immutable revision is idempotent: one HQ still has answers 200, changing nothing.
    Returns how many were requeued."""
    return conn.execute("UPDATE sync_draft_upload SET state = 'QUEUED', last_error = NULL"
                        " WHERE state = 'SENT'").rowcount


def decided_by(event: InboxEvent) -> str:
    """The kiosk audit's actor for HQ's decision: "hq:<who>", who being the name HQ gives the person
    (`reviewer_name`, e.g. "王丽"), else the account in HQ's own actor ("hq:li.wang" → li.wang; an HQ before
    #25 sends only that), else "reviewer". The staff pages say "HQ reviewer 王丽" (ui/staff/audit_text.py)."""
    name = str(event.get("reviewer_name") or "").strip()
    if not name:
        kind, _, account = str(event.get("reviewer") or "").partition(":")
        name = account if kind in ("hq", "cli") and account else kind
    return f"hq:{name or 'reviewer'}"


def apply_inbox_page(repo: StyleRepository, page: InboxPage, *, credit_store_id: str | None = None) -> int:
    """Review decisions on this store's drafts and (with `credit_store_id`, the kiosk's credit account) HQ's
    credit grants (ledger.py), with the inbox cursor, in one transaction. Returns the events that changed
    something here.

    Approved: the local draft goes PUBLISHED at once (its files are here already); when the catalog feed's
    upsert of the same id arrives (before or after) it takes the same row over — one row whichever comes first.
    Rejected: the local draft goes REJECTED with HQ's reason (staff may revise it and submit rev+1)."""
    conn = repo.conn
    applied = 0
    with write_transaction(conn):
        for event in page["events"]:
            if event.get("type") != "draft.decision" or "draft_id" not in event:
                continue
            draft_id, rev, decision = event["draft_id"], int(event.get("rev") or 0), event.get("decision")
            reason = event.get("reason")
            conn.execute(f"UPDATE sync_draft_upload SET state = ?, reason = ?, decided_at = {_NOW}"
                         " WHERE draft_id = ? AND rev = ?", (decision, reason, draft_id, rev))
            row = conn.execute("SELECT id, status FROM style WHERE client_uid = ? AND deleted = 0",
                               (draft_id,)).fetchone()
            if row is None or row["status"] != StyleStatus.PENDING_REVIEW.value:
                continue  # the feed got here first (the row is HQ's now), or staff withdrew it
            actor = decided_by(event)
            detail: dict[str, object] = {"draft_id": draft_id, "rev": rev}
            if event.get("reviewer"):
                detail["hq_reviewer"] = str(event["reviewer"])
            if decision == "APPROVED":
                transit(conn, row["id"], StyleStatus.PUBLISHED, actor=actor, expect_from=StyleStatus.PENDING_REVIEW,
                        detail=detail)
            elif decision == "REJECTED":
                transit(conn, row["id"], StyleStatus.REJECTED, actor=actor, reason=reason or "rejected at HQ",
                        expect_from=StyleStatus.PENDING_REVIEW, detail=detail)
            applied += 1
        if credit_store_id is not None:
            applied += ledger.apply_grant_events(conn, page["events"], store_id=credit_store_id)
        state.set_inbox_cursor(conn, page["next"])
    return applied
