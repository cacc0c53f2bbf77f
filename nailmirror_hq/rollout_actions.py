"""What an operator (or the clock) does to a style's rollout: widen it to every store, or roll the style back to
its previous published version (rollouts.py has the records and the canary sets)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, Engine, select

from nailmirror_hq import audit, catalog, clock, db, feed, rollout_report, rollouts
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
    if r.kind != "style":
        raise HQError(400, ErrorCode.BAD_REQUEST, f"rollout {rollout_id} is a {r.kind} rollout; HQ widens styles")
    row = catalog.get_style(conn, r.subject_id)
    if row is None or row.version != r.version:  # record() and set_status end a replaced rollout; never here
        raise HQError(409, ErrorCode.BAD_REQUEST, f"rollout {rollout_id}'s version is no longer the style's")
    for channel_code in catalog.target_channels(conn, row.id):
        if feed.live_version(conn, channel_code, "style", row.id) != row.version:
            catalog.send_style(conn, channel_code, row)
    rollouts.mark_widened(conn, rollout_id, actor)
    audit.record(conn, actor, "ROLLOUT_WIDEN", r.kind, r.subject_id, rollout=rollout_id, version=r.version)
    return rollouts.get(conn, rollout_id)


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
