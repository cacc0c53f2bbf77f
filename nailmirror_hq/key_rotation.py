"""Rotating HQ's signing key (issue #27 §5): the new key pair and its rotation record (keys.rotate), and every live
model release signed again with the new key, in one transaction.

Why the releases too: a kiosk checks a release against the one key it holds now (model_release.verify_release), and
it follows a rotation at its next hello, before it pages the feed. A release signed by the old key that reached it
after that (a widen of a rollout started before the rotation, a snapshot after a resync) would be refused. So each
slot a feed carries gets a new version with the same manifest, signed by the new key; a rollout still in canary
takes the canary feed's new version, so widening it sends the newly signed body.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Connection, update

from nailmirror_hq import audit, clock, feed, keys, model_releases, rollouts
from nailmirror_hq.schema import rollout
from nailmirror_protocol.model_release import KeyRotation


@dataclass(frozen=True)
class Rotated:
    key: keys.SigningKey
    rotation: KeyRotation
    resigned: tuple[str, ...]  # "<feed>/<slot>" of each release signed again


# permission: ops (the command line only)
def rotate(conn: Connection, kek: bytes, actor: str) -> Rotated:
    """Inside db.write."""
    new, rotation = keys.rotate(conn, kek, clock.now_text())
    resigned: list[str] = []
    for channel_code in feed.channels(conn):
        canary = feed.canary_feed(channel_code)
        for slot in sorted({s for code in (channel_code, canary) for s, _, _ in feed.live(conn, code, "model")}):
            resigned += _resign_slot(conn, new, channel_code, slot)
    audit.record(conn, actor, "KEY_ROTATE", "hq", new.public.key_id, old_key_id=rotation["old_key_id"],
                 resigned=len(resigned))
    return Rotated(new, rotation, tuple(resigned))


def _resign_slot(conn: Connection, key: keys.SigningKey, channel_code: str, slot: str) -> list[str]:
    canary = feed.canary_feed(channel_code)
    own, held = model_releases.live_release(conn, channel_code, slot), model_releases.live_release(conn, canary, slot)
    done = []
    if own is not None:
        # feed.append copies this to the canary feed too; a release the canary feed holds back follows it there.
        version = model_releases.next_version(conn, channel_code, slot)
        feed.append(conn, channel_code, model_releases.KIND, "upsert", slot, version,
                    cast(dict[str, Any], model_releases.sign(key, own["manifest"])))
        done.append(f"{channel_code}/{slot}")
    if held is not None and (own is None or held["manifest"] != own["manifest"]):
        version = model_releases.next_version(conn, channel_code, slot)
        body = cast(dict[str, Any], model_releases.sign(key, held["manifest"]))
        feed.append(conn, canary, model_releases.KIND, "upsert", slot, version, body)
        active = rollouts.active(conn, model_releases.KIND, model_releases.subject(channel_code, slot))
        if active is not None:  # widening it sends what its canary stores now have
            conn.execute(update(rollout).where(rollout.c.id == active.id).values(
                version=version, body=json.dumps(body, ensure_ascii=False)))
        done.append(f"{canary}/{slot}")
    return done
