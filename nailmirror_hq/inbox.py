"""The per-store inbox: what HQ tells one store about its own drafts (received, approved, rejected) and the
credits it grants it (credits.grant, written by credits.grant in the grant's transaction).

seq counts per store (store.inbox_seq, bumped inside db.write, the same single writer as the feed).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, select, update

from nailmirror_hq import clock
from nailmirror_hq.schema import store, store_event
from nailmirror_protocol.shapes import CREDITS_GRANT, InboxEvent

# Every event type a store's inbox carries (hello declares them in capabilities.inbox_events).
EVENT_TYPES = ("draft.received", "draft.decision", CREDITS_GRANT)


def append(conn: Connection, store_id: str, event_type: str, **fields: Any) -> int:
    seq = conn.execute(update(store).where(store.c.id == store_id).values(inbox_seq=store.c.inbox_seq + 1)
                       .returning(store.c.inbox_seq)).scalar_one()
    now = clock.now_text()
    body = {"type": event_type, "at": now, **fields}
    conn.execute(store_event.insert().values(store_id=store_id, seq=seq, type=event_type,
                                             body=json.dumps(body, ensure_ascii=False), created_at=now))
    return int(seq)


def head(conn: Connection, store_id: str) -> int:
    return int(conn.execute(select(store.c.inbox_seq).where(store.c.id == store_id)).scalar_one())


def page(conn: Connection, store_id: str, since: int, limit: int) -> tuple[list[InboxEvent], bool]:
    rows = conn.execute(select(store_event.c.seq, store_event.c.body)
                        .where(store_event.c.store_id == store_id, store_event.c.seq > since)
                        .order_by(store_event.c.seq).limit(limit + 1)).all()
    events: list[InboxEvent] = [{"seq": int(r.seq), **json.loads(r.body)}  # type: ignore[typeddict-item]
                                for r in rows[:limit]]
    return events, len(rows) > limit
