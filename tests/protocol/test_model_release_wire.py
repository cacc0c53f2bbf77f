"""Model releases and HQ's key on the wire (issue #27 §5): signed manifests verify, tampered ones do not, key
rotations are followed only along links signed by the key they replace, and the readers refuse what a kiosk could
not verify."""

from __future__ import annotations

import binascii
import copy
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from nailmirror_protocol import model_release as mr
from nailmirror_protocol import wire


def _verify(key_b64: str, purpose: str, payload: bytes, signature: str) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(mr.unb64(key_b64)).verify(mr.unb64(signature),
                                                                      mr.signed_message(purpose, payload))
    except (InvalidSignature, binascii.Error, ValueError):
        return False
    return True


def _pair() -> tuple[Ed25519PrivateKey, mr.HQKey]:
    private = Ed25519PrivateKey.generate()
    raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return private, {"alg": "ed25519", "key": mr.b64(raw), "key_id": mr.key_id(raw)}


def _manifest() -> mr.ModelManifest:
    sha = "ab" * 32
    return {"name": "nail_segmenter", "version": mr.model_version_name("nail_segmenter", sha), "slot": "live",
            "sha256": sha, "size": 399_798,
            "inputs": [{"name": "roi", "shape": [-1, 3, 64, 64], "dtype": "float32"}],
            "outputs": [{"name": "logits", "shape": [-1, 1, 64, 64], "dtype": "float32"}],
            "gate_report_id": "gate-7", "created_at": "2026-12-05T02:00:00.000Z"}


def _release(private: Ed25519PrivateKey, key: mr.HQKey, manifest: mr.ModelManifest) -> mr.ModelRelease:
    signature = private.sign(mr.signed_message(mr.MODEL_RELEASE_PURPOSE, mr.manifest_payload(manifest)))
    return {"manifest": manifest, "signature": mr.b64(signature), "key_id": key["key_id"]}


def _rotation(old_private: Ed25519PrivateKey, old: mr.HQKey, new: mr.HQKey) -> mr.KeyRotation:
    at = "2026-12-05T03:00:00.000Z"
    payload = mr.rotation_payload(old["key_id"], new, at)
    signature = old_private.sign(mr.signed_message(mr.KEY_ROTATION_PURPOSE, payload))
    return {"old_key_id": old["key_id"], "new_key": new, "rotated_at": at, "signature": mr.b64(signature)}


def test_a_signed_release_verifies_and_any_change_to_its_manifest_does_not() -> None:
    private, key = _pair()
    release = _release(private, key, _manifest())
    assert mr.verify_release(key, release, _verify)
    for field, value in (("sha256", "cd" * 32), ("size", 1), ("slot", "still"), ("version", "nail_segmenter-x")):
        tampered = copy.deepcopy(release)
        tampered["manifest"][field] = value  # type: ignore[literal-required]
        assert not mr.verify_release(key, tampered, _verify), field
    _, other = _pair()
    assert not mr.verify_release(other, release, _verify)
    # a grant's signature over the same bytes never passes for a release's
    grant_sig = private.sign(mr.signed_message("credits.grant.v1", mr.manifest_payload(release["manifest"])))
    assert not mr.verify_release(key, {**release, "signature": mr.b64(grant_sig)}, _verify)


def test_rotations_are_followed_only_along_links_the_old_key_signed() -> None:
    p1, k1 = _pair()
    p2, k2 = _pair()
    _, k3 = _pair()
    chain = [_rotation(p2, k2, k3), _rotation(p1, k1, k2)]  # out of order on the wire
    assert mr.follow_rotations(k1, chain, _verify) == k3
    forged = _rotation(p2, k1, k3)  # claims to leave k1 but is signed by k2
    assert mr.follow_rotations(k1, [forged], _verify) == k1
    lying_id = _rotation(p1, k1, {**k2, "key_id": k3["key_id"]})
    assert mr.follow_rotations(k1, [lying_id], _verify) == k1


def _change(release: Any) -> dict[str, Any]:
    return {"nm": 1, "epoch": "e1", "has_more": False, "next": "e1.5",
            "changes": [{"seq": 5, "type": "model", "op": "upsert", "id": "live", "version": 3, "model": release}]}


def test_a_model_change_reads_back_exactly_as_signed() -> None:
    private, key = _pair()
    release = _release(private, key, _manifest())
    page = wire.read_changes_page(_change(copy.deepcopy(release)))
    read = page["changes"][0]["model"]
    assert read == release
    assert mr.verify_release(key, read, _verify)


def test_a_manifest_with_fields_the_kiosk_cannot_verify_is_refused() -> None:
    private, key = _pair()
    release: Any = _release(private, key, _manifest())
    release["manifest"]["extra"] = 1
    with pytest.raises(wire.WireError, match="cannot verify"):
        wire.read_changes_page(_change(release))
    release["manifest"].pop("extra")
    release["manifest"]["slot"] = "elsewhere"
    with pytest.raises(wire.WireError, match="slot"):
        wire.read_changes_page(_change(release))


def test_hello_and_enrollment_carry_hqs_key_and_rotations_and_an_older_hq_sends_none() -> None:
    p1, k1 = _pair()
    _, k2 = _pair()
    hello = {"nm": 1, "epoch": "e1", "hq_key": k2, "hq_key_rotations": [_rotation(p1, k1, k2)]}
    read = wire.read_hello(hello)
    assert read["hq_key"] == k2 and mr.follow_rotations(k1, read["hq_key_rotations"], _verify) == k2
    assert "hq_key" not in wire.read_hello({"nm": 1, "epoch": "e1"})
    enroll = {"nm": 1, "store_id": "st_a", "kiosk_id": "k_a", "token": "t" * 20, "channel": "default",
              "hq_time": "2026-12-05T02:00:00.000Z", "hq_key": k1}
    assert wire.read_enroll_response(enroll)["hq_key"] == k1
    with pytest.raises(wire.WireError):
        wire.read_hello({"nm": 1, "epoch": "e1", "hq_key": {**k1, "alg": "rsa"}})


def test_the_sync_report_carries_signing_state_and_slots() -> None:
    report = wire.read_sync_report({"nm": 1, "model_signing": "no_key", "model_slots": {
        "live": {"version": "nail_segmenter-2ae635817291", "state": "rolled_back", "release": 4,
                 "detail": "painted nails per frame 7.1 < 8.6", "at": "2026-12-05T02:00:00.000Z"},
        "someday": {"version": "x", "state": "active"}}})
    assert report["model_signing"] == "no_key"
    assert list(report["model_slots"]) == ["live"] and report["model_slots"]["live"]["release"] == 4
    with pytest.raises(wire.WireError):
        wire.read_sync_report({"nm": 1, "model_signing": "maybe"})
