"""Stores, their enrollment codes and their kiosks' tokens.

A store gets a one-time enrollment code (valid 24 h, single use, 80 random bits); a kiosk trades it for its own
bearer token (POST /v1/enroll). HQ keeps only the sha256 of codes and tokens, so a copy of HQ's database enrolls
nothing and authenticates nobody. Revoking a store revokes every kiosk token it has; a kiosk can be revoked alone.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import zoneinfo
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, and_, bindparam, delete, select, update

from nailmirror_hq import audit, catalog, clock, codes, feed
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import channel_canary, enroll_code, retired_token, store, store_token
from nailmirror_protocol import FEED_FORMAT
from nailmirror_protocol.errors import ErrorCode
from nailmirror_protocol.shapes import SyncReport

ENROLL_CODE_TTL = timedelta(hours=24)
ROTATION_GRACE = timedelta(hours=24)
TOKEN_PREFIX = "nmst_"
DEFAULT_CHANNEL = "all"
CHANNEL_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
DEFAULT_TIME_ZONE = "Asia/Shanghai"  # the chain's home zone: a new store's until HQ sets another


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Store:
    id: str
    name: str
    channel: str
    status: str
    created_at: str
    time_zone: str = DEFAULT_TIME_ZONE  # IANA name: the store's calendar day (hello's store_time_zone)


@dataclass(frozen=True)
class Kiosk:
    store_id: str
    kiosk_id: str
    channel: str
    # The channel and feed format of this kiosk's cursor (its last snapshot, or its enrollment).
    feed_channel: str | None = None
    feed_format: int | None = None
    time_zone: str = DEFAULT_TIME_ZONE  # the store's, read with the token: hello sends it without another query
    canary: bool = False  # the store is in its channel's canary set (rollouts.py)

    @property
    def feed(self) -> str:
        """The feed this kiosk pages and snapshots: its channel's, or the channel's canary feed."""
        return feed.canary_feed(self.channel) if self.canary else self.channel


def store_id_for(name: str) -> str:
    code = re.sub(r"[^A-Za-z0-9-]+", "-", name).strip("-").upper()[:40] or "STORE"
    return f"st_{code}"


def add_store(conn: Connection, name: str, channel_code: str, actor: str) -> tuple[Store, str]:
    """A new store and its first enrollment code (shown once)."""
    if not name.strip():
        raise HQError(400, ErrorCode.BAD_REQUEST, "a store needs a name")
    if not CHANNEL_PATTERN.match(channel_code):
        raise HQError(400, ErrorCode.BAD_REQUEST, f"bad channel code {channel_code!r} (a-z, 0-9, _ and -)")
    base = store_id_for(name)
    store_id, n = base, 1
    while get_store(conn, store_id) is not None:
        n += 1
        store_id = f"{base}-{n}"
    catalog.ensure_channel(conn, channel_code)
    now = clock.now_text()
    conn.execute(store.insert().values(id=store_id, name=name.strip(), channel=channel_code, status="ACTIVE",
                                       inbox_seq=0, created_at=now))
    audit.record(conn, actor, "STORE_ADD", "store", store_id, channel=channel_code)
    return Store(store_id, name.strip(), channel_code, "ACTIVE", now), new_enroll_code(conn, store_id, actor)


def _store(row: Any) -> Store:
    return Store(row.id, row.name, row.channel, row.status, row.created_at, row.time_zone)


def get_store(conn: Connection, store_id: str) -> Store | None:
    row = conn.execute(select(store).where(store.c.id == store_id)).one_or_none()
    return _store(row) if row else None


def list_stores(conn: Connection) -> list[Store]:
    return [_store(r) for r in conn.execute(select(store).order_by(store.c.id))]


def is_time_zone(name: str) -> bool:
    """An IANA zone this HQ's tz database knows ("Asia/Shanghai", "UTC"); never a path or a fixed offset."""
    if not name or len(name) > 64 or name.startswith("/") or ".." in name or "\\" in name:
        return False
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def store_time_zone(conn: Connection, store_id: str) -> str:
    """The store's IANA time zone (its calendar day: hello sends it to the store's kiosks; pages that show a
    store's local times use it). 404 for an unknown store."""
    found = get_store(conn, store_id)
    if found is None:
        raise not_found(f"store {store_id}")
    return found.time_zone


