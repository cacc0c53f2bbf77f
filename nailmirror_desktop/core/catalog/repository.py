"""StyleRepository: the style domain's reads and writes over one sqlite3 connection (core.db.open_database).

Image bytes go into the AssetStore before the database transaction that records them: blobs are immutable and
content-addressed, so a crash between the two leaves at most an unreferenced file (collectable later), never a
row pointing at nothing. Every write method runs in `write_transaction`, which nests, so a caller (the generation
flow) can put a repository call and its own writes in one transaction.

Collecting unreferenced blobs (`collect_garbage`) is safe against imports running in any process: the collector
reads which blobs rows point at and deletes the others inside one write transaction (BEGIN IMMEDIATE), and an
import checks that its blobs are still there inside the transaction that records them, writing again any the
collector took. Both hold the database's write lock while they look, so either the rows are committed before
the collector looks, or the files are back before the rows are written.
"""

from __future__ import annotations

import logging
import sqlite3
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TypedDict, Unpack

from nailmirror_desktop.core.catalog import codes
from nailmirror_desktop.core.catalog.assets import ASSET_GARBAGE_MIN_AGE_S, AssetCollection, AssetStore, StoredBlob
from nailmirror_desktop.core.catalog.content import ACCENT_SLOT, StyleContent, textures_cover_hand
from nailmirror_desktop.core.catalog.english_names import english_name_for
from nailmirror_desktop.core.catalog.errors import StyleError, StyleNotFound
from nailmirror_desktop.core.catalog.price import check_price_minor
from nailmirror_desktop.core.catalog.records import AssetRecord, AuditEntry, Category, StyleRecord, Tag
from nailmirror_desktop.core.catalog.status import AuditAction, StyleStatus, transit, write_audit
from nailmirror_desktop.core.db import write_transaction

log = logging.getLogger(__name__)

_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"


class AssetType(StrEnum):
    THUMBNAIL = "THUMBNAIL"
    COVER = "COVER"
    TRY_ON_EXAMPLE = "TRY_ON_EXAMPLE"
    NAIL_TEXTURE = "NAIL_TEXTURE"
    AI_DRAFT = "AI_DRAFT"


class StyleSource(StrEnum):
    MANUAL = "MANUAL"
    AI = "AI"
    CATALOG = "CATALOG"


class AiStyleFields(TypedDict, total=False):
    """The optional columns of a new style that `create_ai_style` passes through (see `create_style`)."""

    name_en: str
    category_code: str | None
    design_json: str | None
    remote_id: str | None
    remote_version: int | None
    parent_style_id: int | None
    client_uid: str | None
    preferred_code: str | None


class StyleFields(AiStyleFields, total=False):
    """The optional columns of a new style that the create_style_* methods pass through (see `create_style`)."""

    prompt: str
    origin_task_no: str | None
    price_minor: int | None


@dataclass(frozen=True)
class StyleFilter:
    """What a list page asks for. `text` matches style_code or names (substring, case-insensitive for ASCII)."""

    status: StyleStatus | str | None = None
    category_code: str | None = None
    tag_code: str | None = None
    text: str | None = None
    source: StyleSource | str | None = None
    previewable_only: bool = False
    limit: int = 100
    offset: int = 0


CUSTOMER_FILTER = StyleFilter(status=StyleStatus.PUBLISHED, previewable_only=True)


@dataclass(frozen=True)
class StoredContent:
    """StyleContent after its images went into the asset store (textures by slot, preview and its thumbnail)."""

    textures: dict[str, StoredBlob]
    cover: StoredBlob | None
    thumbnail: StoredBlob | None
    accent_fingers: tuple[str, ...]
    covers_every_finger: bool
    source: StyleContent | None = None  # the images, to store again if a blob was collected before its rows

    def blobs(self) -> list[StoredBlob]:
        return [*self.textures.values(), *(b for b in (self.cover, self.thumbnail) if b is not None)]


