"""The catalog HQ owns: categories, tags and styles, and how their changes reach every channel's feed.

A style's `version` goes up with every change a kiosk must see (content, status), so a kiosk applies a change
only when its version is newer than the one it has. Categories and tags a style names are put in a channel's
feed before the style (a kiosk then never meets an unknown code, though it copes with one).
Status at HQ: UNPUBLISHED (imported, not yet sent), PUBLISHED, OFF_SHELF (sent, kiosks keep its files),
WITHDRAWN (taken down: a feed delete; a later publish brings it back with a newer version).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Connection, Engine, delete, select, update

from nailmirror_hq import audit, clock, codes, db, feed, rollouts, style_folder
from nailmirror_hq.blobs import BlobStore
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import blob, category, channel, channel_entity, style, style_channel, tag
from nailmirror_protocol.errors import ErrorCode
from nailmirror_protocol.shapes import Asset, StyleBody

LIVE_STATUSES = ("PUBLISHED", "OFF_SHELF")
STARTER_ACTOR = "starter_catalog"
# The kiosk's namespace for starter styles (nailmirror_desktop/core/catalog/starter.py): the same ids here.
STARTER_UID_NAMESPACE = uuid.UUID("6f0b8a43-2c1e-4c56-9a57-1f7f0e3c8d21")


def starter_style_id(catalog_code: str) -> str:
    return str(uuid.uuid5(STARTER_UID_NAMESPACE, f"starter_catalog/{catalog_code}"))


@dataclass(frozen=True)
class StyleRow:
    id: str
    style_code: str
    version: int
    status: str
    body: StyleBody


def get_style(conn: Connection, style_id: str) -> StyleRow | None:
    row = conn.execute(select(style).where(style.c.id == style_id)).one_or_none()
    if row is None:
        return None
    return StyleRow(row.id, row.style_code, row.version, row.status, json.loads(row.body))


def list_styles(conn: Connection, status: str | None = None) -> list[StyleRow]:
    query = select(style).order_by(style.c.created_at, style.c.id)
    if status:
        query = query.where(style.c.status == status)
    return [StyleRow(r.id, r.style_code, r.version, r.status, json.loads(r.body)) for r in conn.execute(query)]


# --- categories and tags -----------------------------------------------------------------------------------

def ensure_category(conn: Connection, code: str, name_zh: str, name_en: str, sort_order: int = 0) -> None:
    row = conn.execute(select(category).where(category.c.code == code)).one_or_none()
    if row is None:
        conn.execute(category.insert().values(code=code, name_zh=name_zh, name_en=name_en, sort_order=sort_order,
                                              version=1))
    elif (row.name_zh, row.name_en, row.sort_order) != (name_zh, name_en, sort_order):
        conn.execute(update(category).where(category.c.code == code).values(
            name_zh=name_zh, name_en=name_en, sort_order=sort_order, version=row.version + 1))
        _republish_reference(conn, "category", code)


def ensure_tag(conn: Connection, code: str, name_zh: str, name_en: str) -> None:
    row = conn.execute(select(tag).where(tag.c.code == code)).one_or_none()
    if row is None:
        conn.execute(tag.insert().values(code=code, name_zh=name_zh, name_en=name_en, version=1))
    elif (row.name_zh, row.name_en) != (name_zh, name_en):
        conn.execute(update(tag).where(tag.c.code == code).values(name_zh=name_zh, name_en=name_en,
                                                                  version=row.version + 1))
        _republish_reference(conn, "tag", code)


REFERENCE_CODE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


def add_reference(conn: Connection, kind: str, code: str, name_zh: str, name_en: str, actor: str,
                  sort_order: int = 0) -> None:
    """A new category or tag HQ manages; it goes to every channel at once, so a kiosk can offer it before any
    style uses it (inside db.write). 409 when the code exists: renaming is `rename_reference`."""
    if not REFERENCE_CODE.match(code):
        raise HQError(400, ErrorCode.BAD_REQUEST, f"bad {kind} code {code!r} (a-z, 0-9, _ and -, at most 40)")
    if not name_zh.strip():
        raise HQError(400, ErrorCode.BAD_REQUEST, f"a {kind} needs a Chinese name")
    if reference(conn, kind, code) is not None:
        raise HQError(409, ErrorCode.BAD_REQUEST, f"{kind} {code} exists (rename it instead)")
    if kind == "category":
        ensure_category(conn, code, name_zh.strip(), name_en.strip(), sort_order)
    else:
        ensure_tag(conn, code, name_zh.strip(), name_en.strip())
    for channel_code in feed.channels(conn):
        _send_reference(conn, channel_code, kind, code)
    audit.record(conn, actor, f"{kind.upper()}_ADD", kind, code, name_zh=name_zh, name_en=name_en)


def rename_reference(conn: Connection, kind: str, code: str, actor: str, name_zh: str | None = None,
                     name_en: str | None = None, sort_order: int | None = None) -> dict[str, Any]:
    """New names (or order) for a category or tag: a newer version to every channel that has it. The code, which
    styles name, never changes."""
    found = reference(conn, kind, code)
    if found is None:
        raise not_found(f"{kind} {code}")
    body = found[1]
    zh = body["name_zh"] if name_zh is None else name_zh.strip()
    if not zh:
        raise HQError(400, ErrorCode.BAD_REQUEST, f"a {kind} needs a Chinese name")
    en = body["name_en"] if name_en is None else name_en.strip()
    if kind == "category":
        ensure_category(conn, code, zh, en, body["sort_order"] if sort_order is None else sort_order)
    else:
        ensure_tag(conn, code, zh, en)
    audit.record(conn, actor, f"{kind.upper()}_RENAME", kind, code, name_zh=zh, name_en=en)
    renamed = reference(conn, kind, code)
    assert renamed is not None
    return {**renamed[1], "version": renamed[0]}


def list_references(conn: Connection, kind: str) -> list[dict[str, Any]]:
    table = category if kind == "category" else tag
    order = (table.c.sort_order, table.c.code) if kind == "category" else (table.c.code,)
    return [dict(r._mapping) for r in conn.execute(select(table).order_by(*order))]


def reference(conn: Connection, kind: str, code: str) -> tuple[int, dict[str, Any]] | None:
    if kind == "category":
        row = conn.execute(select(category).where(category.c.code == code)).one_or_none()
        if row is None:
            return None
        return row.version, {"code": row.code, "name_zh": row.name_zh, "name_en": row.name_en,
                             "sort_order": row.sort_order}
    row = conn.execute(select(tag).where(tag.c.code == code)).one_or_none()
    if row is None:
        return None
    return row.version, {"code": row.code, "name_zh": row.name_zh, "name_en": row.name_en}


def _send_reference(conn: Connection, channel_code: str, kind: str, code: str) -> None:
    ref = reference(conn, kind, code)
    if ref is not None and feed.live_version(conn, channel_code, kind, code) != ref[0]:
        feed.append(conn, channel_code, kind, "upsert", code, ref[0], ref[1])


def _republish_reference(conn: Connection, kind: str, code: str) -> None:
    """A renamed category or tag goes again to every channel that already has it."""
    rows = conn.execute(select(channel_entity.c.channel).where(channel_entity.c.type == kind,
                                                               channel_entity.c.entity_id == code)).scalars()
    for channel_code in list(rows):
        _send_reference(conn, channel_code, kind, code)


# --- channels ----------------------------------------------------------------------------------------------

def ensure_channel(conn: Connection, code: str) -> None:
    """A new channel starts with every live chain-wide style (published with no chosen channels), and every
    category and tag HQ has, categories and tags first."""
    if feed.head(conn, code) is not None:
        return
    conn.execute(channel.insert().values(code=code, head_seq=0, min_seq=0, created_at=clock.now_text()))
    for kind, table in (("category", category), ("tag", tag)):
        for ref_code in list(conn.execute(select(table.c.code).order_by(table.c.code)).scalars()):
            _send_reference(conn, code, kind, ref_code)
    for row in list_styles(conn):
        if row.status in LIVE_STATUSES and not chosen_channels(conn, row.id):
            shown = _shown_before(conn, row)  # a version held in canary elsewhere is not this channel's yet
            if shown is not None:
                _send_style(conn, code, StyleRow(row.id, row.style_code, shown[0], row.status,
                                                 cast(StyleBody, shown[1])))


def chosen_channels(conn: Connection, style_id: str) -> list[str]:
    """The channels a style was published to; empty: every channel."""
    return list(conn.execute(select(style_channel.c.channel).where(style_channel.c.style_id == style_id)
                             .order_by(style_channel.c.channel)).scalars())


def target_channels(conn: Connection, style_id: str) -> list[str]:
    return chosen_channels(conn, style_id) or feed.channels(conn)


def _choose_channels(conn: Connection, style_id: str, channels: list[str]) -> None:
    """Replace a style's chosen channels ([] = every channel). Each must exist: a typo must not make a channel
    no store reads."""
    known = set(feed.channels(conn))
    for code in channels:
        if code not in known:
            raise HQError(400, ErrorCode.BAD_REQUEST, f"no channel {code} (channels: {', '.join(sorted(known))})")
    conn.execute(delete(style_channel).where(style_channel.c.style_id == style_id))
    for code in dict.fromkeys(channels):
        conn.execute(style_channel.insert().values(style_id=style_id, channel=code))


def send_style(conn: Connection, channel_code: str, row: StyleRow) -> None:
    """The style's version to one feed (a channel's, or its canary feed), its category and tags first."""
    _send_style(conn, channel_code, row)


def save_version(conn: Connection, row: StyleRow, body: StyleBody) -> StyleRow:
    """A new version of the style with this body, its status unchanged (a roll-back; inside db.write)."""
    return _save(conn, row, row.status, body)


def _send_style(conn: Connection, channel_code: str, row: StyleRow) -> None:
    if row.body.get("category"):
        _send_reference(conn, channel_code, "category", str(row.body["category"]))
    for tag_code in row.body.get("tags", []):
        _send_reference(conn, channel_code, "tag", tag_code)
    feed.append(conn, channel_code, "style", "upsert", row.id, row.version, dict(row.body))


# --- blobs -------------------------------------------------------------------------------------------------

def store_blob(blobs: BlobStore, data: bytes, sha256: str) -> None:
    """File I/O, outside any transaction: the blob is in the store before a row names it."""
    fd, tmp = tempfile.mkstemp(prefix="nm-hq-blob-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        blobs.put_verified(sha256, Path(tmp))
    finally:
        os.unlink(tmp)


def record_blob(conn: Connection, sha256: str, size: int, fmt: str, width: int, height: int) -> None:
    if conn.execute(select(blob.c.sha256).where(blob.c.sha256 == sha256)).first() is None:
        conn.execute(blob.insert().values(sha256=sha256, size=size, format=fmt, width=width, height=height,
                                          created_at=clock.now_text()))


# --- styles ------------------------------------------------------------------------------------------------

def _free_code(conn: Connection, preferred: str | None, prefix: str) -> str:
    candidates = ([preferred] if preferred else []) + [codes.new_style_code(prefix) for _ in range(8)]
    for code in candidates:
        if conn.execute(select(style.c.id).where(style.c.style_code == code)).first() is None:
            return code
    raise HQError(500, ErrorCode.BAD_REQUEST, "no free style code")


def insert_style(conn: Connection, style_id: str, body: StyleBody, actor: str, preferred_code: str | None = None,
                 source: str = "CATALOG") -> StyleRow:
    if get_style(conn, style_id) is not None:
        raise HQError(409, ErrorCode.BAD_REQUEST, f"style {style_id} exists")
    prefix = codes.code_prefix(body.get("category"), source)
    code = _free_code(conn, preferred_code or body.get("style_code") or None, prefix)
    body = {**body, "style_code": code}
    now = clock.now_text()
    conn.execute(style.insert().values(id=style_id, style_code=code, version=1, status="UNPUBLISHED",
                                       body=json.dumps(body, ensure_ascii=False), created_at=now, updated_at=now))
    audit.record(conn, actor, "STYLE_CREATE", "style", style_id, style_code=code)
    return StyleRow(style_id, code, 1, "UNPUBLISHED", body)


def _save(conn: Connection, row: StyleRow, status: str, body: StyleBody) -> StyleRow:
    version = row.version + 1
    conn.execute(update(style).where(style.c.id == row.id).values(
        version=version, status=status, body=json.dumps(body, ensure_ascii=False), updated_at=clock.now_text()))
    return StyleRow(row.id, row.style_code, version, status, body)


def _rechoose(conn: Connection, style_id: str, status: str, actor: str, channels: list[str]) -> bool:
    """Set a style's chosen channels; whether they changed."""
    if status not in LIVE_STATUSES:
        raise HQError(400, ErrorCode.BAD_REQUEST, "channels are chosen when publishing")
    before = chosen_channels(conn, style_id)
    _choose_channels(conn, style_id, channels)
    if sorted(dict.fromkeys(channels)) == before:
        return False
    audit.record(conn, actor, "STYLE_CHANNELS", "style", style_id, channels=sorted(set(channels)) or "all")
    return True


