"""What an operator (or the clock) does to a rollout: widen it to every store, or roll its subject back to what
every store had before (rollouts.py has the records and the canary sets). Subjects are styles and model releases
(model_releases.py: a slot of a channel); both ride the feed, so both widen and roll back the same way."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Connection, Engine, select

from nailmirror_hq import audit, catalog, clock, db, feed, keys, model_releases, rollout_report, rollouts
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import rollout
from nailmirror_protocol.errors import ErrorCode

AUTO_ACTOR = "auto:no_failures"
DEFAULT_CANARY_PERIOD = timedelta(hours=24)


# permission: publish_rollouts
def widen(conn: Connection, rollout_id: int, actor: str) -> rollouts.Rollout:
    """Send a rollout in canary to every store of its channels (inside db.write): the version goes to the own
    feed of each channel that lacks it (the held ones, and any channel made since); a canary feed already has it,
    so canary kiosks see no change."""
    r = rollouts.get(conn, rollout_id)
    if r.stage != rollouts.CANARY:
        raise HQError(409, ErrorCode.BAD_REQUEST, f"rollout {rollout_id} is {r.stage}: only one in canary widens")
    if r.kind == model_releases.KIND:
        _widen_model(conn, r)
    elif r.kind == "style":
        _widen_style(conn, r)
    else:
        raise HQError(400, ErrorCode.BAD_REQUEST, f"rollout {rollout_id} is a {r.kind} rollout; HQ widens styles "
                                                  "and models")
    rollouts.mark_widened(conn, rollout_id, actor)
    audit.record(conn, actor, "ROLLOUT_WIDEN", r.kind, r.subject_id, rollout=rollout_id, version=r.version)
    return rollouts.get(conn, rollout_id)


def _widen_style(conn: Connection, r: rollouts.Rollout) -> None:
    rollout_id = r.id
    row = catalog.get_style(conn, r.subject_id)
    if row is None or row.version != r.version:  # record() and set_status end a replaced rollout; never here
        raise HQError(409, ErrorCode.BAD_REQUEST, f"rollout {rollout_id}'s version is no longer the style's")
    for channel_code in catalog.target_channels(conn, row.id):
        if feed.live_version(conn, channel_code, "style", row.id) != row.version:
            catalog.send_style(conn, channel_code, row)


def _widen_model(conn: Connection, r: rollouts.Rollout) -> None:
    """The release goes to the channel's own feed; its canary feed has it already, so canary kiosks see nothing."""
    channel_code, slot = model_releases.parse_subject(r.subject_id)
    if feed.live_version(conn, feed.canary_feed(channel_code), model_releases.KIND, slot) != r.version:
        raise HQError(409, ErrorCode.BAD_REQUEST, f"rollout {r.id}'s release is no longer the {slot} slot's on "
                                                  f"channel {channel_code}")
    if feed.live_version(conn, channel_code, model_releases.KIND, slot) != r.version:
        feed.append(conn, channel_code, model_releases.KIND, "upsert", slot, r.version, r.body)


# permission: publish_rollouts
def rollback(conn: Connection, style_id: str, actor: str) -> tuple[catalog.StyleRow, rollouts.Rollout]:
    """Make the style's previous published version current again for every store (inside db.write): a new
    version with that body (kiosks only take versions that go up), sent to every channel it goes to, canary feeds
    included; the rollout it undoes ends ROLLED_BACK. Returns the new row and that rollout."""
    row = catalog.get_style(conn, style_id)
    if row is None:
        raise not_found(f"style {style_id}")
    if row.status not in catalog.LIVE_STATUSES:
        raise HQError(409, ErrorCode.BAD_REQUEST, f"style {row.style_code} is {row.status}: nothing is shown to "
                                                  "roll back")
    undone = rollouts.latest_live(conn, "style", style_id)
    if undone is None or undone.previous_body is None:
        raise HQError(409, ErrorCode.BAD_REQUEST, f"style {row.style_code} has no earlier published version to "
                                                  "roll back to")
    body = {**undone.previous_body, "style_code": row.style_code, "status": row.body.get("status", row.status)}
    saved = catalog.save_version(conn, row, body)  # type: ignore[arg-type]
    for channel_code in catalog.target_channels(conn, style_id):
        catalog.send_style(conn, channel_code, saved)
    rollouts.end(conn, "style", style_id, rollouts.ROLLED_BACK, actor, rollout_id=undone.id)
    audit.record(conn, actor, "STYLE_ROLLBACK", "style", style_id, version=saved.version, rollout=undone.id,
                 restored=undone.previous_version)
    return saved, rollouts.get(conn, undone.id)