class StyleRepository:
    def __init__(self, conn: sqlite3.Connection, store: AssetStore | None = None) -> None:
        self.conn = conn
        self.store = store

    # ---- categories and tags -------------------------------------------------------------------------------

    def ensure_category(self, code: str, name_zh: str, name_en: str, sort_order: int = 0) -> Category:
        """Create the category, or rename it (and its styles' denormalised category_name) if the names changed."""
        with write_transaction(self.conn):
            row = self.conn.execute("SELECT * FROM category WHERE code = ?", (code,)).fetchone()
            if row is None:
                self.conn.execute(
                    "INSERT INTO category (code, name_zh, name_en, sort_order) VALUES (?, ?, ?, ?)",
                    (code, name_zh, name_en, sort_order),
                )
            elif (row["name_zh"], row["name_en"], row["sort_order"]) != (name_zh, name_en, sort_order):
                self.conn.execute(
                    f"UPDATE category SET name_zh = ?, name_en = ?, sort_order = ?, updated_at = {_NOW} WHERE id = ?",
                    (name_zh, name_en, sort_order, row["id"]),
                )
                # Sync rule for style.category_name: rewritten in the same transaction as the category's name.
                self.conn.execute(
                    f"UPDATE style SET category_name = ?, updated_at = {_NOW} WHERE category_id = ?",
                    (name_zh, row["id"]),
                )
        return self.category(code)

    def category(self, code: str) -> Category:
        row = self.conn.execute("SELECT * FROM category WHERE code = ?", (code,)).fetchone()
        if row is None:
            raise StyleError("CATEGORY_NOT_FOUND", code)
        return Category.from_row(row)

    def categories(self) -> list[Category]:
        rows = self.conn.execute("SELECT * FROM category ORDER BY sort_order, code").fetchall()
        return [Category.from_row(r) for r in rows]

    def ensure_tag(self, code: str, name_zh: str | None = None, name_en: str = "") -> Tag:
        with write_transaction(self.conn):
            self.conn.execute(
                "INSERT INTO tag (code, name_zh, name_en) VALUES (?, ?, ?) ON CONFLICT (code) DO NOTHING",
                (code, name_zh or code, name_en.strip() or english_name_for(name_zh or code)),
            )
        return Tag.from_row(self.conn.execute("SELECT * FROM tag WHERE code = ?", (code,)).fetchone())

    def tags(self) -> list[Tag]:
        return [Tag.from_row(r) for r in self.conn.execute("SELECT * FROM tag ORDER BY code").fetchall()]

    def tag_style(self, style_id: int, tag_codes: Iterable[str]) -> None:
        with write_transaction(self.conn):
            for code in tag_codes:
                tag = self.ensure_tag(code)
                self.conn.execute(
                    "INSERT OR IGNORE INTO style_tag_relation (style_id, tag_id) VALUES (?, ?)", (style_id, tag.id)
                )

    def tags_of(self, style_id: int) -> list[Tag]:
        rows = self.conn.execute(
            "SELECT t.* FROM tag t JOIN style_tag_relation r ON r.tag_id = t.id WHERE r.style_id = ? ORDER BY t.code",
            (style_id,),
        ).fetchall()
        return [Tag.from_row(r) for r in rows]

    # ---- styles ---------------------------------------------------------------------------------------------

    def create_style(
        self,
        name: str,
        source: StyleSource | str,
        *,
        actor: str,
        name_en: str = "",
        category_code: str | None = None,
        prompt: str = "",
        design_json: str | None = None,
        accent_fingers: Sequence[str] = (),
        origin_task_no: str | None = None,
        remote_id: str | None = None,
        remote_version: int | None = None,
        parent_style_id: int | None = None,
        client_uid: str | None = None,
        preferred_code: str | None = None,
        price_minor: int | None = None,
    ) -> StyleRecord:
        """Insert a DRAFT style and log CREATE.

        The style_code is `preferred_code` when given and free, else a fresh random one. `client_uid` is the id the
        kiosk pushes drafts under (a new UUID unless given; the starter catalog passes a stable one).
        `price_minor`: the store's price (minor units of its currency), or None for none. A style without an
        English name gets one composed from its Chinese name by the glossary (core/catalog/english_names.py).
        """
        source = StyleSource(source)
        name_en = name_en.strip() or english_name_for(name)
        if price_minor is not None:
            check_price_minor(price_minor)
        with write_transaction(self.conn):
            category = self.category(category_code) if category_code else None

            def insert(code: str) -> int:
                cursor = self.conn.execute(
                    "INSERT INTO style (style_code, name, name_en, category_id, category_name, source, accent_fingers,"
                    " prompt, design_json, origin_task_no, client_uid, remote_id, remote_version, parent_style_id,"
                    " price_minor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        code, name, name_en, category.id if category else None,
                        category.name_zh if category else None, source.value, ",".join(accent_fingers), prompt,
                        design_json, origin_task_no, client_uid or str(uuid.uuid4()), remote_id, remote_version,
                        parent_style_id, price_minor,
                    ),
                )
                assert cursor.lastrowid is not None  # an INSERT that succeeded has a row id
                return cursor.lastrowid

            prefix = codes.code_prefix(category.code if category else None, source.value)
            style_id = codes.insert_with_fresh_code(insert, prefix, first_code=preferred_code)
            write_audit(self.conn, style_id, AuditAction.CREATE, actor, None, StyleStatus.DRAFT,
                        detail={"source": source.value})
        return self.get(style_id)

    def get(self, style_id: int) -> StyleRecord:
        row = self.conn.execute("SELECT * FROM style WHERE id = ?", (style_id,)).fetchone()
        if row is None:
            raise StyleNotFound(str(style_id))
        return StyleRecord.from_row(row)

    def get_by_code(self, style_code: str) -> StyleRecord:
        row = self.conn.execute(
            "SELECT * FROM style WHERE style_code = ? AND deleted = 0", (style_code.strip().upper(),)
        ).fetchone()
        if row is None:
            raise StyleNotFound(style_code)
        return StyleRecord.from_row(row)

    def style_names(self) -> list[tuple[str, str, str]]:
        """(style code, name, English name) of every style not deleted, by code."""
        rows = self.conn.execute(
            "SELECT style_code, name, name_en FROM style WHERE deleted = 0 ORDER BY style_code").fetchall()
        return [(row["style_code"], row["name"], row["name_en"]) for row in rows]

    def name_in_use(self, name: str, name_en: str = "") -> bool:
        """Whether a style (not deleted) already has this Chinese name, or this English name (any case)."""
        row = self.conn.execute(
            "SELECT 1 FROM style WHERE deleted = 0 AND (name = ? OR (? != '' AND lower(name_en) = lower(?)))"
            " LIMIT 1", (name, name_en, name_en)).fetchone()
        return row is not None

    def find_by_origin_task(self, task_no: str) -> StyleRecord | None:
        row = self.conn.execute("SELECT * FROM style WHERE origin_task_no = ?", (task_no,)).fetchone()
        return StyleRecord.from_row(row) if row else None

    def list_styles(self, query: StyleFilter = StyleFilter()) -> list[StyleRecord]:
        """Newest first. The WHERE clause keeps `deleted = 0` literal so the partial list indexes apply."""
        sql, params = _list_sql(query)
        return [StyleRecord.from_row(r) for r in self.conn.execute(sql, params).fetchall()]

    def list_for_customers(self, category_code: str | None = None, tag_code: str | None = None,
                           limit: int = 100, offset: int = 0) -> list[StyleRecord]:
        """What the customer browser may show: PUBLISHED and previewable."""
        return self.list_styles(StyleFilter(status=StyleStatus.PUBLISHED, previewable_only=True,
                                            category_code=category_code, tag_code=tag_code, limit=limit,
                                            offset=offset))

    def set_category(self, style_id: int, category_code: str | None) -> StyleRecord:
        with write_transaction(self.conn):
            category = self.category(category_code) if category_code else None
            self.conn.execute(
                f"UPDATE style SET category_id = ?, category_name = ?, updated_at = {_NOW} WHERE id = ?",
                (category.id if category else None, category.name_zh if category else None, style_id),
            )
        return self.get(style_id)

    def set_previewable(self, style_id: int, previewable: bool) -> StyleRecord:
        """Mark whether try-on can use the style; refused (NO_NAIL_TEXTURE) when its textures do not cover a hand."""
        with write_transaction(self.conn):
            style = self.get(style_id)
            if previewable and not self._textures_cover_hand(style_id, style.content_version):
                raise StyleError("NO_NAIL_TEXTURE", style.style_code)
            self.conn.execute(
                f"UPDATE style SET is_previewable = ?, updated_at = {_NOW} WHERE id = ?", (int(previewable), style_id)
            )
        return self.get(style_id)

    def set_price(self, style_id: int, price_minor: int | None, *, actor: str) -> StyleRecord:
        """Set (or, with None, clear) the store's price of a style; audit SET_PRICE when it changed.

        Any style, an HQ-owned one included: the price is the store's own setting, not catalog content (HQ's
        feed never writes it, core/sync/apply.py), and it leaves the review status alone.
        """
        if price_minor is not None:
            check_price_minor(price_minor)
        with write_transaction(self.conn):
            style = self.get(style_id)
            if style.deleted:
                raise StyleNotFound(str(style_id))
            if style.price_minor != price_minor:
                self.conn.execute(f"UPDATE style SET price_minor = ?, updated_at = {_NOW} WHERE id = ?",
                                  (price_minor, style_id))
                write_audit(self.conn, style_id, AuditAction.SET_PRICE, actor,
                            detail={"from": style.price_minor, "to": price_minor})
        return self.get(style_id)

    def mark_deleted(self, style_id: int, *, actor: str, reason: str | None = None) -> None:
        """Soft delete (a sync tombstone or staff removal): hidden everywhere, code never reused, audit kept."""
        with write_transaction(self.conn):
            changed = self.conn.execute(
                f"UPDATE style SET deleted = 1, is_previewable = 0, updated_at = {_NOW} WHERE id = ? AND deleted = 0",
                (style_id,),
            ).rowcount
            if changed != 1:
                raise StyleNotFound(str(style_id))
            write_audit(self.conn, style_id, AuditAction.DELETE, actor, reason=reason)

    def transit(self, style_code: str, to_status: StyleStatus | str, *, actor: str, reason: str | None = None,
                expect_from: StyleStatus | str | None = None) -> StyleRecord:
        style = self.get_by_code(style_code)
        transit(self.conn, style.id, to_status, actor=actor, reason=reason, expect_from=expect_from)
        return self.get(style.id)

    def audit_trail(self, style_id: int) -> list[AuditEntry]:
        rows = self.conn.execute(
            "SELECT * FROM audit_log WHERE entity_type = 'STYLE' AND entity_id = ? ORDER BY id", (style_id,)
        ).fetchall()
        return [AuditEntry.from_row(r) for r in rows]

    # ---- assets ---------------------------------------------------------------------------------------------

    def add_asset(self, style_id: int, blob: StoredBlob, asset_type: AssetType | str, *, slot: str = "",
                  is_primary: bool = False, version: int | None = None) -> AssetRecord:
        """Record a stored image for a style (at its current content version unless given).

        The same image in the same role and version is recorded once (returns the existing row). A primary asset
        becomes the style's cover: the previous primary is cleared and style.cover_asset_id set in this transaction.
        """
        asset_type = AssetType(asset_type)
        with write_transaction(self.conn):
            if version is None:
                version = self.get(style_id).content_version
            self.conn.execute(
                "INSERT INTO style_asset (style_id, asset_type, slot, storage_path, file_sha256, file_md5, file_size,"
                " width, height, format, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (style_id, version, asset_type, slot, file_md5) DO NOTHING",
                (style_id, asset_type.value, slot, blob.relative_path, blob.sha256, blob.md5, blob.size, blob.width,
                 blob.height, blob.format, version),
            )
            asset_id = self.conn.execute(
                "SELECT id FROM style_asset WHERE style_id = ? AND version = ? AND asset_type = ? AND slot = ?"
                " AND file_md5 = ?",
                (style_id, version, asset_type.value, slot, blob.md5),
            ).fetchone()["id"]
            if is_primary:
                self.set_primary_asset(style_id, asset_id)
        return self.asset(asset_id)

    def set_primary_asset(self, style_id: int, asset_id: int) -> None:
        # Sync rule for style.cover_asset_id: changed only here, together with style_asset.is_primary.
        with write_transaction(self.conn):
            self.conn.execute(
                "UPDATE style_asset SET is_primary = 0 WHERE style_id = ? AND is_primary = 1 AND id != ?",
                (style_id, asset_id),
            )
            changed = self.conn.execute(
                "UPDATE style_asset SET is_primary = 1 WHERE id = ? AND style_id = ?", (asset_id, style_id)
            ).rowcount
            if changed != 1:
                raise StyleError("ASSET_NOT_FOUND", f"asset {asset_id} of style {style_id}")
            self.conn.execute(
                f"UPDATE style SET cover_asset_id = ?, updated_at = {_NOW} WHERE id = ?", (asset_id, style_id)
            )

    def asset(self, asset_id: int) -> AssetRecord:
        row = self.conn.execute("SELECT * FROM style_asset WHERE id = ?", (asset_id,)).fetchone()
        if row is None:
            raise StyleError("ASSET_NOT_FOUND", str(asset_id))
        return AssetRecord.from_row(row)

    def assets(self, style_id: int, *, version: int | None = None,
               asset_type: AssetType | str | None = None) -> list[AssetRecord]:
        """Assets of the style's current content version (or `version`), by type and slot."""
        if version is None:
            version = self.get(style_id).content_version
        sql = "SELECT * FROM style_asset WHERE style_id = ? AND version = ?"
        params: list[str | int] = [style_id, version]
        if asset_type is not None:
            sql += " AND asset_type = ?"
            params.append(AssetType(asset_type).value)
        rows = self.conn.execute(sql + " ORDER BY asset_type, slot, id", params).fetchall()
        return [AssetRecord.from_row(r) for r in rows]

    def thumbnail_paths(self, styles: Sequence[StyleRecord]) -> dict[int, str]:
        """Each style's thumbnail (else its cover) as a storage path of its current version, in one query: the
        browser looks a page of tiles up at once instead of a query per tile."""
        if not styles:
            return {}
        versions = {style.id: style.content_version for style in styles}
        marks = ",".join("?" * len(versions))
        rows = self.conn.execute(
            f"SELECT style_id, version, asset_type, storage_path FROM style_asset WHERE style_id IN ({marks})"
            " AND asset_type IN (?, ?) ORDER BY style_id, asset_type DESC, slot, id",  # THUMBNAIL before COVER
            [*versions, AssetType.THUMBNAIL.value, AssetType.COVER.value]).fetchall()
        paths: dict[int, str] = {}
        for row in rows:
            if row["version"] == versions[row["style_id"]]:
                paths.setdefault(row["style_id"], row["storage_path"])
        return paths

    # ---- content: images + rows together ---------------------------------------------------------------

    def store_content(self, content: StyleContent) -> StoredContent:
        """Put the images into the asset store (outside any transaction). Raises ImageRejected."""
        store = self.require_store()
        textures = {slot: store.put(data) for slot, data in content.nail_textures.items()}
        cover = store.put(content.preview) if content.preview is not None else None
        thumbnail = store.thumbnail(cover, source_bytes=content.preview) if cover is not None else None
        return StoredContent(textures, cover, thumbnail, content.accent_fingers, content.covers_every_finger(),
                             content)

    def attach_content(self, style_id: int, stored: StoredContent, version: int) -> None:
        """Record stored content as the assets of `version` (NAIL_TEXTURE per slot, COVER as primary, THUMBNAIL)."""
        with write_transaction(self.conn):
            stored = self._with_blobs_present(stored)
            for slot, blob in stored.textures.items():
                self.add_asset(style_id, blob, AssetType.NAIL_TEXTURE, slot=slot, version=version)
            if stored.cover is not None:
                self.add_asset(style_id, stored.cover, AssetType.COVER, is_primary=True, version=version)
            if stored.thumbnail is not None:
                self.add_asset(style_id, stored.thumbnail, AssetType.THUMBNAIL, version=version)

    def create_style_with_content(self, name: str, source: StyleSource | str, content: StyleContent, *,
                                  actor: str, tags: Sequence[str] = (),
                                  **fields: Unpack[StyleFields]) -> StyleRecord:
        """A new DRAFT style with its images; previewable when its textures cover every finger."""
        return self.create_style_from_stored(name, source, self.store_content(content), actor=actor, tags=tags,
                                             **fields)

    def create_style_from_stored(self, name: str, source: StyleSource | str, stored: StoredContent, *,
                                 actor: str, tags: Sequence[str] = (),
                                 **fields: Unpack[StyleFields]) -> StyleRecord:
        """Like create_style_with_content, for images already in the store (no file I/O under the write lock)."""
        with write_transaction(self.conn):
            style = self.create_style(name, source, actor=actor, accent_fingers=stored.accent_fingers, **fields)
            self.attach_content(style.id, stored, style.content_version)
            if tags:
                self.tag_style(style.id, tags)
            if stored.covers_every_finger:
                self.set_previewable(style.id, True)
        return self.get(style.id)

    def create_ai_style(self, task_no: str, *, name: str, content: StyleContent, actor: str,
                        prompt: str = "", **fields: Unpack[AiStyleFields]) -> tuple[StyleRecord, bool]:
        """The style made by STYLE_GENERATION task `task_no`: created once, found on every retry.

        Returns (style, created). Safe against a crash at any point: the images are content-addressed (a retry
        rewrites nothing) and the style with its assets is one transaction guarded by the unique origin_task_no.
        """
        existing = self.find_by_origin_task(task_no)
        if existing is not None:
            return existing, False
        try:
            style = self.create_style_with_content(name, StyleSource.AI, content, actor=actor, prompt=prompt,
                                                   origin_task_no=task_no, **fields)
        except sqlite3.IntegrityError as exc:
            # Another worker finished the same task between our look-up and insert.
            if "origin_task_no" not in str(exc):
                raise
            existing = self.find_by_origin_task(task_no)
            assert existing is not None
            return existing, False
        return style, True

    def edit_content(self, style_code: str, content: StyleContent, *, actor: str,
                     reason: str | None = None) -> StyleRecord:
        """New content version; slots not in `content` carry over. A non-DRAFT style goes back to DRAFT.
        A style HQ owns (synced from the chain's catalog) is not edited: a new local DRAFT is returned instead.

        PUBLISHED/OFF_SHELF/REJECTED → DRAFT (audit EDIT_CONTENT); PENDING_REVIEW refuses (IllegalTransition):
        what is under review must not change under the reviewer.
        """
        style = self.get_by_code(style_code)
        stored = self.store_content(content)
        if style.owner == "HQ":
            return self._local_draft_of(style, stored, actor=actor, reason=reason)
        with write_transaction(self.conn):
            style = self.get(style.id)  # re-read under the write lock
            new_version = style.content_version + 1
            detail = {"version": new_version, "slots": sorted(stored.textures)}
            if style.status is StyleStatus.DRAFT:
                write_audit(self.conn, style.id, AuditAction.EDIT_CONTENT, actor, style.status, style.status,
                            reason, detail)
            else:
                transit(self.conn, style.id, StyleStatus.DRAFT, actor=actor, reason=reason,
                        action=AuditAction.EDIT_CONTENT, detail=detail)
            self.conn.execute(
                f"UPDATE style SET content_version = ?, updated_at = {_NOW} WHERE id = ?", (new_version, style.id)
            )
            self._carry_over(style.id, style.content_version, new_version, stored)
            self.attach_content(style.id, stored, new_version)
            if ACCENT_SLOT in stored.textures:  # a new accent texture brings its fingers; else the old ones stay
                self.conn.execute("UPDATE style SET accent_fingers = ? WHERE id = ?",
                                  (",".join(stored.accent_fingers), style.id))
            covered = self._textures_cover_hand(style.id, new_version)
            self.conn.execute("UPDATE style SET is_previewable = ? WHERE id = ?", (int(covered), style.id))
        return self.get(style.id)

    def _local_draft_of(self, parent: StyleRecord, stored: StoredContent, *, actor: str,
                        reason: str | None) -> StyleRecord:
        """Editing a style HQ owns never changes it here (the feed would overwrite it, and HQ's status is
        authoritative): the edit becomes a new local DRAFT with `parent_style_id` set, which staff may submit."""
        category = self.conn.execute("SELECT code FROM category WHERE id = ?", (parent.category_id,)).fetchone()
        with write_transaction(self.conn):
            draft = self.create_style(parent.name, StyleSource.MANUAL, actor=actor, name_en=parent.name_en,
                                      category_code=category["code"] if category else None, prompt=parent.prompt,
                                      design_json=parent.design_json, accent_fingers=parent.accent_fingers,
                                      parent_style_id=parent.id, price_minor=parent.price_minor)
            self._carry_over(parent.id, parent.content_version, 1, stored, target_style_id=draft.id)
            self.attach_content(draft.id, stored, 1)
            if ACCENT_SLOT in stored.textures:
                self.conn.execute("UPDATE style SET accent_fingers = ? WHERE id = ?",
                                  (",".join(stored.accent_fingers), draft.id))
            write_audit(self.conn, draft.id, AuditAction.EDIT_CONTENT, actor, StyleStatus.DRAFT, StyleStatus.DRAFT,
                        reason, {"parent_style_id": parent.id, "parent_code": parent.style_code})
            covered = self._textures_cover_hand(draft.id, 1)
            self.conn.execute("UPDATE style SET is_previewable = ? WHERE id = ?", (int(covered), draft.id))
        return self.get(draft.id)

    # ---- garbage ------------------------------------------------------------------------------------------

    def collect_garbage(self, now_s: float, *, min_age_s: float = ASSET_GARBAGE_MIN_AGE_S) -> AssetCollection:
        """Delete the asset store's temporaries older than an hour and the blobs no style_asset row points at
        older than `min_age_s` (default an hour; the lock makes any guard safe, the guard saves an import from
        writing again); log and return what was deleted. A file that cannot be deleted is logged and left."""
        store = self.require_store()
        cutoff_s = now_s - min_age_s
        candidates = store.garbage_candidates(now_s, min_age_s)
        temporaries, blobs, failed = [0, 0], [0, 0], 0
        # A temporary's writer holds no lock: only its age says it is gone, so its guard is never shortened.
        temporary_cutoff_s = now_s - max(min_age_s, ASSET_GARBAGE_MIN_AGE_S)
        for relative in candidates.temporaries:
            failed += _remove(store, relative, temporary_cutoff_s, temporaries)
        for start in range(0, len(candidates.blobs), _GARBAGE_BATCH):
            batch = candidates.blobs[start:start + _GARBAGE_BATCH]
            with write_transaction(self.conn):  # no import can record a row for these while we look and delete
                referenced = self._referenced(batch)
                for relative in batch:
                    if relative not in referenced:
                        failed += _remove(store, relative, cutoff_s, blobs)
        result = AssetCollection(temporaries[0], temporaries[1], blobs[0], blobs[1], failed)
        log.info("asset store %s: collected %d temporary file(s) (%d bytes) and %d unreferenced blob(s) (%d bytes)%s",
                 store.root, result.temporaries, result.temporary_bytes, result.blobs, result.blob_bytes,
                 f"; {failed} could not be deleted" if failed else "")
        return result

    def _referenced(self, relative_paths: Sequence[str]) -> set[str]:
        marks = ", ".join("?" * len(relative_paths))
        rows = self.conn.execute(f"SELECT DISTINCT storage_path FROM style_asset WHERE storage_path IN ({marks})",
                                 tuple(relative_paths))
        return {row[0] for row in rows}

    def _with_blobs_present(self, stored: StoredContent) -> StoredContent:
        """`stored`, its files checked under the caller's write lock: if the collector deleted one since it was
        stored (an import slower than the age guard, or a collector run without one), store the images again."""
        store = self.require_store()
        if all(store.path_of(blob.relative_path).is_file() for blob in stored.blobs()):
            return stored
        if stored.source is None:
            missing = next(b for b in stored.blobs() if not store.path_of(b.relative_path).is_file())
            raise StyleError("ASSET_MISSING", missing.relative_path)
        log.warning("asset blobs were collected before their rows were written; storing them again")
        return self.store_content(stored.source)

    # ---- helpers --------------------------------------------------------------------------------------------

    def _carry_over(self, style_id: int, old: int, new: int, stored: StoredContent, *,
                    target_style_id: int | None = None) -> None:
        replaced_slots = set(stored.textures)
        replaced_types = {AssetType.COVER.value, AssetType.THUMBNAIL.value} if stored.cover else set()
        for asset in self.assets(style_id, version=old):
            if asset.asset_type == AssetType.NAIL_TEXTURE and asset.slot in replaced_slots:
                continue
            if asset.asset_type in replaced_types:
                continue
            blob = StoredBlob(asset.file_sha256, asset.file_md5, asset.file_size, asset.storage_path, asset.width,
                              asset.height, asset.format)
            self.add_asset(target_style_id or style_id, blob, asset.asset_type, slot=asset.slot, version=new,
                           is_primary=asset.is_primary)

    def _textures_cover_hand(self, style_id: int, version: int) -> bool:
        slots = {
            r["slot"]
            for r in self.conn.execute(
                "SELECT slot FROM style_asset WHERE style_id = ? AND version = ? AND asset_type = 'NAIL_TEXTURE'",
                (style_id, version),
            )
        }
        return textures_cover_hand(slots, self.get(style_id).accent_fingers)

    def require_store(self) -> AssetStore:
        if self.store is None:
            raise StyleError("NO_ASSET_STORE", "StyleRepository was made without an AssetStore")
        return self.store


