"""How far a rollout has reached: the kiosks in its scope, and which of them show it (issue #25 point 10).

A kiosk is in scope when its store is active, on one of the subject's channels, and (while the rollout is in
canary on that channel) in the channel's canary set. It shows the rollout when its last sync report's cursor is
at or past the first change of its feed that carries the version (or a later one) and that report lists no
failed download of the version's blobs; failing when it lists one; unknown when its report carries no cursor
(a kiosk older than the cursor field: it may well show the version, HQ cannot tell, so it is not counted as
"not yet" forever); pending otherwise (not synced since, or no report yet: kiosks send one when it changes, and
the cursor is in it).

A model release (model_releases.py) is in scope on its channel the same way; a kiosk shows it only when its report
says the slot runs it (`model_slots`: a download and a verified file waiting for an idle moment are not yet), and
fails it when it rolled it back or refused it (`_model_state`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, select

from nailmirror_hq import catalog, meta, model_releases, rollouts
from nailmirror_hq.schema import catalog_change, channel_entity, store, store_token
from nailmirror_protocol.cursor import CursorError, parse_cursor

SHOWING, FAILING, PENDING, UNKNOWN = "showing", "failing", "pending", "unknown"


@dataclass(frozen=True)
class KioskReach:
    store_id: str
    kiosk_id: str
    kiosk_name: str
    state: str  # SHOWING | FAILING | PENDING | UNKNOWN
    cursor: str | None
    report_at: str | None


@dataclass(frozen=True)
class RolloutReport:
    rollout: rollouts.Rollout
    code: str  # the style's code ("" for another kind)
    in_scope: int
    showing: int
    failing: int
    pending: int
    kiosks: tuple[KioskReach, ...]
    unknown: int = 0  # kiosks whose report has no cursor (older kiosks)

    def as_json(self, *, kiosks: bool = True) -> dict[str, Any]:
        r = self.rollout
        found: dict[str, Any] = {
            "id": r.id, "kind": r.kind, "subject_id": r.subject_id, "code": self.code, "version": r.version,
            "previous_version": r.previous_version, "stage": r.stage, "held": list(r.held),
            "created_at": r.created_at, "created_by": r.created_by, "widened_at": r.widened_at,
            "widened_by": r.widened_by, "ended_at": r.ended_at, "ended_by": r.ended_by,
            "kiosks_in_scope": self.in_scope, "kiosks_showing": self.showing, "kiosks_failing": self.failing,
            "kiosks_pending": self.pending, "kiosks_unknown": self.unknown}
        if kiosks:
            found["kiosks"] = [vars(k) for k in self.kiosks]
        return found


def scope_stores(conn: Connection, r: rollouts.Rollout) -> list[str]:
    """The active stores the rollout goes to now."""
    if r.kind == model_releases.KIND:
        targets = {model_releases.parse_subject(r.subject_id)[0]}
    elif r.kind != "style" or catalog.get_style(conn, r.subject_id) is None:
        return []
    else:
        targets = set(catalog.target_channels(conn, r.subject_id))
    held = set(r.held) if r.stage == rollouts.CANARY else set()
    canary = rollouts.canary_sets(conn)
    found = []
    for row in conn.execute(select(store.c.id, store.c.channel).where(store.c.status == "ACTIVE")
                            .order_by(store.c.id)):
        if row.channel in targets and (row.channel not in held or row.id in canary.get(row.channel, [])):
            found.append(row.id)
    return found


def _carrying_seq(conn: Connection, feed_code: str, r: rollouts.Rollout) -> int | None:
    """The first seq of the feed whose change carries the rollout's version or a later one."""
    seq = conn.execute(select(func.min(catalog_change.c.seq)).where(
        catalog_change.c.channel == feed_code, catalog_change.c.type == r.kind,
        catalog_change.c.entity_id == r.subject_id, catalog_change.c.version >= r.version)).scalar_one_or_none()
    if seq is not None:
        return int(seq)
    live = conn.execute(select(channel_entity.c.seq).where(  # compacted: the live row names its change's seq
        channel_entity.c.channel == feed_code, channel_entity.c.type == r.kind,
        channel_entity.c.entity_id == r.subject_id, channel_entity.c.version >= r.version)).scalar_one_or_none()
    return int(live) if live is not None else None