# permission: publish_rollouts
def roll_back(conn: Connection, rollout_id: int, kek: bytes | None, actor: str) -> rollouts.Rollout:
    """Undo rollout `rollout_id` (inside db.write), as the Rollouts page and `rollouts rollback` ask: only the
    newest live rollout of its subject (a stale page or an older id is refused, 409 not_latest, naming the newest),
    a style by `rollback`, a model slot by `rollback_model` signed with the key as it is now in the database
    (another HQ process may have rotated it; `kek` unseals it). Returns the rollout as it ended."""
    r = rollouts.get(conn, rollout_id)
    latest = rollouts.latest_live(conn, r.kind, r.subject_id)
    if latest is None or latest.id != r.id:
        raise HQError(409, "not_latest", f"rollout {r.id} is not the newest live one of {r.subject_id}: roll back "
                                         f"{'nothing' if latest is None else f'rollout {latest.id}'} instead")
    if r.kind == model_releases.KIND:
        key = keys.ensure_key(conn, kek or b"", clock.now_text())
        channel_code, slot = model_releases.parse_subject(r.subject_id)
        rollback_model(conn, key, channel_code, slot, actor)
    else:
        rollback(conn, r.subject_id, actor)
    return rollouts.get(conn, r.id)


# permission: publish_rollouts
def rollback_model(conn: Connection, key: keys.SigningKey, channel_code: str, slot: str,
                   actor: str) -> tuple[int, rollouts.Rollout]:
    """Give the slot of the channel back the release every store had before its newest one (inside db.write): a
    new version carrying that release's manifest, signed again with HQ's current `key` (a kiosk that followed a
    key rotation verifies with the new key only), or a delete (back to the bundled model) when there was none.
    Sent to the channel's own feed and so to its canary feed; the rollout it undoes ends ROLLED_BACK. Returns the
    new version and that rollout."""
    subject_id = model_releases.subject(channel_code, slot)
    undone = rollouts.latest_live(conn, model_releases.KIND, subject_id)
    canary = feed.canary_feed(channel_code)
    if undone is None or all(feed.live_version(conn, code, model_releases.KIND, slot) is None
                             for code in (channel_code, canary)):
        raise HQError(409, ErrorCode.BAD_REQUEST, f"no release of the {slot} slot on channel {channel_code} to "
                                                  "roll back")
    version = model_releases.next_version(conn, channel_code, slot)
    if undone.previous_body is not None:
        manifest = cast(Any, undone.previous_body)["manifest"]
        body = cast(dict[str, Any], model_releases.sign(key, manifest))
        # A release held in canary never reached the rest of the channel: they run `body` already (the same
        # signature: ed25519 is deterministic), so only the canary stores get a change, not a pointless re-switch.
        if model_releases.live_release(conn, channel_code, slot) != body:
            feed.append(conn, channel_code, model_releases.KIND, "upsert", slot, version, body)  # and its canary feed
        elif model_releases.live_release(conn, canary, slot) not in (None, body):
            feed.append(conn, canary, model_releases.KIND, "upsert", slot, version, body)
    else:
        for code in (channel_code, canary):
            if feed.live_version(conn, code, model_releases.KIND, slot) is not None:
                feed.append(conn, code, model_releases.KIND, "delete", slot, version, reason="ROLLED_BACK")
    rollouts.end(conn, model_releases.KIND, subject_id, rollouts.ROLLED_BACK, actor, rollout_id=undone.id)
    audit.record(conn, actor, "MODEL_ROLLBACK", model_releases.KIND, subject_id, version=version,
                 rollout=undone.id, restored=undone.previous_version)
    return version, rollouts.get(conn, undone.id)


def due(conn: Connection, period: timedelta, now: datetime | None = None) -> list[int]:
    """Rollouts in canary for at least `period` (one index range on rollout_by_stage)."""
    cutoff = clock.to_text((now or datetime.now(UTC)) - period)
    return [int(i) for i in conn.execute(select(rollout.c.id).where(
        rollout.c.stage == rollouts.CANARY, rollout.c.created_at <= cutoff).order_by(rollout.c.id)).scalars()]


def auto_widen(engine: Engine, period: timedelta = DEFAULT_CANARY_PERIOD,
               now: datetime | None = None) -> dict[int, str]:
    """Widen every rollout that has been in canary for `period` with no failed download of its blobs reported by a
    kiosk it reached; one read when none is due (run by the maintenance scheduler every tick). `now`: the clock
    seam. Returns {rollout id: "widened" | "held: N kiosk(s) failing"}."""
    with db.read(engine) as conn:
        if not due(conn, period, now):
            return {}
    decided: dict[int, str] = {}
    with db.write(engine) as conn:
        for rollout_id in due(conn, period, now):
            failing = rollout_report.report(conn, rollouts.get(conn, rollout_id)).failing
            if failing:
                decided[rollout_id] = f"held: {failing} kiosk(s) failing"
                continue
            widen(conn, rollout_id, AUTO_ACTOR)
            decided[rollout_id] = "widened"
    return decided
