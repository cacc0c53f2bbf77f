"""HQ's public key to kiosks and its rotation (issue #27 §5), on SQLite, PostgreSQL (+ S3): enrollment and hello
carry the key a kiosk pins, read by the protocol's own readers; a rotation is a record signed by the old key that
`model_release.follow_rotations` follows (checked with `cryptography`, never HQ's code); releases are signed with
the new key from then on, and a grant signed with the old key still verifies."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from nailmirror_hq import backup, credits, db, key_rotation, rollout_actions, rollouts
from nailmirror_hq.service import HQ
from nailmirror_protocol import paths, wire
from nailmirror_protocol.model_release import (
    KEY_ROTATION_PURPOSE,
    HQKey,
    KeyRotation,
    follow_rotations,
    key_id,
    rotation_payload,
    unb64,
    verify_release,
)
from tests.hq.test_model_releases import Kiosk, publish, verifier
from tests.hq.test_signed_grants import grant_entry
from tests.support.hq_cli import run_hq, run_hq_json
from tests.support.hq_fixtures import add_store, new_kiosk


def enroll(client: TestClient, code: str) -> tuple[dict[str, str], HQKey, list[KeyRotation]]:
    answer = client.post(paths.ENROLL, json={"nm": 1, "code": code, "kiosk_name": "front", "app_version": "0.1.0"})
    assert answer.status_code == 201, answer.text
    read = wire.read_enroll_response(answer.json())
    return ({"Authorization": f"Bearer {read['token']}", "NM-Protocol": "1"}, read["hq_key"],
            read.get("hq_key_rotations", []))


def hello(client: TestClient, headers: dict[str, str]) -> tuple[HQKey, list[KeyRotation]]:
    answer = wire.read_hello(client.get(paths.HELLO, headers=headers).json())
    return answer["hq_key"], answer.get("hq_key_rotations", [])


def rotate(hq: HQ) -> KeyRotation:
    with db.write(hq.engine) as conn:
        done = key_rotation.rotate(conn, hq.kek or b"", "test")
    hq.signing_key = done.key
    return done.rotation


def test_a_kiosk_pins_the_key_at_enrollment_and_follows_a_rotation_to_the_new_releases(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    _, code = add_store(hq, "SH-0012")
    headers, pinned, rotations = enroll(client, code)
    assert rotations == [] and pinned["key_id"] == key_id(unb64(pinned["key"]))
    assert pinned == hello(client, headers)[0]
    kiosk = Kiosk(client, headers)
    kiosk.snapshot()
    first = publish(hq, tmp_path, salt=1)
    kiosk.poll()
    assert verify_release(pinned, kiosk.models["live"][1], verifier)

    rotation = rotate(hq)
    current, rotations = hello(client, headers)
    assert current["key_id"] != pinned["key_id"] and rotations == [rotation]
    assert follow_rotations(pinned, rotations, verifier) == current
    # The release it runs comes again, the same manifest signed by the key it now holds.
    assert kiosk.poll() == [("upsert", "live", 2)]
    assert kiosk.models["live"][1]["manifest"] == first.manifest
    assert verify_release(current, kiosk.models["live"][1], verifier)
    second = publish(hq, tmp_path, salt=2)
    kiosk.poll()
    assert kiosk.models["live"][1]["key_id"] == current["key_id"]
    assert verify_release(current, kiosk.models["live"][1], verifier)
    assert not verify_release(pinned, kiosk.models["live"][1], verifier)  # only through the rotation
    # Rolling back to the release the old key signed: the kiosk gets it signed with the key it now holds.
    with db.write(hq.engine) as conn:
        rollout_actions.rollback_model(conn, hq.require_signing_key(), "all", "live", "t")
    kiosk.poll()
    back = kiosk.models["live"][1]
    assert back["manifest"] == first.manifest != second.manifest and verify_release(current, back, verifier)

    # A kiosk enrolled after the rotation pins the new key and is told how the old one led there.
    _, later_code = add_store(hq, "BJ-0001")
    _, later_key, later_rotations = enroll(client, later_code)
    assert (later_key, later_rotations) == (current, [rotation])


def test_a_rotation_signs_held_and_live_releases_again_so_widening_and_snapshots_verify(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    canary_store, canary_headers = new_kiosk(hq, client, "SH-0012")
    _, other_headers = new_kiosk(hq, client, "BJ-0001")
    with db.write(hq.engine) as conn:
        rollouts.add_canary(conn, "all", canary_store, "t")
    canary, other = Kiosk(client, canary_headers), Kiosk(client, other_headers)
    canary.snapshot()
    other.snapshot()
    first = publish(hq, tmp_path, salt=1)
    with db.write(hq.engine) as conn:
        rollout_actions.widen(conn, first.rollout_id, "t")
    held = publish(hq, tmp_path, salt=2)
    assert canary.poll() == [("upsert", "live", 1), ("upsert", "live", 2)] and other.poll() == [("upsert", "live", 1)]

    rotate(hq)
    current, _ = hello(client, other_headers)
    assert other.poll() == [("upsert", "live", 3)]  # the release every store runs, signed again
    assert canary.poll() == [("upsert", "live", 3), ("upsert", "live", 4)]  # and then the one held for it
    assert canary.models["live"][1]["manifest"] == held.manifest
    assert other.models["live"][1]["manifest"] == first.manifest
    for kiosk in (canary, other):
        assert verify_release(current, kiosk.models["live"][1], verifier)
    with db.write(hq.engine) as conn:
        widened = rollout_actions.widen(conn, held.rollout_id, "t")
    assert widened.version == 4 and other.poll() == [("upsert", "live", 4)] and canary.poll() == []
    assert verify_release(current, other.models["live"][1], verifier)
    fresh = Kiosk(client, new_kiosk(hq, client, "GZ-0100")[1])
    fresh.snapshot()
    assert fresh.models["live"][0] == 4 and verify_release(current, fresh.models["live"][1], verifier)


def test_a_forged_rotation_is_not_followed(hq: HQ, client: TestClient) -> None:
    _, headers = new_kiosk(hq, client)
    pinned, _ = hello(client, headers)
    genuine = rotate(hq)
    third = rotate(hq)
    current, rotations = hello(client, headers)
    assert [r["old_key_id"] for r in rotations] == [pinned["key_id"], genuine["new_key"]["key_id"]]
    assert follow_rotations(pinned, list(reversed(rotations)), verifier) == current == third["new_key"]
    # The same record claiming another new key (or signed by the new key itself) leads nowhere.
    stranger = third["new_key"]
    forged: KeyRotation = {**genuine, "new_key": stranger}
    assert follow_rotations(pinned, [forged], verifier) == pinned
    self_signed: KeyRotation = {**genuine, "signature": hq.require_signing_key().sign(
        KEY_ROTATION_PURPOSE, rotation_payload(genuine["old_key_id"], genuine["new_key"], genuine["rotated_at"]))}
    assert follow_rotations(pinned, [self_signed], verifier) == pinned


def test_a_grant_signed_before_a_rotation_still_verifies_after_it(
        hq_local_blobs: HQ, tmp_path: Path) -> None:
    """A restore lost a grant the old key signed; HQ rotated since; the kiosk's entry is still learned back."""
    hq = hq_local_blobs
    from nailmirror_hq.api.app import create_app

    with TestClient(create_app(hq)) as api:
        store_id, headers = new_kiosk(hq, api)
        backup.backup(hq.engine, hq.blobs, tmp_path / "bk")
        with db.write(hq.engine) as conn:
            lost = credits.grant(conn, store_id, 5, "opening", "test", key=hq.require_signing_key())
        backup.restore(hq.engine, hq.blobs, tmp_path / "bk", "test", kek=hq.kek)
        rotate(hq)
        body = grant_entry(lost.grant_id, 5, grant_sig=lost.signature)
        assert api.put("/v1/ledger/entries/e-lost", headers=headers, json=body).status_code == 201
        with db.read(hq.engine) as conn:
            (books,) = credits.books(conn, store_id)
            assert [g.grant_id for g in credits.grants(conn, store_id)] == [lost.grant_id]
        assert books.as_json()["parked_grants"] == 0


def test_keys_show_and_rotate_from_the_command_line(tmp_path: Path) -> None:
    env: dict[str, Any] = {**os.environ, "NAILMIRROR_HQ_STARTER_CATALOG": "", "NAILMIRROR_HQ_HOME": str(tmp_path)}
    for name in ("NAILMIRROR_HQ_DATABASE_URL", "NAILMIRROR_HQ_BLOBS", "NAILMIRROR_HQ_CONFIG"):
        env.pop(name, None)
    before = run_hq_json(env, "keys", "show")
    pinned: HQKey = {"alg": before["alg"], "key": before["key"], "key_id": before["key_id"]}
    assert before["older"] == [] and before["rotations"] == [] and pinned["alg"] == "ed25519"
    rotated = run_hq_json(env, "keys", "rotate")
    assert rotated["old_key_id"] == pinned["key_id"] != rotated["key_id"]
    after = run_hq_json(env, "keys", "show")
    assert after["key_id"] == rotated["key_id"] and after["older"] == [pinned]
    assert follow_rotations(pinned, after["rotations"], verifier) == rotated["new_key"]
    text = run_hq(env, "keys", "show")
    assert text.returncode == 0 and f"key_id={rotated['key_id']}" in text.stdout