def set_time_zone(conn: Connection, store_id: str, name: str, actor: str) -> Store:
    """Set the store's time zone (inside db.write); its kiosks adopt it at their next sync (hello)."""
    found = get_store(conn, store_id)
    if found is None:
        raise not_found(f"store {store_id}")
    name = name.strip()
    if not is_time_zone(name):
        raise HQError(400, ErrorCode.BAD_REQUEST, f"not a time zone: {name[:64]!r} (an IANA name such as "
                                                  f"{DEFAULT_TIME_ZONE})")
    if found.time_zone == name:
        return found
    conn.execute(update(store).where(store.c.id == store_id).values(time_zone=name))
    audit.record(conn, actor, "STORE_TIME_ZONE", "store", store_id, time_zone=name, was=found.time_zone)
    return Store(found.id, found.name, found.channel, found.status, found.created_at, name)


def kiosks(conn: Connection, store_id: str) -> list[dict[str, Any]]:
    """The store's kiosks, each with its last sync report (None until it sent one) and when it came."""
    rows = conn.execute(select(store_token.c.kiosk_id, store_token.c.kiosk_name, store_token.c.created_at,
                               store_token.c.last_seen_at, store_token.c.revoked_at, store_token.c.sync_report,
                               store_token.c.sync_report_at)
                        .where(store_token.c.store_id == store_id).order_by(store_token.c.created_at))
    found = []
    for row in rows:
        kiosk = dict(row._mapping)
        kiosk["sync_report"] = json.loads(kiosk["sync_report"]) if kiosk["sync_report"] else None
        found.append(kiosk)
    return found


def save_sync_report(conn: Connection, kiosk_id: str, report: SyncReport) -> str:
    """Keep the kiosk's latest sync report (already read by nailmirror_protocol.wire); returns when it came."""
    now = clock.now_text()
    conn.execute(update(store_token).where(store_token.c.kiosk_id == kiosk_id).values(
        sync_report=json.dumps(report, ensure_ascii=False, separators=(",", ":")), sync_report_at=now))
    return now


def default_name(conn: Connection, store_id: str) -> str:
    """`<store>-<n>`: the store's code (its id without "st_") and the lowest number no kiosk of it is named."""
    base = store_id.removeprefix("st_")
    names = set(conn.execute(select(store_token.c.kiosk_name).where(store_token.c.store_id == store_id)).scalars())
    n = 1
    while f"{base}-{n}" in names:
        n += 1
    return f"{base}-{n}"


def new_enroll_code(conn: Connection, store_id: str, actor: str) -> str:
    """Another one-time code: a replacement or second PC. A revoked store becomes active again with it."""
    found = get_store(conn, store_id)
    if found is None:
        raise not_found(f"store {store_id}")
    code = codes.new_enroll_code()
    conn.execute(enroll_code.insert().values(code_sha256=sha256_text(code), store_id=store_id,
                                             created_at=clock.now_text(),
                                             expires_at=clock.now_text(ENROLL_CODE_TTL)))
    if found.status != "ACTIVE":
        conn.execute(update(store).where(store.c.id == store_id).values(status="ACTIVE"))
    audit.record(conn, actor, "ENROLL_CODE", "store", store_id)
    return code


ENROLL_REFUSED = ("this enrollment code is unknown, used or expired; ask HQ for a new one "
                  "(nailmirror-hq stores enroll-code STORE_ID)")


@dataclass(frozen=True)
class CodeCheck:
    """What a presented enrollment code is: `problem` None (it may enroll now), "unknown", "used" or "expired".
    Only HQ's log tells these apart; the kiosk gets the same answer for all three."""

    key: str
    store_id: str | None
    problem: str | None

    def refusal(self) -> HQError:
        return HQError(400, ErrorCode.ENROLL_CODE_INVALID, ENROLL_REFUSED)


