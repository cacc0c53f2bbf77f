"""HQ's "model" changes and snapshot `models`, read into the release table (issue #27 §5).

Called by core/sync/apply.py inside the transaction that moves the feed's cursor, so a release is recorded exactly
when the page that carried it is. An upsert is checked before anything is fetched: the key that signed it must be
the pinned one, the signature must verify, the manifest must be for the slot the change names, and a slot this
kiosk runs must get a model of the shape it feeds (`RUN_SHAPES`); a failure is recorded "refused" with one line.
A delete falls back to the bundled model whatever the signing state: it can only take trust away.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from typing import Any

from nailmirror_desktop.core.model_releases import store
from nailmirror_desktop.core.model_releases.keys import OK
from nailmirror_protocol.model_release import SLOTS, HQKey, ModelRelease, Verifier, verify_release
from nailmirror_protocol.shapes import SnapshotModel

log = logging.getLogger(__name__)

# What the kiosk's segmenter feeds and reads (vision/nails/nail_segmenter.py): per-nail ROIs in, logits out.
_ROI_IN = [{"name": "roi", "shape": [-1, 3, 64, 64], "dtype": "float32"}]
_LOGITS_OUT = [{"name": "logits", "shape": [-1, 1, 64, 64], "dtype": "float32"}]
RUN_SHAPES: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "live": (_ROI_IN, _LOGITS_OUT), "still": (_ROI_IN, _LOGITS_OUT)}


@dataclass(frozen=True)
class ReleaseGate:
    """What a cycle checks releases with: the signing state after hello, the pinned key (None unless "ok") and
    the signature check (the adapter's ed25519)."""

    signing: str
    key: HQKey | None = None
    verify: Verifier | None = None

    @property
    def open(self) -> bool:
        return self.signing == OK and self.key is not None and self.verify is not None


CLOSED = ReleaseGate("no_key")  # a cycle that cannot verify: releases are ignored


def refusal(gate: ReleaseGate, slot: str, release: ModelRelease) -> str | None:
    """Why the release cannot be taken (one line), or None."""
    assert gate.key is not None and gate.verify is not None
    manifest = release["manifest"]
    if release["key_id"] != gate.key["key_id"]:
        return f"signed by key {release['key_id']}, not the pinned key {gate.key['key_id']}"
    if not verify_release(gate.key, release, gate.verify):
        return "signature does not verify with HQ's pinned key"
    if manifest["slot"] != slot:
        return f"manifest is for slot {manifest['slot']}, the change for slot {slot}"
    expected = RUN_SHAPES.get(slot)
    if expected is not None and (list(manifest["inputs"]), list(manifest["outputs"])) != expected:
        return f"model shapes do not fit slot {slot}: needs roi float32 [-1,3,64,64] -> logits [-1,1,64,64]"
    return None


def offer(conn: sqlite3.Connection, gate: ReleaseGate, slot: str, release_no: int, release: ModelRelease) -> int:
    """An upsert of `slot`: recorded (then fetched by MODEL_FETCH) or refused; ignored while the gate is shut.
    Returns 1 when recorded (refused included), 0 when ignored."""
    if slot not in SLOTS:
        return 0
    if not gate.open:
        log.info("model release %s/%d ignored: HQ's key is %s here", slot, release_no, gate.signing)
        return 0
    known = store.get(conn, slot, release_no)
    if known is not None and known.manifest == dict(release["manifest"]):
        return 0  # a replayed page or a resync: the release keeps the state it reached
    why = refusal(gate, slot, release)
    store.record_offered(conn, slot, release_no, release["manifest"])
    if why is not None:
        store.mark_refused(conn, slot, release_no, why)
        log.warning("model release %s/%d refused: %s", slot, release_no, why)
    return 1


def withdraw(conn: sqlite3.Connection, slot: str, release_no: int | None = None) -> int:
    """A delete of `slot` (feed version `release_no`; None from a snapshot): a delete older than a release the
    kiosk already holds is stale and changes nothing."""
    held = store.rows(conn, slot) if slot in SLOTS else []
    if not held or (release_no is not None and held[0].release > release_no):
        return 0
    store.withdraw_slot(conn, slot)
    log.info("model release for slot %s withdrawn by HQ: the bundled model serves again", slot)
    return 1


def replace_from_snapshot(conn: sqlite3.Connection, gate: ReleaseGate, models: list[SnapshotModel] | None) -> int:
    """A snapshot replace: each listed release offered, each slot it lists none for withdrawn, and releases
    numbered after a listed one forgotten (a restored HQ's lost history; otherwise a release it serves again
    under a lower number would never be newer than the one held). An HQ from before releases sends no `models`
    at all: then nothing here changes."""
    if models is None:
        return 0
    changed = 0
    listed = {m["id"] for m in models}
    for slot in SLOTS:
        if slot not in listed:
            changed += withdraw(conn, slot)
    for model in models:
        changed += store.forget_after(conn, model["id"], model["version"])
        changed += offer(conn, gate, model["id"], model["version"], model["model"])
    return changed