def set_status(conn: Connection, style_id: str, status: str, actor: str, reason: str | None = None,
               channels: list[str] | None = None) -> StyleRow:
    """PUBLISHED or OFF_SHELF (an upsert to the style's channels) or WITHDRAWN (a delete); inside db.write.

    `channels` chooses where a publish goes ([]: every channel, also later ones; None: as before). A channel the
    style leaves gets a delete, so its stores drop it; the version goes up so no kiosk skips that delete."""
    row = get_style(conn, style_id)
    if row is None:
        raise not_found(f"style {style_id}")
    moved = channels is not None and _rechoose(conn, style_id, status, actor, channels)
    if row.status == status and not moved:
        return row
    if status == "WITHDRAWN" and row.status == "UNPUBLISHED":
        raise HQError(409, ErrorCode.BAD_REQUEST, f"style {style_id} was never published")
    body: StyleBody = dict(row.body)  # type: ignore[assignment]
    if status in LIVE_STATUSES:
        body["status"] = status  # type: ignore[typeddict-item]
        if status == "PUBLISHED" and not body.get("published_at"):
            body["published_at"] = clock.now_text()
    saved = _save(conn, row, status, body)
    # A publish of content no store shows yet is staged (rollouts.py); any other change goes to every store.
    staged = status == "PUBLISHED" and row.status not in LIVE_STATUSES
    targets = target_channels(conn, style_id)
    held = rollouts.holding(conn, targets) if staged else []
    for channel_code in feed.channels(conn):
        if status in LIVE_STATUSES and channel_code in targets:
            _send_style(conn, feed.canary_feed(channel_code) if channel_code in held else channel_code, saved)
        else:
            leave = reason or (status if status not in LIVE_STATUSES else "channel")
            # A style held in canary is in the canary feed alone: its delete goes there.
            for code in (channel_code, feed.canary_feed(channel_code)):
                if feed.live_version(conn, code, "style", style_id) is not None:
                    feed.append(conn, code, "style", "delete", style_id, saved.version, reason=leave)
                    break  # the channel's own delete is copied to its canary feed
    if staged:
        rollouts.record(conn, "style", style_id, saved.version, dict(saved.body), None, held, actor)
    else:
        rollouts.end(conn, "style", style_id, rollouts.SUPERSEDED, actor)
    audit.record(conn, actor, f"STYLE_{status}", "style", style_id, version=saved.version, reason=reason)
    return saved