def report(conn: Connection, r: rollouts.Rollout) -> RolloutReport:
    in_scope = scope_stores(conn, r)
    epoch = meta.epoch(conn)
    blobs = {str(a["sha256"]) for a in r.body.get("assets", [])}
    seqs: dict[str, int | None] = {}
    reach: list[KioskReach] = []
    rows = conn.execute(select(store_token.c.store_id, store_token.c.kiosk_id, store_token.c.kiosk_name,
                               store_token.c.feed_channel, store_token.c.sync_report, store_token.c.sync_report_at,
                               store.c.channel)
                        .join(store, store.c.id == store_token.c.store_id)
                        .where(store_token.c.store_id.in_(in_scope), store_token.c.revoked_at.is_(None))
                        .order_by(store_token.c.store_id, store_token.c.kiosk_id)).all() if in_scope else []
    for row in rows:
        sent = json.loads(row.sync_report) if row.sync_report else {}
        if r.kind == model_releases.KIND:
            state = _model_state(sent, r)
            reach.append(KioskReach(row.store_id, row.kiosk_id, row.kiosk_name, state, sent.get("cursor"),
                                    row.sync_report_at))
            continue
        failed = any(f.get("sha256") in blobs for f in sent.get("failed_downloads", []))
        cursor = sent.get("cursor")
        feed_code = row.feed_channel or row.channel
        if feed_code not in seqs:
            seqs[feed_code] = _carrying_seq(conn, feed_code, r)
        if failed:
            state = FAILING
        elif sent and "cursor" not in sent:
            state = UNKNOWN
        else:
            state = SHOWING if _past(cursor, epoch, seqs[feed_code]) else PENDING
        reach.append(KioskReach(row.store_id, row.kiosk_id, row.kiosk_name, state, cursor, row.sync_report_at))
    code = ""
    if r.kind == model_releases.KIND:
        code = str(r.body.get("manifest", {}).get("version", ""))
    elif r.kind == "style":
        style_row = catalog.get_style(conn, r.subject_id)
        code = style_row.style_code if style_row else ""
    return RolloutReport(r, code, len(reach), sum(k.state == SHOWING for k in reach),
                         sum(k.state == FAILING for k in reach), sum(k.state == PENDING for k in reach), tuple(reach),
                         sum(k.state == UNKNOWN for k in reach))


def _model_state(sent: dict[str, Any], r: rollouts.Rollout) -> str:
    """A kiosk and a model release, from the model fields of its last report: showing = running it (this release
    or a later one of the slot active), failing = it rolled this release back or refused it, unknown = a report
    without model fields (a kiosk older than releases), pending otherwise (downloading, waiting for an idle
    moment, no key yet, or no report since)."""
    if sent and "model_slots" not in sent:
        return UNKNOWN
    slot = sent.get("model_slots", {}).get(model_releases.parse_subject(r.subject_id)[1]) or {}
    release = slot.get("release")
    if not isinstance(release, int):
        return PENDING
    if slot.get("state") == "active" and release >= r.version:
        return SHOWING
    if slot.get("state") in ("rolled_back", "refused") and release == r.version:
        return FAILING
    return PENDING


def _past(cursor: object, epoch: str, seq: int | None) -> bool:
    if not isinstance(cursor, str) or seq is None:
        return False
    try:
        parsed = parse_cursor(cursor)
    except CursorError:
        return False
    return parsed.epoch == epoch and parsed.seq >= seq


def reach(conn: Connection, style_id: str) -> tuple[int, int]:
    """(stores, kiosks) a change of the style reaches: what a roll-back's confirmation names."""
    return channel_reach(conn, catalog.target_channels(conn, style_id))


def channel_reach(conn: Connection, channels: list[str]) -> tuple[int, int]:
    """(stores, kiosks) on the channels: what a change of every store's feed there reaches."""
    store_ids = list(conn.execute(select(store.c.id).where(store.c.status == "ACTIVE",
                                                           store.c.channel.in_(channels))).scalars())
    kiosks = conn.execute(select(func.count()).select_from(store_token).where(
        store_token.c.store_id.in_(store_ids), store_token.c.revoked_at.is_(None))).scalar_one() if store_ids else 0
    return len(store_ids), int(kiosks)