_GARBAGE_BATCH = 200  # blobs looked at per write transaction, so an import never waits long on the collector


def _remove(store: AssetStore, relative_path: str, cutoff_s: float, tally: list[int]) -> int:
    """Delete one collectable file, adding (1, its size) to `tally`; 1 if it could not be deleted, else 0."""
    try:
        size = store.remove_if_old(relative_path, cutoff_s)
    except OSError as exc:
        log.warning("could not delete %s from the asset store: %s", relative_path, exc)
        return 1
    if size is not None:
        tally[0] += 1
        tally[1] += size
    return 0


def _list_sql(query: StyleFilter) -> tuple[str, list[str | int]]:
    where = ["s.deleted = 0"]
    params: list[str | int] = []
    if query.status:
        where.append("s.status = ?")
        params.append(StyleStatus(query.status).value)
    if query.category_code:
        where.append("s.category_id = (SELECT id FROM category WHERE code = ?)")
        params.append(query.category_code)
    if query.tag_code:
        where.append("s.id IN (SELECT r.style_id FROM style_tag_relation r JOIN tag t ON t.id = r.tag_id"
                     " WHERE t.code = ?)")
        params.append(query.tag_code)
    if query.source:
        where.append("s.source = ?")
        params.append(StyleSource(query.source).value)
    if query.previewable_only:
        where.append("s.is_previewable = 1")
    if query.text:
        pattern = "%" + _escape_like(query.text.strip()) + "%"
        where.append("(s.style_code LIKE ? ESCAPE '\\' OR s.name LIKE ? ESCAPE '\\' OR s.name_en LIKE ? ESCAPE '\\')")
        params += [pattern, pattern, pattern]
    sql = (f"SELECT s.* FROM style s WHERE {' AND '.join(where)} ORDER BY s.created_at DESC, s.id DESC"
           " LIMIT ? OFFSET ?")
    return sql, [*params, query.limit, query.offset]


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