def replace_body(conn: Connection, style_id: str, body: StyleBody, actor: str) -> StyleRow:
    """A new content version (HQ edited it); sent to the channels when the style is live."""
    row = get_style(conn, style_id)
    if row is None:
        raise not_found(f"style {style_id}")
    body = {**body, "style_code": row.style_code, "status": row.body.get("status", "PUBLISHED")}
    saved = _save(conn, row, row.status, body)
    if saved.status == "PUBLISHED":  # a new version of a published style: staged (rollouts.py)
        previous = _shown_before(conn, row)
        targets = target_channels(conn, style_id)
        held = rollouts.holding(conn, targets)
        for channel_code in targets:
            _send_style(conn, feed.canary_feed(channel_code) if channel_code in held else channel_code, saved)
        rollouts.record(conn, "style", style_id, saved.version, dict(saved.body), previous, held, actor)
    elif saved.status in LIVE_STATUSES:
        for channel_code in target_channels(conn, style_id):
            _send_style(conn, channel_code, saved)
        rollouts.end(conn, "style", style_id, rollouts.SUPERSEDED, actor)
    audit.record(conn, actor, "STYLE_EDIT", "style", style_id, version=saved.version)
    return saved


def _shown_before(conn: Connection, row: StyleRow) -> tuple[int, dict[str, Any]] | None:
    """What the rest of the style's channels show before its new version: the version before a rollout still in
    canary (those stores never saw the canary one), else the current one."""
    before = rollouts.active(conn, "style", row.id)
    if before is None:
        return row.version, dict(row.body)
    if before.previous_version is None or before.previous_body is None:
        return None
    return before.previous_version, before.previous_body


