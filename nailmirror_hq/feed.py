"""The channel change feed: an append-only log per channel, and the live state it leads to.

Writers call `append` inside db.write (the single-writer transaction); it takes the next seq from
channel.head_seq, writes the change and updates channel_entity (the live set a snapshot lists) in the same
transaction, so the log and the snapshot always agree. Readers page with `page` (seq > since, in seq order).

A channel's canary feed ("~" + its code, rollouts.py) is a feed of its own that its canary stores page: it
follows every change of its channel (`append` copies a change there unless the canary feed already has that
version), and also carries the versions a rollout holds back from the rest of the channel. So a poll stays the
same one range scan on whichever feed the kiosk reads, and each feed's live set and digest stay its own.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, delete, func, select, update

from nailmirror_hq import clock
from nailmirror_hq.schema import catalog_change, channel, channel_entity
from nailmirror_protocol.canonical import catalog_digest
from nailmirror_protocol.shapes import CatalogState, Change


@dataclass(frozen=True)
class ChannelHead:
    code: str
    head_seq: int
    min_seq: int


def head(conn: Connection, channel_code: str) -> ChannelHead | None:
    row = conn.execute(select(channel.c.code, channel.c.head_seq, channel.c.min_seq)
                       .where(channel.c.code == channel_code)).one_or_none()
    return ChannelHead(row.code, row.head_seq, row.min_seq) if row else None


def appended_total(conn: Connection) -> int:
    """Every change ever appended, all channels together (inside a write: the difference across a decision is
    its fan-out, what /metrics reports)."""
    return int(conn.execute(select(func.coalesce(func.sum(channel.c.head_seq), 0))).scalar_one())
CANARY_PREFIX = "~"  # not a character a channel code may have (stores.CHANNEL_PATTERN)


def canary_feed(channel_code: str) -> str:
    return CANARY_PREFIX + channel_code


def channels(conn: Connection) -> list[str]:
    """The channels stores are on (not their canary feeds)."""
    return list(conn.execute(select(channel.c.code).where(~channel.c.code.startswith(CANARY_PREFIX))
                             .order_by(channel.c.code)).scalars())


def all_feeds(conn: Connection) -> list[str]:
    """Every feed: the channels and their canary feeds (compaction covers both)."""
    return list(conn.execute(select(channel.c.code).order_by(channel.c.code)).scalars())


def live_version(conn: Connection, channel_code: str, entity_type: str, entity_id: str) -> int | None:
    return conn.execute(select(channel_entity.c.version).where(
        channel_entity.c.channel == channel_code, channel_entity.c.type == entity_type,
        channel_entity.c.entity_id == entity_id)).scalar_one_or_none()


def append(conn: Connection, channel_code: str, entity_type: str, op: str, entity_id: str, version: int,
           payload: dict[str, Any] | None = None, reason: str | None = None) -> int:
    """Append one change (inside db.write); returns its seq. `payload` is the full body of an upsert. A change of
    a channel with a canary feed goes there too, unless that feed already shows this version (a widened rollout:
    its canary stores had it first)."""
    seq = _append_one(conn, channel_code, entity_type, op, entity_id, version, payload, reason)
    if not channel_code.startswith(CANARY_PREFIX):
        canary = canary_feed(channel_code)
        if head(conn, canary) is not None:
            have = live_version(conn, canary, entity_type, entity_id)
            if (have != version) if op == "upsert" else (have is not None):
                _append_one(conn, canary, entity_type, op, entity_id, version, payload, reason)
    return seq


def _append_one(conn: Connection, channel_code: str, entity_type: str, op: str, entity_id: str, version: int,
                payload: dict[str, Any] | None, reason: str | None) -> int:
    seq = conn.execute(update(channel).where(channel.c.code == channel_code)
                       .values(head_seq=channel.c.head_seq + 1).returning(channel.c.head_seq)).scalar_one()
    change: dict[str, Any] = {"type": entity_type, "op": op, "id": entity_id, "version": version}
    if op == "upsert":
        change[entity_type] = payload
    elif reason:
        change["reason"] = reason
    conn.execute(catalog_change.insert().values(
        channel=channel_code, seq=seq, type=entity_type, op=op, entity_id=entity_id, version=version,
        body=json.dumps(change, ensure_ascii=False, separators=(",", ":")), created_at=clock.now_text()))
    key = and_(channel_entity.c.channel == channel_code, channel_entity.c.type == entity_type,
               channel_entity.c.entity_id == entity_id)
    conn.execute(delete(channel_entity).where(key))
    if op == "upsert":
        conn.execute(channel_entity.insert().values(
            channel=channel_code, type=entity_type, entity_id=entity_id, version=version,
            body=json.dumps(payload, ensure_ascii=False, separators=(",", ":")), seq=seq))
    return int(seq)


def page(conn: Connection, channel_code: str, since: int, limit: int) -> tuple[list[Change], bool]:
    """Changes with seq > since, oldest first, at most `limit`; and whether more follow."""
    rows = conn.execute(select(catalog_change.c.seq, catalog_change.c.body)
                        .where(catalog_change.c.channel == channel_code, catalog_change.c.seq > since)
                        .order_by(catalog_change.c.seq).limit(limit + 1)).all()
    changes: list[Change] = []
    for row in rows[:limit]:
        change = json.loads(row.body)
        changes.append({"seq": int(row.seq), **change})  # type: ignore[typeddict-item]
    return changes, len(rows) > limit


def live(conn: Connection, channel_code: str, entity_type: str) -> list[tuple[str, int, dict[str, Any]]]:
    rows = conn.execute(select(channel_entity.c.entity_id, channel_entity.c.version, channel_entity.c.body)
                        .where(channel_entity.c.channel == channel_code, channel_entity.c.type == entity_type)
                        .order_by(channel_entity.c.entity_id)).all()
    return [(row.entity_id, int(row.version), json.loads(row.body)) for row in rows]


# The digest is cached per (database, channel, head seq): a head only ever means one live set, so the
# steady-state empty poll costs one index lookup, not a scan of every live style.
_digest_cache: dict[tuple[str, str, str, int], CatalogState] = {}
_digest_lock = threading.Lock()


def state(conn: Connection, epoch: str, channel_code: str, head_seq: int) -> CatalogState:
    key = (str(conn.engine.url), epoch, channel_code, head_seq)
    with _digest_lock:
        cached = _digest_cache.get(key)
    if cached is not None:
        return cached
    pairs = [(row.entity_id, int(row.version)) for row in conn.execute(
        select(channel_entity.c.entity_id, channel_entity.c.version)
        .where(channel_entity.c.channel == channel_code, channel_entity.c.type == "style"))]
    result: CatalogState = {"count": len(pairs), "digest": catalog_digest(pairs)}
    with _digest_lock:
        if len(_digest_cache) > 1024:
            _digest_cache.clear()
        _digest_cache[key] = result
    return result


def compact(conn: Connection, channel_code: str, below_seq: int) -> int:
    """Drop changes below `below_seq` that a newer change of the same entity supersedes, and raise min_seq
    (inside db.write). Cursors below the new horizon get 410 compacted. Returns the number of rows dropped."""
    newest = (select(catalog_change.c.type, catalog_change.c.entity_id,
                     func.max(catalog_change.c.seq).label("seq"))
              .where(catalog_change.c.channel == channel_code)
              .group_by(catalog_change.c.type, catalog_change.c.entity_id).subquery())
    keep = select(newest.c.seq)
    result = conn.execute(delete(catalog_change).where(
        catalog_change.c.channel == channel_code, catalog_change.c.seq < below_seq,
        catalog_change.c.seq.not_in(keep)))
    conn.execute(update(channel).where(channel.c.code == channel_code, channel.c.min_seq < below_seq)
                 .values(min_seq=below_seq))
    return int(result.rowcount or 0)
