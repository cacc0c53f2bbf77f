"""Staged publishing: each channel's canary stores, and a rollout record per publish (issue #25 point 10).

A channel with canary stores gets a canary feed ("~" + its code, feed.py) the moment its first canary store is
added: a copy of the channel's live set, then every later change of the channel. A publish on such a channel
goes to the canary feed alone (the rollout is CANARY and `held` names the channel); widening appends the same
version to the channel's own feed, which its canary stores already have, so only the others see a change. A
channel without canary stores publishes to every store at once (the rollout is WIDENED from the start), as before.

Which feed a kiosk reads is decided when it authenticates (stores.authenticate joins channel_canary), so joining
or leaving a canary set is a change of feed: the kiosk's next poll answers 410 channel_changed and it replaces
HQ's rows from the snapshot of its new feed. A store taken out of the canary set thus goes back to what the rest
of its channel shows (the kiosk's snapshot replace takes HQ's version even when lower); it never keeps a version
its channel does not carry.

Records are generic (`kind` style or model, a subject id, a version) so model releases roll out the same way.
Actions here are the records' own; the style side (send, widen, roll back) is in rollout_actions.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, delete, insert, select, update

from nailmirror_hq import audit, clock, feed
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import channel, channel_canary, channel_entity, rollout, store
from nailmirror_protocol.errors import ErrorCode

CANARY, WIDENED, ROLLED_BACK, SUPERSEDED = "CANARY", "WIDENED", "ROLLED_BACK", "SUPERSEDED"
STAGES = (CANARY, WIDENED, ROLLED_BACK, SUPERSEDED)
KINDS = ("style", "model")


@dataclass(frozen=True)
class Rollout:
    id: int
    kind: str
    subject_id: str
    version: int
    body: dict[str, Any]
    previous_version: int | None
    previous_body: dict[str, Any] | None
    held: tuple[str, ...]  # channels whose canary feed alone carried it while CANARY
    stage: str
    created_at: str
    created_by: str
    widened_at: str | None
    widened_by: str | None
    ended_at: str | None
    ended_by: str | None


def _row(r: Any) -> Rollout:
    return Rollout(int(r.id), r.kind, r.subject_id, int(r.version), json.loads(r.body), r.previous_version,
                   json.loads(r.previous_body) if r.previous_body else None, tuple(json.loads(r.held)), r.stage,
                   r.created_at, r.created_by, r.widened_at, r.widened_by, r.ended_at, r.ended_by)


def get(conn: Connection, rollout_id: int) -> Rollout:
    r = conn.execute(select(rollout).where(rollout.c.id == rollout_id)).one_or_none()
    if r is None:
        raise not_found(f"rollout {rollout_id}")
    return _row(r)


def list_rollouts(conn: Connection, *, stage: str | None = None, subject_id: str | None = None,
                  limit: int = 200) -> list[Rollout]:
    """Newest first."""
    query = select(rollout).order_by(rollout.c.id.desc()).limit(limit)
    if stage:
        query = query.where(rollout.c.stage == stage)
    if subject_id:
        query = query.where(rollout.c.subject_id == subject_id)
    return [_row(r) for r in conn.execute(query)]


def active(conn: Connection, kind: str, subject_id: str) -> Rollout | None:
    """The subject's rollout still in its canary stage, if any (at most one: a new one supersedes it)."""
    r = conn.execute(select(rollout).where(rollout.c.kind == kind, rollout.c.subject_id == subject_id,
                                           rollout.c.stage == CANARY)
                     .order_by(rollout.c.id.desc()).limit(1)).one_or_none()
    return _row(r) if r else None


def latest_live(conn: Connection, kind: str, subject_id: str) -> Rollout | None:
    """The subject's newest rollout still standing (CANARY or WIDENED): what a roll-back undoes."""
    r = conn.execute(select(rollout).where(rollout.c.kind == kind, rollout.c.subject_id == subject_id,
                                           rollout.c.stage.in_((CANARY, WIDENED)))
                     .order_by(rollout.c.id.desc()).limit(1)).one_or_none()
    return _row(r) if r else None


def record(conn: Connection, kind: str, subject_id: str, version: int, body: dict[str, Any],
           previous: tuple[int, dict[str, Any]] | None, held: list[str], actor: str) -> int:
    """A new rollout (inside db.write): CANARY when some channel holds it back, else WIDENED at once. A rollout of
    the same subject still in canary is superseded by it."""
    now = clock.now_text()
    end(conn, kind, subject_id, SUPERSEDED, actor)
    values: dict[str, Any] = {
        "kind": kind, "subject_id": subject_id, "version": version,
        "body": json.dumps(body, ensure_ascii=False), "held": json.dumps(sorted(held)),
        "previous_version": previous[0] if previous else None,
        "previous_body": json.dumps(previous[1], ensure_ascii=False) if previous else None,
        "stage": CANARY if held else WIDENED, "created_at": now, "created_by": actor}
    if not held:
        values.update(widened_at=now, widened_by=actor)
    rollout_id = conn.execute(insert(rollout).values(**values).returning(rollout.c.id)).scalar_one()
    audit.record(conn, actor, "ROLLOUT_START", kind, subject_id, rollout=int(rollout_id), version=version,
                 held=sorted(held) or None)
    return int(rollout_id)


