"""HQ-wide facts kept in hq_meta: the epoch of the feed's history."""

from __future__ import annotations

import secrets

from sqlalchemy import Connection, select

from nailmirror_hq.schema import hq_meta


def new_epoch() -> str:
    # Random, not a counter: a restored backup and the HQ it replaces must never share an epoch, or a kiosk's
    # cursor from the lost history would be accepted against the restored one.
    return "e" + secrets.token_hex(4)


def get(conn: Connection, key: str) -> str | None:
    return conn.execute(select(hq_meta.c.value).where(hq_meta.c.key == key)).scalar_one_or_none()


def put(conn: Connection, key: str, value: str) -> None:
    if get(conn, key) is None:
        conn.execute(hq_meta.insert().values(key=key, value=value))
    else:
        conn.execute(hq_meta.update().where(hq_meta.c.key == key).values(value=value))


def epoch(conn: Connection) -> str:
    value = get(conn, "epoch")
    if value is None:
        raise RuntimeError("HQ database has no epoch (not initialised)")
    return value