def folder_body(folder: style_folder.StyleFolder, *, name_zh: str, name_en: str, category_code: str | None,
                tags: list[str], prompt: str) -> StyleBody:
    assets: list[Asset] = []
    for img in folder.images:
        fields: dict[str, Any] = {"type": img.type, "slot": img.slot, "sha256": img.sha256, "size": len(img.data),
                                  "format": img.format, "width": img.width, "height": img.height, "required": True}
        asset = cast(Asset, fields)
        if img.type == "COVER":
            asset["primary"] = True
        assets.append(asset)
    return {"style_code": "", "status": "PUBLISHED", "name": {"zh": name_zh, "en": name_en},
            "category": category_code, "tags": tags, "accent_fingers": list(folder.accent_fingers),
            "prompt": prompt, "design": folder.design, "origin": {"store_id": None, "draft_id": None, "rev": None},
            "published_at": None, "assets": assets}


def import_folder(engine: Engine, blobs: BlobStore, path: Path, *, actor: str, style_id: str | None = None,
                  name: str | None = None, name_en: str = "", category_code: str | None = None,
                  tags: list[str] | None = None, prompt: str = "", publish: bool = False,
                  preferred_code: str | None = None) -> StyleRow:
    folder = style_folder.read(path)
    for img in folder.images:  # file I/O first; the rows come in one transaction after
        store_blob(blobs, img.data, img.sha256)
    body = folder_body(folder, name_zh=name or folder.name, name_en=name_en, category_code=category_code,
                       tags=list(tags or []), prompt=prompt)
    with db.write(engine) as conn:
        if category_code and reference(conn, "category", category_code) is None:
            raise HQError(400, ErrorCode.BAD_REQUEST, f"no category {category_code} (add it first)")
        for tag_code in tags or []:
            if reference(conn, "tag", tag_code) is None:
                raise HQError(400, ErrorCode.BAD_REQUEST, f"no tag {tag_code} (add it first)")
        for img in folder.images:
            record_blob(conn, img.sha256, len(img.data), img.format, img.width, img.height)
        row = insert_style(conn, style_id or str(uuid.uuid4()), body, actor, preferred_code)
        if publish:
            row = set_status(conn, row.id, "PUBLISHED", actor)
    return row


