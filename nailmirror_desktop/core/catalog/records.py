"""Rows of the style domain as frozen dataclasses (what the repository returns)."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass
from typing import Any

from nailmirror_desktop.core.catalog.status import StyleStatus


@dataclass(frozen=True)
class Category:
    id: int
    code: str
    name_zh: str
    name_en: str
    sort_order: int

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Category:
        return cls(row["id"], row["code"], row["name_zh"], row["name_en"], row["sort_order"])


@dataclass(frozen=True)
class Tag:
    id: int
    code: str
    name_zh: str
    name_en: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Tag:
        return cls(row["id"], row["code"], row["name_zh"], row["name_en"])


@dataclass(frozen=True)
class StyleRecord:
    id: int
    style_code: str
    name: str
    name_en: str
    category_id: int | None
    category_name: str | None
    status: StyleStatus
    is_previewable: bool
    cover_asset_id: int | None
    source: str
    content_version: int
    accent_fingers: tuple[str, ...]
    prompt: str
    design_json: str | None
    origin_task_no: str | None
    client_uid: str
    remote_id: str | None
    remote_version: int | None
    parent_style_id: int | None
    deleted: bool
    created_at: str
    updated_at: str
    owner: str = "LOCAL"  # HQ: the chain's catalog owns the row (read-only here; migration 0004)
    hidden_locally: bool = False  # staff hid this HQ style in their own store
    # The store's price in minor units of KioskConfig.currency (migration 0007); None: no price is shown.
    price_minor: int | None = None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> StyleRecord:
        keys = row.keys()
        return cls(
            id=row["id"],
            style_code=row["style_code"],
            name=row["name"],
            name_en=row["name_en"],
            category_id=row["category_id"],
            category_name=row["category_name"],
            status=StyleStatus(row["status"]),
            is_previewable=bool(row["is_previewable"]),
            cover_asset_id=row["cover_asset_id"],
            source=row["source"],
            content_version=row["content_version"],
            accent_fingers=tuple(f for f in row["accent_fingers"].split(",") if f),
            prompt=row["prompt"],
            design_json=row["design_json"],
            origin_task_no=row["origin_task_no"],
            client_uid=row["client_uid"],
            remote_id=row["remote_id"],
            remote_version=row["remote_version"],
            parent_style_id=row["parent_style_id"],
            deleted=bool(row["deleted"]),
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            owner=row["owner"] if "owner" in keys else "LOCAL",
            hidden_locally=bool(row["hidden_locally"]) if "hidden_locally" in keys else False,
            price_minor=row["price_minor"] if "price_minor" in keys else None,
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        data["accent_fingers"] = list(self.accent_fingers)
        return data


@dataclass(frozen=True)
class AssetRecord:
    id: int
    style_id: int
    asset_type: str
    slot: str
    storage_path: str
    file_sha256: str
    file_md5: str
    file_size: int
    width: int
    height: int
    format: str
    is_primary: bool
    version: int
    created_at: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> AssetRecord:
        values = {key: row[key] for key in row.keys()}  # noqa: SIM118  (iterating a sqlite3.Row yields values)
        values["is_primary"] = bool(values["is_primary"])
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AuditEntry:
    id: int
    action: str
    from_status: str | None
    to_status: str | None
    reason: str | None
    actor: str
    detail_json: str | None
    created_at: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> AuditEntry:
        return cls(row["id"], row["action"], row["from_status"], row["to_status"], row["reason"], row["actor"],
                   row["detail_json"], row["created_at"])

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
