"""How far a destructive action reaches, for the review page's confirmation step ("take down 叶子猫眼 from 3
channels, 12 stores"; "revoke 2 kiosks of st_SH-0012"): the reviewer confirms what will happen, not a bare button."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, func, select

from nailmirror_hq import catalog
from nailmirror_hq.errors import not_found
from nailmirror_hq.schema import store, store_token


@dataclass(frozen=True)
class StyleReach:
    name: str
    style_code: str
    channels: tuple[str, ...]
    stores: int  # active stores reading those channels


@dataclass(frozen=True)
class StoreReach:
    store_id: str
    name: str
    kiosks: int  # active kiosks that stop syncing


def style_reach(conn: Connection, style_id: str) -> StyleReach:
    row = catalog.get_style(conn, style_id)
    if row is None:
        raise not_found(f"style {style_id}")
    channels = tuple(catalog.target_channels(conn, style_id))
    stores = conn.execute(select(func.count()).select_from(store).where(
        store.c.channel.in_(channels), store.c.status == "ACTIVE")).scalar_one() if channels else 0
    name = row.body.get("name") or {}
    return StyleReach(name.get("zh") or name.get("en") or row.style_code, row.style_code, channels, int(stores))


def store_reach(conn: Connection, store_id: str, kiosk_id: str | None) -> StoreReach:
    found = conn.execute(select(store.c.name).where(store.c.id == store_id)).scalar_one_or_none()
    if found is None:
        raise not_found(f"store {store_id}")
    query = select(func.count()).select_from(store_token).where(store_token.c.store_id == store_id,
                                                                store_token.c.revoked_at.is_(None))
    if kiosk_id:
        query = query.where(store_token.c.kiosk_id == kiosk_id)
    return StoreReach(store_id, str(found), int(conn.execute(query).scalar_one()))
