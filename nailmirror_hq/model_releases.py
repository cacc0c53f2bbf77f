"""HQ's side of shipping a nail model (issue #27 §5–§6): a signed release in a channel's feed, staged like a style.

A release is a feed change of type "model" whose id is the slot it fills and whose version is HQ's release number
for that slot on that channel (nailmirror_protocol/model_release.py). `publish` builds the manifest of a model file
already in the catalog blob store (kiosks fetch it with GET /v1/blobs/{sha256}), signs it with HQ's current key
and appends the change the way a style's publish goes: to the channel's canary feed alone while the channel has
canary stores (rollouts.py), else to every store. Widening and rolling back are rollout_actions.py's, as for
styles. A release is fully described by the feed and its rollout record: no table of its own.

The rollout record's subject is "<channel>/<slot>" (`subject`): a slot is filled per channel, and one channel's
new release never supersedes another channel's.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Connection, Engine, func, select

from nailmirror_hq import audit, catalog, clock, db, feed, keys, rollouts
from nailmirror_hq.blobs import BlobStore
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import blob, catalog_change, rollout
from nailmirror_protocol.canonical import is_sha256_hex
from nailmirror_protocol.errors import ErrorCode
from nailmirror_protocol.model_release import (
    MODEL_MAX_BYTES,
    MODEL_RELEASE_PURPOSE,
    SLOTS,
    ModelManifest,
    ModelRelease,
    TensorSpec,
    manifest_payload,
    model_version_name,
)
from nailmirror_protocol.shapes import SnapshotModel
from nailmirror_protocol.wire import ID_PATTERN

KIND = "model"
MODEL_FORMAT = "ONNX"  # the blob row's format: not an image, so served as application/octet-stream
_TENSOR_NAME = re.compile(r"^.{1,64}$", re.DOTALL)
_TENSORS_MAX = 8  # what wire.py reads of a manifest's inputs and outputs


@dataclass(frozen=True)
class PublishedRelease:
    slot: str
    channel: str
    version: int  # the feed version: HQ's release number for the slot on the channel
    rollout_id: int
    stage: str  # rollouts.CANARY while the channel's canary stores alone have it, else WIDENED
    manifest: ModelManifest


def subject(channel_code: str, slot: str) -> str:
    """The rollout record's subject id for a slot of a channel."""
    return f"{channel_code}/{slot}"


def parse_subject(subject_id: str) -> tuple[str, str]:
    channel_code, _, slot = subject_id.partition("/")
    return channel_code, slot


def sign(key: keys.SigningKey, manifest: ModelManifest) -> ModelRelease:
    return {"manifest": manifest, "signature": key.sign(MODEL_RELEASE_PURPOSE, manifest_payload(manifest)),
            "key_id": key.public.key_id}


# permission: publish_rollouts
def publish(conn: Connection, key: keys.SigningKey, *, channel_code: str, name: str, slot: str, sha256: str,
            size: int, inputs: list[TensorSpec], outputs: list[TensorSpec], gate_report_id: str,
            threshold: float | None, actor: str) -> PublishedRelease:
    """Release the model file `sha256` (already a catalog blob of `size` bytes) in `slot` of `channel_code`
    (inside db.write). Bad input raises HQError with one line; nothing is written then."""
    _check_channel(conn, channel_code)
    _check_slot(slot)
    _check_blob(conn, sha256, size)
    manifest: ModelManifest = {
        "name": _checked_id("name", name, 64), "version": model_version_name(name, sha256),
        "slot": slot,  # type: ignore[typeddict-item]  # checked against SLOTS above
        "sha256": sha256, "size": size,
        "inputs": _tensors("inputs", inputs), "outputs": _tensors("outputs", outputs),
        "gate_report_id": _checked_id("gate_report_id", gate_report_id, 128), "created_at": clock.now_text()}
    if threshold is not None:
        if not 0 < threshold < 1:
            raise _bad(f"threshold must be between 0 and 1, not {threshold}")
        manifest["threshold"] = float(threshold)
    release = sign(key, manifest)
    version = next_version(conn, channel_code, slot)
    previous = _shown(conn, channel_code, slot)
    held = rollouts.holding(conn, [channel_code])
    target = feed.canary_feed(channel_code) if held else channel_code
    feed.append(conn, target, KIND, "upsert", slot, version, cast(dict[str, Any], release))
    rollout_id = rollouts.record(conn, KIND, subject(channel_code, slot), version, cast(dict[str, Any], release),
                                 previous, held, actor)
    audit.record(conn, actor, "MODEL_RELEASE", KIND, subject(channel_code, slot), version=version,
                 model=manifest["version"], rollout=rollout_id, channel=channel_code)
    return PublishedRelease(slot, channel_code, version, rollout_id, rollouts.get(conn, rollout_id).stage, manifest)


# permission: publish_rollouts
def withdraw(conn: Connection, *, channel_code: str, slot: str, actor: str) -> bool:
    """Withdraw the slot's release on the channel (inside db.write): a "model" delete in every feed of the channel
    that carries one, so its kiosks go back to their bundled model. False when no release was there."""
    _check_channel(conn, channel_code)
    _check_slot(slot)
    canary = feed.canary_feed(channel_code)
    if (feed.live_version(conn, channel_code, KIND, slot) is None
            and feed.live_version(conn, canary, KIND, slot) is None):
        return False
    version = next_version(conn, channel_code, slot)
    if feed.live_version(conn, channel_code, KIND, slot) is not None:
        feed.append(conn, channel_code, KIND, "delete", slot, version, reason="WITHDRAWN")  # its canary feed too
    if feed.live_version(conn, canary, KIND, slot) is not None:  # a release its canary stores alone had
        feed.append(conn, canary, KIND, "delete", slot, version, reason="WITHDRAWN")
    rollouts.end(conn, KIND, subject(channel_code, slot), rollouts.SUPERSEDED, actor)
    audit.record(conn, actor, "MODEL_WITHDRAW", KIND, subject(channel_code, slot), version=version,
                 channel=channel_code)
    return True


