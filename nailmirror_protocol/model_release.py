"""Signed nail-model releases and HQ's public key on the wire (issue #27 §5–§7): one contract for both sides.

A release is a feed change of type "model" (wire.py): its id is the slot it fills (`SLOTS`), its version HQ's
release number for that slot, and its body a `ModelRelease`: the manifest and HQ's ed25519 signature over it. The
model file itself is a blob (`paths.blob(manifest["sha256"])`), fetched like any catalog image. A "delete" of the
slot withdraws the release: the kiosk goes back to its bundled model. Because releases ride the channel's feed,
a channel's canary stores (HQ's rollouts.py) see one first and widening or rolling back is the same as a style's.
An older kiosk skips the change type it does not know.

What is signed: `signed_message(MODEL_RELEASE_PURPOSE, manifest_payload(manifest))`; HQ's keys.py frames every
signature the same way, so a signature of one purpose never verifies as another's.

HQ's public key (`HQKey`) is sent in enrollment's answer and in hello: a kiosk pins the first it is given (at
enrollment, or at its first authenticated hello if it was enrolled before releases existed) and afterwards accepts
another only through `KeyRotation` records, each signed by the key it replaces (`rotation_payload`).

This package stays stdlib only: the verifying itself (ed25519, `cryptography`) is passed in as a `Verifier`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable
from typing import Literal, NotRequired, TypedDict

from nailmirror_protocol.canonical import canonical_json

SLOTS = ("live", "still", "full_frame")  # the live mirror's per-nail model, the stills' model, the full-frame one
Slot = Literal["live", "still", "full_frame"]
SIGNING_ALGORITHM = "ed25519"
MODEL_RELEASE_PURPOSE = "model.release.v1"
KEY_ROTATION_PURPOSE = "hq.key.rotation.v1"
MODEL_MAX_BYTES = 64 * 1024 * 1024  # = shapes/wire ASSET_MAX_BYTES: a model file is fetched as a blob
KEY_ROTATIONS_MAX = 16


class TensorSpec(TypedDict):
    name: str
    shape: list[int]  # -1 for a free dimension (the batch)
    dtype: str  # "float32"


class ModelManifest(TypedDict):
    """What HQ signs about one model file. `version` is what the kiosk reports as its model_version."""

    name: str  # "nail_segmenter"
    version: str  # "<name>-<first 12 hex digits of sha256>"
    slot: Slot
    sha256: str  # of the .onnx file, 64 lower-case hex digits
    size: int  # bytes
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    gate_report_id: str  # HQ's gate report that let it out
    created_at: str  # UTC text
    threshold: NotRequired[float]  # the sigmoid threshold the model was tuned for, when not the product default


class ModelRelease(TypedDict):
    """The body of a "model" upsert change."""

    manifest: ModelManifest
    signature: str  # url-safe base64 (no padding) of the ed25519 signature
    key_id: str  # which of HQ's keys signed it


class HQKey(TypedDict):
    alg: str  # SIGNING_ALGORITHM
    key: str  # url-safe base64 (no padding) of the 32-byte raw public key
    key_id: str  # key_id(raw): first 16 hex digits of its sha256


class KeyRotation(TypedDict):
    """HQ moved from `old_key_id` to `new_key`; signed by the old key, so a kiosk pinned to it can follow."""

    old_key_id: str
    new_key: HQKey
    rotated_at: str
    signature: str


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def key_id(raw_public: bytes) -> str:
    return hashlib.sha256(raw_public).hexdigest()[:16]


def signed_message(purpose: str, payload: bytes) -> bytes:
    """The bytes an HQ signature covers (the same framing as nailmirror_hq/keys.py)."""
    return b"nailmirror-hq\n" + purpose.encode("ascii") + b"\n" + payload


def manifest_payload(manifest: ModelManifest) -> bytes:
    return canonical_json(manifest)


def rotation_payload(old_key_id: str, new_key: HQKey, rotated_at: str) -> bytes:
    return canonical_json({"old_key_id": old_key_id, "new_key": new_key, "rotated_at": rotated_at})


def model_version_name(name: str, sha256: str) -> str:
    return f"{name}-{sha256[:12]}"


# Verifying is the caller's (the kiosk's adapter, HQ's keys.py, with `cryptography`): this package stays stdlib
# only. A Verifier answers whether `signature` is the holder of `public_key_b64`'s over signed_message(purpose,
# payload), and never raises on junk.
Verifier = Callable[[str, str, bytes, str], bool]


def verify_release(pinned: HQKey, release: ModelRelease, verify: Verifier) -> bool:
    return (release["key_id"] == pinned["key_id"]
            and verify(pinned["key"], MODEL_RELEASE_PURPOSE, manifest_payload(release["manifest"]),
                       release["signature"]))


def follow_rotations(pinned: HQKey, rotations: list[KeyRotation], verify: Verifier) -> HQKey:
    """The newest key reachable from `pinned` through rotations each signed by the key before it (in any order on
    the wire); `pinned` itself when none applies. A forged or broken link is never followed."""
    current = pinned
    remaining = list(rotations)
    progressed = True
    while progressed:
        progressed = False
        for rotation in remaining:
            new = rotation["new_key"]
            if (rotation["old_key_id"] == current["key_id"] and new["key_id"] != current["key_id"]
                    and new["alg"] == SIGNING_ALGORITHM and _key_id_matches(new)
                    and verify(current["key"], KEY_ROTATION_PURPOSE,
                               rotation_payload(rotation["old_key_id"], new, rotation["rotated_at"]),
                               rotation["signature"])):
                current = new
                remaining.remove(rotation)
                progressed = True
                break
    return current


def _key_id_matches(key: HQKey) -> bool:
    try:
        return key_id(unb64(key["key"])) == key["key_id"]
    except (binascii.Error, ValueError):
        return False
