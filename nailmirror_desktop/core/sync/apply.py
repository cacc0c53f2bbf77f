"""Applying what HQ sends to the kiosk's catalog (shared/reference/catalog_sync.md §4, §7).

- A feed page is applied in one write transaction together with its cursor: a crash mid-page leaves the old
  cursor, and replaying a page changes nothing (a version not newer than the row's `remote_version` is skipped).
- An upsert is *staged* (sync_staged_style) and its blobs queued (sync_blob); the style is materialised only
  once every required asset is in the asset store and hash-verified. For a style already showing, the old
  version keeps showing (its rows untouched) until the new one is complete.
- A delete (take-down) applies at once, even while that style's blobs are still downloading.
- A snapshot (after a 410) is a replace over the rows HQ owns: an HQ row absent from it is taken down; rows HQ
  never owned (the kiosk's drafts, and starter rows HQ does not carry) are never touched.
- A "model" change (a signed nail-model release, issue #27) and a snapshot's `models` go to
  core/model_releases/offers.py in the same transaction: checked against HQ's pinned key (the cycle's
  ReleaseGate), recorded, and fetched later by MODEL_FETCH.
- Ids: HQ's style id is the kiosk's `client_uid` (starter styles: the same uuid5 on both sides; an approved
  draft keeps its draft id), so the feed takes over the kiosk's own row instead of adding a second one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from typing import Any, cast

from nailmirror_desktop.core.catalog.assets import StoredBlob, blob_relative_path
from nailmirror_desktop.core.catalog.repository import AssetType, StyleRepository, StyleSource
from nailmirror_desktop.core.catalog.status import AuditAction, StyleStatus, write_audit
from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.model_releases import offers
from nailmirror_desktop.core.model_releases.offers import CLOSED, ReleaseGate
from nailmirror_desktop.core.sync import state
from nailmirror_protocol.canonical import catalog_digest
from nailmirror_protocol.shapes import Asset, Category, Change, ChangesPage, Snapshot, StyleBody, Tag

log = logging.getLogger(__name__)

ACTOR = "sync"
_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"


# ---- pages and snapshots ------------------------------------------------------------------------------------

def apply_changes_page(repo: StyleRepository, page: ChangesPage, gate: ReleaseGate = CLOSED) -> int:
    """Apply one page and advance the cursor to page["next"], in one transaction. Returns changes applied.
    `gate`: how model releases are checked (CLOSED: this cycle cannot, they are ignored)."""
    applied = 0
    with write_transaction(repo.conn):
        for change in page["changes"]:
            applied += _apply_change(repo, change, gate)
        state.set_cursor(repo.conn, page["next"])
    return applied


def apply_snapshot(repo: StyleRepository, snapshot: Snapshot, gate: ReleaseGate = CLOSED) -> int:
    """Replace the HQ-owned part of the catalog with the snapshot, in one transaction with its cursor."""
    conn = repo.conn
    live = {item["id"]: item for item in snapshot["styles"]}
    with write_transaction(conn):
        for category in snapshot["categories"]:
            _upsert_category(repo, category)
        for tag in snapshot["tags"]:
            _upsert_tag(conn, tag)
        gone = conn.execute("SELECT client_uid FROM style WHERE owner = 'HQ' AND deleted = 0").fetchall()
        for row in gone:
            if row["client_uid"] not in live:
                _take_down(conn, row["client_uid"], None, "snapshot")
        for staged in conn.execute("SELECT remote_id FROM sync_staged_style").fetchall():
            if staged["remote_id"] not in live:
                conn.execute("DELETE FROM sync_staged_style WHERE remote_id = ?", (staged["remote_id"],))
        for item in snapshot["styles"]:
            # A replace: HQ's version wins even when it is lower (a restored HQ's history may count again).
            stage_style(repo, item["id"], item["version"], item["style"], replace=True)
        offers.replace_from_snapshot(conn, gate, snapshot.get("models"))
        state.set_cursor(conn, snapshot["cursor"], snapshot_etag=snapshot["cursor"])
    return len(live)


def _apply_change(repo: StyleRepository, change: Change, gate: ReleaseGate) -> int:
    kind, op = change["type"], change["op"]
    if kind == "model" and op == "upsert" and "model" in change:
        return offers.offer(repo.conn, gate, change["id"], change["version"], change["model"])
    if kind == "model" and op == "delete":
        return offers.withdraw(repo.conn, change["id"], change["version"])
    if kind == "style" and op == "upsert" and "style" in change:
        return int(stage_style(repo, change["id"], change["version"], change["style"]))
    if kind == "style" and op == "delete":
        return int(_take_down(repo.conn, change["id"], change["version"], change.get("reason") or "WITHDRAWN"))
    if kind == "category" and op == "upsert" and "category" in change:
        _upsert_category(repo, change["category"])
        return 1
    if kind == "tag" and op == "upsert" and "tag" in change:
        _upsert_tag(repo.conn, change["tag"])
        return 1
    return 0  # a category/tag delete: styles keep their codes; an unknown kind is ignored (protocol: forward)


def _upsert_category(repo: StyleRepository, category: Category) -> None:
    repo.ensure_category(category["code"], category["name_zh"], category["name_en"], category.get("sort_order", 0))


def _upsert_tag(conn: sqlite3.Connection, tag: Tag) -> None:
    conn.execute("INSERT INTO tag (code, name_zh, name_en) VALUES (?, ?, ?) ON CONFLICT (code) DO UPDATE SET"
                 " name_zh = excluded.name_zh, name_en = excluded.name_en",
                 (tag["code"], tag["name_zh"] or tag["code"], tag["name_en"]))


# ---- styles -------------------------------------------------------------------------------------------------

def _local(conn: sqlite3.Connection, remote_id: str) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM style WHERE client_uid = ? OR remote_id = ? ORDER BY id LIMIT 1",
        (remote_id, remote_id)).fetchone()
    return row


def stage_style(repo: StyleRepository, remote_id: str, version: int, body: StyleBody, *,
                replace: bool = False) -> bool:
    """Stage HQ's version of a style and queue its missing blobs; materialise it if it is already complete.
    False when the kiosk already has this version or a newer one (a replayed or out-of-order change)."""
    conn = repo.conn
    local = _local(conn, remote_id)
    if local is not None and local["owner"] == "HQ" and local["remote_version"] is not None:
        have = int(local["remote_version"])
        if replace and have == version and not local["deleted"]:
            return False
        if not replace and have >= version:
            return False
    staged = conn.execute("SELECT version FROM sync_staged_style WHERE remote_id = ?", (remote_id,)).fetchone()
    if staged is not None and not replace and staged["version"] >= version:
        return False
    conn.execute("INSERT INTO sync_staged_style (remote_id, version, body_json) VALUES (?, ?, ?)"
                 " ON CONFLICT (remote_id) DO UPDATE SET version = excluded.version, body_json = excluded.body_json,"
                 f" staged_at = {_NOW}", (remote_id, version, json.dumps(body, ensure_ascii=False)))
    for asset in body["assets"]:
        if not blob_present(repo, asset["sha256"], asset["format"]):
            # A DONE blob whose file went missing: fetch again. A FAILED one: HQ published a new version naming
            # it (perhaps having mended the file), so it is tried again at once, not after its backoff.
            conn.execute("INSERT INTO sync_blob (sha256, size, format) VALUES (?, ?, ?) ON CONFLICT (sha256) DO"
                         f" UPDATE SET state = 'PENDING', hash_failures = 0, retry_at = NULL, updated_at = {_NOW}"
                         " WHERE sync_blob.state IN ('DONE', 'FAILED')",
                         (asset["sha256"], asset["size"], asset["format"]))
    materialise(repo, remote_id)
    return True


def _required(asset: Asset) -> bool:
    return bool(asset.get("required", asset["type"] in ("NAIL_TEXTURE", "COVER")))


def blob_present(repo: StyleRepository, sha256: str, image_format: str) -> bool:
    """The blob is in the asset store and hashes to its name (a file is trusted only after a hash)."""
    store = repo.require_store()
    try:
        relative = blob_relative_path(sha256, image_format)
    except Exception:  # noqa: BLE001 — a format the kiosk does not store is simply not present
        return False
    if not store.path_of(relative).is_file():
        return False
    row = repo.conn.execute("SELECT state FROM sync_blob WHERE sha256 = ?", (sha256,)).fetchone()
    if row is not None and row["state"] == "DONE":
        return True
    return store.verify(relative, sha256)


def materialise(repo: StyleRepository, remote_id: str) -> bool:
    """Install the staged version as the style's current content, in one transaction, if every required asset
    is present and verified; else leave it staged (the old version, if any, keeps showing)."""
    conn = repo.conn
    with write_transaction(conn):
        staged = conn.execute("SELECT * FROM sync_staged_style WHERE remote_id = ?", (remote_id,)).fetchone()
        if staged is None:
            return False
        body = cast(StyleBody, json.loads(staged["body_json"]))
        present = [a for a in body["assets"] if blob_present(repo, a["sha256"], a["format"])]
        if any(_required(a) and a not in present for a in body["assets"]):
            return False
        _install(repo, remote_id, int(staged["version"]), body, present)
        conn.execute("DELETE FROM sync_staged_style WHERE remote_id = ?", (remote_id,))
    return True


def materialise_waiting_on(repo: StyleRepository, sha256: str) -> list[str]:
    """After a blob arrived: materialise every staged style naming it that is now complete."""
    done = []
    rows = repo.conn.execute("SELECT remote_id FROM sync_staged_style WHERE body_json LIKE ?",
                             (f"%{sha256}%",)).fetchall()
    for row in rows:
        if materialise(repo, row["remote_id"]):
            done.append(row["remote_id"])
    return done


def _stored_blob(repo: StyleRepository, asset: Asset) -> StoredBlob:
    relative = blob_relative_path(asset["sha256"], asset["format"])
    data = repo.require_store().read(relative)
    return StoredBlob(asset["sha256"], hashlib.md5(data).hexdigest(), len(data), relative, asset["width"],
                      asset["height"], asset["format"])


def _install(repo: StyleRepository, remote_id: str, version: int, body: StyleBody, assets: list[Asset]) -> None:
    conn = repo.conn
    category_code = body.get("category")
    if category_code:
        try:
            repo.category(category_code)
        except Exception:  # noqa: BLE001 — a code the feed has not named yet: keep the style, name it by code
            repo.ensure_category(category_code, category_code, category_code)
    local = _local(conn, remote_id)
    name = body["name"]["zh"] or body["name"]["en"] or body["style_code"]
    if local is None:
        created = repo.create_style(name, StyleSource.CATALOG, actor=ACTOR, name_en=body["name"]["en"],
                                    category_code=category_code, prompt=body.get("prompt") or "",
                                    design_json=_design_json(body), accent_fingers=body.get("accent_fingers") or (),
                                    remote_id=remote_id, remote_version=version, client_uid=remote_id,
                                    preferred_code=body.get("style_code") or None)
        style_id, new_version, from_status = created.id, 1, StyleStatus.DRAFT
    else:
        style_id, new_version = int(local["id"]), int(local["content_version"]) + 1
        from_status = StyleStatus(local["status"])
    for asset in assets:
        kind = asset["type"]
        if kind == "AI_DRAFT":
            continue
        repo.add_asset(style_id, _stored_blob(repo, asset), AssetType(kind), slot=asset.get("slot") or "",
                       is_primary=bool(asset.get("primary")) or kind == "COVER", version=new_version)
    category = repo.category(category_code) if category_code else None
    to_status = StyleStatus.OFF_SHELF if body.get("status") == "OFF_SHELF" else StyleStatus.PUBLISHED
    conn.execute(
        f"UPDATE style SET content_version = ?, name = ?, name_en = ?, category_id = ?, category_name = ?,"
        f" accent_fingers = ?, prompt = ?, design_json = ?, remote_id = ?, remote_version = ?, owner = 'HQ',"
        f" status = ?, deleted = 0, updated_at = {_NOW} WHERE id = ?",
        (new_version, name, body["name"]["en"], category.id if category else None,
         category.name_zh if category else None, ",".join(body.get("accent_fingers") or ()),
         body.get("prompt") or "", _design_json(body), remote_id, version, to_status.value, style_id))
    conn.execute("DELETE FROM style_tag_relation WHERE style_id = ?", (style_id,))
    repo.tag_style(style_id, body.get("tags") or [])
    hidden = bool(conn.execute("SELECT hidden_locally FROM style WHERE id = ?", (style_id,)).fetchone()[0])
    covered = repo._textures_cover_hand(style_id, new_version)
    conn.execute("UPDATE style SET is_previewable = ? WHERE id = ?", (int(covered and not hidden), style_id))
    write_audit(conn, style_id, AuditAction.SYNC, ACTOR, from_status, to_status,
                detail={"remote_version": version, "content_version": new_version})


def _design_json(body: StyleBody) -> str | None:
    design = body.get("design")
    return json.dumps(design, ensure_ascii=False, sort_keys=True) if design is not None else None


def _take_down(conn: sqlite3.Connection, remote_id: str, version: int | None, reason: str) -> bool:
    """A take-down: the row disappears from every list now (soft delete, audit kept); staged versions go."""
    conn.execute("DELETE FROM sync_staged_style WHERE remote_id = ?", (remote_id,))
    local = _local(conn, remote_id)
    if local is None or local["deleted"]:
        return False
    if version is not None and local["remote_version"] is not None and local["remote_version"] >= version:
        return False
    conn.execute(f"UPDATE style SET deleted = 1, is_previewable = 0, owner = 'HQ', remote_id = ?,"
                 f" remote_version = COALESCE(?, remote_version), updated_at = {_NOW} WHERE id = ?",
                 (remote_id, version, local["id"]))
    write_audit(conn, int(local["id"]), AuditAction.DELETE, ACTOR, reason=reason,
                detail={"remote_version": version})
    return True


# ---- staff: hide an HQ style in this store ------------------------------------------------------------------

def set_hidden(repo: StyleRepository, style_code: str, hidden: bool, *, actor: str) -> None:
    style = repo.get_by_code(style_code)
    with write_transaction(repo.conn):
        covered = repo._textures_cover_hand(style.id, style.content_version)
        repo.conn.execute(f"UPDATE style SET hidden_locally = ?, is_previewable = ?, updated_at = {_NOW}"
                          " WHERE id = ?", (int(hidden), int(covered and not hidden), style.id))
        write_audit(repo.conn, style.id, AuditAction.SYNC, actor, reason="hidden here" if hidden else "shown here")


def local_digest(conn: sqlite3.Connection) -> str:
    """The kiosk's side of HQ's catalog digest: (id, version) of every live HQ style it holds, a staged version
    counting as held (it is what the feed sent)."""
    return local_state(conn)[1]


def local_state(conn: sqlite3.Connection) -> tuple[int, str]:
    """(count, digest) of the live HQ styles this kiosk holds (staged versions counted): HQ's CatalogState."""
    pairs = {r["client_uid"]: int(r["remote_version"]) for r in conn.execute(
        "SELECT client_uid, remote_version FROM style WHERE owner = 'HQ' AND deleted = 0"
        " AND remote_version IS NOT NULL")}
    for row in conn.execute("SELECT remote_id, version FROM sync_staged_style"):
        pairs[row["remote_id"]] = int(row["version"])
    return len(pairs), catalog_digest(pairs.items())


def revive_failed_blobs(conn: sqlite3.Connection, now_s: float, *, all_due: bool = False) -> int:
    """FAILED blobs whose backoff ran out (or every one, `all_due`: staff asked for `sync now`) become PENDING
    again, their attempts kept; the caller queues them. Returns how many."""
    with write_transaction(conn):
        return conn.execute(f"UPDATE sync_blob SET state = 'PENDING', hash_failures = 0, updated_at = {_NOW}"
                            " WHERE state = 'FAILED' AND (? OR retry_at IS NULL OR retry_at <= ?)",
                            (int(all_due), now_s)).rowcount


def pending_blobs(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    return [dict(r) for r in conn.execute("SELECT sha256, size, format FROM sync_blob WHERE state = 'PENDING'")]