def load_starter_catalog(engine: Engine, blobs: BlobStore, folder: Path) -> list[str]:
    """The kiosk's starter catalog, published under the kiosk's ids and codes; entries already here are
    skipped. Returns the ids added."""
    data = json.loads((folder / "catalog.json").read_text(encoding="utf-8"))
    added = []
    for item in data["styles"] if isinstance(data, dict) else data:
        code = str(item["code"])
        style_id = starter_style_id(code)
        with db.read(engine) as conn:
            if get_style(conn, style_id) is not None:
                continue
        cat = item.get("category")
        cat_code = cat["code"] if isinstance(cat, dict) else (item.get("category_code") or cat)
        tag_items = [t if isinstance(t, dict) else {"code": t} for t in item.get("tags") or ()]
        with db.write(engine) as conn:
            if isinstance(cat, dict):
                ensure_category(conn, cat["code"], cat.get("name_zh") or cat["code"], cat.get("name_en") or "")
            elif cat_code:
                ensure_category(conn, cat_code, item.get("category_name_zh") or cat_code,
                                item.get("category_name_en") or cat_code)
            for t in tag_items:
                ensure_tag(conn, t["code"], t.get("name_zh") or t["code"], t.get("name_en") or "")
        try:
            import_folder(engine, blobs, folder / str(item.get("folder") or code), actor=STARTER_ACTOR,
                          style_id=style_id, name=item.get("name_zh") or item.get("name") or code,
                          name_en=item.get("name_en") or "", category_code=cat_code,
                          tags=[t["code"] for t in tag_items], prompt=item.get("prompt") or "", publish=True,
                          preferred_code=codes.stable_style_code(codes.code_prefix(cat_code, "CATALOG"), code))
        except HQError as exc:
            if exc.status != 409:  # 409: another HQ process starting at the same time loaded it first
                raise
            continue
        added.append(style_id)
    return added