def check_enroll_code(conn: Connection, code: str) -> CodeCheck:
    """Read-only, so a wrong guess is turned away without HQ's writer (the API checks here before db.write)."""
    key = sha256_text(codes.normalise_enroll_code(code))
    row = conn.execute(select(enroll_code).where(enroll_code.c.code_sha256 == key)).one_or_none()
    if row is None:
        return CodeCheck(key, None, "unknown")
    if row.used_at is not None:
        return CodeCheck(key, row.store_id, "used")
    if row.expires_at < clock.now_text():
        return CodeCheck(key, row.store_id, "expired")
    return CodeCheck(key, row.store_id, None)


def enroll(conn: Connection, code: str, kiosk_name: str, app_version: str) -> tuple[Kiosk, str]:
    """Trade a one-time code for a kiosk token (inside db.write). The token is returned once, never stored."""
    check = check_enroll_code(conn, code)
    if check.problem is not None:
        raise check.refusal()
    found = get_store(conn, check.store_id or "")
    assert found is not None
    used = conn.execute(update(enroll_code).where(enroll_code.c.code_sha256 == check.key,
                                                  enroll_code.c.used_at.is_(None))
                        .values(used_at=clock.now_text()))
    if used.rowcount != 1:  # another request used it between our read and this write (PostgreSQL)
        raise check.refusal()
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    kiosk_id = "k_" + secrets.token_hex(10)
    name = " ".join(kiosk_name.split())[:60] or default_name(conn, found.id)
    conn.execute(store_token.insert().values(
        token_sha256=sha256_text(token), store_id=found.id, kiosk_id=kiosk_id, kiosk_name=name,
        app_version=app_version[:40], created_at=clock.now_text(), feed_channel=found.channel,
        feed_format=FEED_FORMAT, named_at=clock.now_text()))
    audit.record(conn, f"kiosk:{kiosk_id}", "ENROLL", "store", found.id, kiosk_name=name)
    replaces = conn.execute(select(enroll_code.c.replaces_kiosk_id)
                            .where(enroll_code.c.code_sha256 == check.key)).scalar_one()
    if replaces:
        # A replacement PC's code (fleet.replacement_code): the old PC is revoked in this same transaction, so
        # there is never a moment with both in, nor one with neither.
        revoke(conn, found.id, f"kiosk:{kiosk_id}", replaces)
    return Kiosk(found.id, kiosk_id, found.channel, found.channel, FEED_FORMAT, found.time_zone), token


def authenticate(conn: Connection, token: str | None) -> Kiosk:
    if not token:
        raise HQError(401, ErrorCode.TOKEN_MISSING, "no bearer token")
    row = conn.execute(_BY_TOKEN, {"token": sha256_text(token)}).one_or_none()
    if row is None:
        row = _retired(conn, token)
    if row is None:
        raise HQError(401, ErrorCode.TOKEN_INVALID, "unknown token; enroll this kiosk again")
    if row.revoked_at is not None:
        raise HQError(401, ErrorCode.TOKEN_REVOKED, "HQ revoked this kiosk; enroll it again")
    return Kiosk(row.store_id, row.kiosk_id, row.channel, row.feed_channel, row.feed_format, row.time_zone,
                 row.canary is not None)


def _columns() -> tuple[Any, ...]:
    return (store_token.c.store_id, store_token.c.kiosk_id, store_token.c.revoked_at, store_token.c.feed_channel,
            store_token.c.feed_format, store.c.channel, store.c.status, store.c.time_zone,
            channel_canary.c.store_id.label("canary"))


# Every request authenticates: the statement is built once (building it per call cost more than running it).
# The outer join is the store's row in its own channel's canary set, if any (an index search on its key).
_KIOSK = (select(*_columns()).join(store, store.c.id == store_token.c.store_id)
          .outerjoin(channel_canary, and_(channel_canary.c.channel == store.c.channel,
                                          channel_canary.c.store_id == store.c.id)))
_BY_TOKEN = _KIOSK.where(store_token.c.token_sha256 == bindparam("token"))


def _retired(conn: Connection, token: str) -> Any:
    """The kiosk of a token replaced by a rotation less than ROTATION_GRACE ago (revocation still applies)."""
    return conn.execute(_KIOSK
                        .join(retired_token, retired_token.c.kiosk_id == store_token.c.kiosk_id)
                        .where(retired_token.c.token_sha256 == sha256_text(token),
                               retired_token.c.valid_until > clock.now_text())).one_or_none()