def store_model_file(engine: Engine, blobs: BlobStore, path: Path) -> tuple[str, int]:
    """Put a model file in the catalog blob store (where kiosks fetch it) and record its row; returns (sha256,
    size). The bytes go in before the row names them, as for any catalog blob."""
    data = path.read_bytes()
    if not 0 < len(data) <= MODEL_MAX_BYTES:
        raise _bad(f"{path.name}: a model file is 1 to {MODEL_MAX_BYTES} bytes, not {len(data)}")
    sha256 = hashlib.sha256(data).hexdigest()
    catalog.store_blob(blobs, data, sha256)
    with db.write(engine) as conn:
        catalog.record_blob(conn, sha256, len(data), MODEL_FORMAT, 0, 0)
    return sha256, len(data)


def next_version(conn: Connection, channel_code: str, slot: str) -> int:
    """One more than any version the slot ever had on the channel or its canary feed (kiosks take only versions
    that go up; compaction keeps each entity's newest change, so the maximum survives it)."""
    in_feed = conn.execute(select(func.max(catalog_change.c.version)).where(
        catalog_change.c.channel.in_((channel_code, feed.canary_feed(channel_code))),
        catalog_change.c.type == KIND, catalog_change.c.entity_id == slot)).scalar_one_or_none()
    recorded = conn.execute(select(func.max(rollout.c.version)).where(
        rollout.c.kind == KIND, rollout.c.subject_id == subject(channel_code, slot))).scalar_one_or_none()
    return max(int(in_feed or 0), int(recorded or 0)) + 1


def live_models(conn: Connection, feed_code: str) -> list[SnapshotModel]:
    """The feed's live releases, for the snapshot (so a kiosk resyncing from one keeps its release)."""
    return [{"id": slot, "version": version, "model": cast(ModelRelease, body)}
            for slot, version, body in feed.live(conn, feed_code, KIND)]


def live_release(conn: Connection, feed_code: str, slot: str) -> dict[str, Any] | None:
    """The release body the feed carries in the slot now, if any."""
    return next((body for s, _, body in feed.live(conn, feed_code, KIND) if s == slot), None)


def _shown(conn: Connection, channel_code: str, slot: str) -> tuple[int, dict[str, Any]] | None:
    """What the rest of the channel runs now (its own feed: a release held in canary is not in it), which a roll
    back of this release brings back."""
    for slot_id, version, body in feed.live(conn, channel_code, KIND):
        if slot_id == slot:
            return version, body
    return None


def _check_channel(conn: Connection, channel_code: str) -> None:
    if channel_code.startswith(feed.CANARY_PREFIX) or feed.head(conn, channel_code) is None:
        raise not_found(f"channel {channel_code}")


def _check_slot(slot: str) -> None:
    if slot not in SLOTS:
        raise _bad(f"slot {slot!r} is not one of {', '.join(SLOTS)}")


def _check_blob(conn: Connection, sha256: str, size: int) -> None:
    if not is_sha256_hex(sha256):
        raise _bad("a model file is named by its lower-case sha256")
    if not 0 < size <= MODEL_MAX_BYTES:
        raise _bad(f"a model file is 1 to {MODEL_MAX_BYTES} bytes, not {size}")
    stored = conn.execute(select(blob.c.size).where(blob.c.sha256 == sha256)).scalar_one_or_none()
    if stored is None:
        raise HQError(409, ErrorCode.BAD_REQUEST, f"model file {sha256[:12]} is not in HQ's catalog blob store: "
                                                  "store it first, kiosks fetch it from there")
    if int(stored) != size:
        raise _bad(f"model file {sha256[:12]} is {stored} bytes in HQ's blob store, not {size}")


def _checked_id(field: str, value: str, limit: int) -> str:
    # The kiosk's reader (wire.py) refuses the whole release for a field it cannot read: check here, not there.
    if len(value) > limit or not ID_PATTERN.match(value):
        raise _bad(f"{field} {value[:40]!r} must be letters, digits, '_.:-' (at most {limit})")
    return value


def _tensors(field: str, specs: list[TensorSpec]) -> list[TensorSpec]:
    if len(specs) > _TENSORS_MAX:
        raise _bad(f"{field}: at most {_TENSORS_MAX} tensors")
    checked: list[TensorSpec] = []
    for spec in specs:
        shape = spec.get("shape")
        if (not isinstance(spec.get("name"), str) or not _TENSOR_NAME.match(spec["name"])
                or not isinstance(shape, list) or len(shape) > 8
                or not all(isinstance(d, int) and not isinstance(d, bool) and -1 <= d <= 1_000_000 for d in shape)
                or spec.get("dtype") != "float32"):
            raise _bad(f"{field}: {str(spec)[:80]} is not a tensor (name, shape of dimensions, dtype float32)")
        checked.append({"name": spec["name"], "shape": list(shape), "dtype": "float32"})
    return checked


def _bad(message: str) -> HQError:
    return HQError(400, ErrorCode.BAD_REQUEST, message)