def mark_widened(conn: Connection, rollout_id: int, actor: str) -> None:
    conn.execute(update(rollout).where(rollout.c.id == rollout_id, rollout.c.stage == CANARY)
                 .values(stage=WIDENED, widened_at=clock.now_text(), widened_by=actor))


def end(conn: Connection, kind: str, subject_id: str, stage: str, actor: str, *,
        rollout_id: int | None = None) -> None:
    """End the subject's CANARY rollout (or the given one) as ROLLED_BACK or SUPERSEDED."""
    query = update(rollout).where(rollout.c.kind == kind, rollout.c.subject_id == subject_id)
    query = query.where(rollout.c.id == rollout_id) if rollout_id is not None else query.where(
        rollout.c.stage == CANARY)
    conn.execute(query.values(stage=stage, ended_at=clock.now_text(), ended_by=actor))


# --- canary sets -------------------------------------------------------------------------------------------

def canary_stores(conn: Connection, channel_code: str) -> list[str]:
    """The channel's canary stores (only those still on the channel: a store that moved left the set)."""
    return list(conn.execute(
        select(channel_canary.c.store_id).join(store, store.c.id == channel_canary.c.store_id)
        .where(channel_canary.c.channel == channel_code, store.c.channel == channel_code)
        .order_by(channel_canary.c.store_id)).scalars())


def canary_sets(conn: Connection) -> dict[str, list[str]]:
    """Every channel with canary stores: its stores."""
    found: dict[str, list[str]] = {}
    for row in conn.execute(select(channel_canary.c.channel, channel_canary.c.store_id)
                            .join(store, and_(store.c.id == channel_canary.c.store_id,
                                              store.c.channel == channel_canary.c.channel))
                            .order_by(channel_canary.c.channel, channel_canary.c.store_id)):
        found.setdefault(row.channel, []).append(row.store_id)
    return found


def holding(conn: Connection, channel_codes: list[str]) -> list[str]:
    """Those of the channels a publish now goes to the canary stores of first."""
    return [code for code in channel_codes if canary_stores(conn, code)]


# permission: publish_rollouts
def add_canary(conn: Connection, channel_code: str, store_id: str, actor: str) -> list[str]:
    """Put a store of the channel in its canary set (inside db.write); the set after."""
    _check_member(conn, channel_code, store_id)
    _ensure_canary_feed(conn, channel_code)
    key = and_(channel_canary.c.channel == channel_code, channel_canary.c.store_id == store_id)
    if conn.execute(select(channel_canary.c.store_id).where(key)).first() is None:
        conn.execute(channel_canary.insert().values(channel=channel_code, store_id=store_id,
                                                    added_at=clock.now_text()))
        audit.record(conn, actor, "CANARY_ADD", "store", store_id, channel=channel_code)
    return canary_stores(conn, channel_code)


# permission: publish_rollouts
def remove_canary(conn: Connection, channel_code: str, store_id: str, actor: str) -> list[str]:
    """Take a store out of the canary set (inside db.write): its kiosks go back to the channel's own feed by a
    snapshot, so they show what the rest of the channel shows. The set after."""
    if feed.head(conn, channel_code) is None or channel_code.startswith(feed.CANARY_PREFIX):
        raise not_found(f"channel {channel_code}")
    gone = conn.execute(delete(channel_canary).where(channel_canary.c.channel == channel_code,
                                                     channel_canary.c.store_id == store_id)).rowcount
    if not gone:
        raise HQError(404, ErrorCode.NOT_FOUND, f"store {store_id} is not a canary store of channel {channel_code}")
    audit.record(conn, actor, "CANARY_REMOVE", "store", store_id, channel=channel_code)
    return canary_stores(conn, channel_code)


def _check_member(conn: Connection, channel_code: str, store_id: str) -> None:
    if feed.head(conn, channel_code) is None or channel_code.startswith(feed.CANARY_PREFIX):
        raise not_found(f"channel {channel_code}")
    on = conn.execute(select(store.c.channel).where(store.c.id == store_id)).scalar_one_or_none()
    if on is None:
        raise not_found(f"store {store_id}")
    if on != channel_code:
        raise HQError(400, ErrorCode.BAD_REQUEST, f"store {store_id} is on channel {on}, not {channel_code}")


def _ensure_canary_feed(conn: Connection, channel_code: str) -> None:
    """The channel's canary feed, made once as a copy of the channel's live set in the channel's own order; from
    then on feed.append keeps it following the channel."""
    code = feed.canary_feed(channel_code)
    if feed.head(conn, code) is not None:
        return
    conn.execute(channel.insert().values(code=code, head_seq=0, min_seq=0, created_at=clock.now_text()))
    rows = conn.execute(select(channel_entity.c.type, channel_entity.c.entity_id, channel_entity.c.version,
                               channel_entity.c.body).where(channel_entity.c.channel == channel_code)
                        .order_by(channel_entity.c.seq)).all()
    for row in rows:
        feed.append(conn, code, row.type, "upsert", row.entity_id, int(row.version), json.loads(row.body))