def rotate(conn: Connection, kiosk: Kiosk, presented: str) -> tuple[str, str]:
    """A new token for this kiosk (inside db.write); the presented one and the current one stay valid until the
    returned time. Expired retired tokens of the kiosk are dropped here. Returns (token, old_valid_until)."""
    until = clock.now_text(ROTATION_GRACE)
    current = conn.execute(select(store_token.c.token_sha256)
                           .where(store_token.c.kiosk_id == kiosk.kiosk_id)).scalar_one()
    conn.execute(delete(retired_token).where(retired_token.c.kiosk_id == kiosk.kiosk_id,
                                             retired_token.c.valid_until <= clock.now_text()))
    for old in {current, sha256_text(presented)}:
        conn.execute(delete(retired_token).where(retired_token.c.token_sha256 == old))
        conn.execute(retired_token.insert().values(token_sha256=old, kiosk_id=kiosk.kiosk_id, valid_until=until))
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    conn.execute(update(store_token).where(store_token.c.kiosk_id == kiosk.kiosk_id)
                 .values(token_sha256=sha256_text(token)))
    audit.record(conn, f"kiosk:{kiosk.kiosk_id}", "TOKEN_ROTATE", "store", kiosk.store_id, old_valid_until=until)
    return token, until


def record_snapshot(conn: Connection, kiosk: Kiosk) -> None:
    """The kiosk took a snapshot of its feed (its store's channel, or the channel's canary feed): its next cursor
    belongs to that feed (inside db.write). Written only when it changed, so the steady state writes nothing."""
    if (kiosk.feed_channel, kiosk.feed_format) != (kiosk.feed, FEED_FORMAT):
        conn.execute(update(store_token).where(store_token.c.kiosk_id == kiosk.kiosk_id)
                     .values(feed_channel=kiosk.feed, feed_format=FEED_FORMAT))


def move_store(conn: Connection, store_id: str, channel_code: str, actor: str) -> Store:
    """Put a store on another channel (created when new). Its kiosks' cursors are for the old channel's feed,
    so their next poll answers 410 channel_changed and they replace their catalog from the new snapshot."""
    found = get_store(conn, store_id)
    if found is None:
        raise not_found(f"store {store_id}")
    if not CHANNEL_PATTERN.match(channel_code):
        raise HQError(400, ErrorCode.BAD_REQUEST, f"bad channel code {channel_code!r} (a-z, 0-9, _ and -)")
    if found.channel == channel_code:
        return found
    catalog.ensure_channel(conn, channel_code)
    conn.execute(update(store).where(store.c.id == store_id).values(channel=channel_code))
    audit.record(conn, actor, "STORE_MOVE", "store", store_id, channel=channel_code, was=found.channel)
    return Store(found.id, found.name, channel_code, found.status, found.created_at, found.time_zone)


def touch(conn: Connection, kiosk_id: str) -> None:
    conn.execute(update(store_token).where(store_token.c.kiosk_id == kiosk_id)
                 .values(last_seen_at=clock.now_text()))


def revoke(conn: Connection, store_id: str, actor: str, kiosk_id: str | None = None) -> int:
    """Revoke every token of the store (and its unused codes), or one kiosk's. Returns tokens revoked."""
    if get_store(conn, store_id) is None:
        raise not_found(f"store {store_id}")
    now = clock.now_text()
    query = update(store_token).where(store_token.c.store_id == store_id, store_token.c.revoked_at.is_(None))
    if kiosk_id:
        if not conn.execute(select(store_token.c.kiosk_id).where(store_token.c.store_id == store_id,
                                                                 store_token.c.kiosk_id == kiosk_id)).first():
            raise not_found(f"kiosk {kiosk_id} of store {store_id}")
        query = query.where(store_token.c.kiosk_id == kiosk_id)
    count = conn.execute(query.values(revoked_at=now)).rowcount
    if not kiosk_id:
        conn.execute(update(enroll_code).where(enroll_code.c.store_id == store_id, enroll_code.c.used_at.is_(None))
                     .values(used_at=now))
        conn.execute(update(store).where(store.c.id == store_id).values(status="REVOKED"))
    audit.record(conn, actor, "REVOKE", "store", store_id, kiosk_id=kiosk_id, tokens=count)
    return int(count or 0)
