"""Loads the starter catalog the kiosk ships with (`resources/starter_catalog/`) into the database.

`catalog.json` lists the styles; each has a style folder (see core.styles.content) next to it. Every style becomes
a CATALOG style, PUBLISHED (through the status machine: DRAFT → PENDING_REVIEW → PUBLISHED, audited as the
`starter_catalog` actor) and previewable, with NAIL_TEXTURE assets per finger and COVER + THUMBNAIL from
preview.png.

Idempotent per style: each catalog entry gets a stable client_uid (uuid5 of its catalog code), so a second start
adds nothing and a start interrupted half-way finishes the rest next time. Its style_code is stable across kiosks
too (derived from the catalog code), unless that code is taken.

Safe across processes: two kiosk processes starting together on a fresh data directory both load the catalog.
Whether an entry is loaded is decided again inside the transaction that inserts it, which holds the database's
write lock from its first statement (BEGIN IMMEDIATE), so of two loaders one inserts the entry and the other
finds it there and skips it. The check outside the transaction only saves the file work for entries loaded
long ago; it decides nothing. The images both may have written are the same content-addressed files.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.catalog import codes
from nailmirror_desktop.core.catalog.content import read_style_folder
from nailmirror_desktop.core.catalog.errors import StyleError
from nailmirror_desktop.core.catalog.repository import StyleRepository, StyleSource
from nailmirror_desktop.core.catalog.status import StyleStatus, transit
from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.paths import resources_dir

CATALOG_FILE = "catalog.json"
ACTOR = "starter_catalog"
_UID_NAMESPACE = uuid.UUID("6f0b8a43-2c1e-4c56-9a57-1f7f0e3c8d21")


@dataclass(frozen=True)
class CatalogEntry:
    code: str
    name_zh: str
    name_en: str
    category_code: str
    category_name_zh: str
    category_name_en: str
    tags: tuple[tuple[str, str, str], ...]  # (code, name_zh, name_en)
    prompt: str
    seed: int | None
    folder: Path


@dataclass(frozen=True)
class LoadReport:
    added: tuple[str, ...]  # style codes created by this call
    present: int  # entries that were already loaded


def default_catalog_folder() -> Path:
    return resources_dir() / "starter_catalog"


def catalog_client_uid(catalog_code: str) -> str:
    return str(uuid.uuid5(_UID_NAMESPACE, f"starter_catalog/{catalog_code}"))


def load_starter_catalog(repo: StyleRepository, folder: Path | None = None) -> LoadReport:
    """Import every catalog style not imported yet. Raises StyleError(CATALOG_INVALID) on a malformed catalog."""
    folder = Path(folder) if folder else default_catalog_folder()
    entries = read_catalog(folder)
    added, present = [], 0
    for entry in entries:
        code = None if _already_loaded(repo, entry) else _import_entry(repo, entry)
        if code is None:
            present += 1
        else:
            added.append(code)
    return LoadReport(tuple(added), present)


def read_catalog(folder: Path) -> list[CatalogEntry]:
    path = Path(folder) / CATALOG_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StyleError("CATALOG_INVALID", f"{path}: {exc}") from None
    items = data.get("styles") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise StyleError("CATALOG_INVALID", f"{path}: no list of styles")
    return [_entry(item, Path(folder)) for item in items]


def _entry(item: dict[str, Any], folder: Path) -> CatalogEntry:
    try:
        code = str(item["code"])
        category = item.get("category")
        if isinstance(category, dict):
            category_code, category_zh, category_en = category["code"], category["name_zh"], category["name_en"]
        else:
            category_code = item.get("category_code") or category
            category_zh = item.get("category_name_zh") or category_code
            category_en = item.get("category_name_en") or category_code
        return CatalogEntry(
            code=code,
            name_zh=str(item.get("name_zh") or item.get("name") or code),
            name_en=str(item.get("name_en") or ""),
            category_code=str(category_code),
            category_name_zh=str(category_zh),
            category_name_en=str(category_en),
            tags=tuple(_tag(t) for t in item.get("tags") or ()),
            prompt=str(item.get("prompt") or ""),
            seed=item.get("seed"),
            folder=folder / str(item.get("folder") or code),
        )
    except (KeyError, TypeError) as exc:
        raise StyleError("CATALOG_INVALID", f"entry {item!r}: {exc}") from None


def _tag(tag: object) -> tuple[str, str, str]:
    if isinstance(tag, dict):
        code = str(tag["code"])
        return code, str(tag.get("name_zh") or code), str(tag.get("name_en") or "")
    return str(tag), str(tag), ""


def _already_loaded(repo: StyleRepository, entry: CatalogEntry) -> bool:
    row = repo.conn.execute("SELECT 1 FROM style WHERE client_uid = ?", (catalog_client_uid(entry.code),)).fetchone()
    return row is not None


def _import_entry(repo: StyleRepository, entry: CatalogEntry) -> str | None:
    """Import one entry; its style code, or None when another process loaded it first."""
    style_folder = read_style_folder(entry.folder)
    stored_design = json.dumps({"catalog_code": entry.code, "design": style_folder.design,
                                "seed": entry.seed if entry.seed is not None else style_folder.seed},
                               ensure_ascii=False, sort_keys=True)
    stored = repo.store_content(style_folder.content)  # file I/O before the write lock is taken
    category = repo.ensure_category(entry.category_code, entry.category_name_zh, entry.category_name_en)
    for code, name_zh, name_en in entry.tags:
        repo.ensure_tag(code, name_zh, name_en)
    prefix = codes.code_prefix(category.code, StyleSource.CATALOG)
    with write_transaction(repo.conn):  # the style, its assets and its way to PUBLISHED: all or nothing
        if _already_loaded(repo, entry):  # under the write lock: no other loader can insert it from here on
            return None
        style = repo.create_style_from_stored(
            entry.name_zh or style_folder.name,
            StyleSource.CATALOG,
            stored,
            actor=ACTOR,
            tags=[code for code, _, _ in entry.tags],
            name_en=entry.name_en,
            category_code=category.code,
            prompt=entry.prompt,
            design_json=stored_design,
            client_uid=catalog_client_uid(entry.code),
            preferred_code=codes.stable_style_code(prefix, entry.code),
        )
        if not style.is_previewable:
            raise StyleError("CATALOG_INVALID", f"{entry.code}: textures do not cover every finger")
        transit(repo.conn, style.id, StyleStatus.PENDING_REVIEW, actor=ACTOR)
        transit(repo.conn, style.id, StyleStatus.PUBLISHED, actor=ACTOR)
    return style.style_code
