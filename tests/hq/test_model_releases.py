"""Signed model releases at HQ (issue #27 §5–§6), on SQLite, PostgreSQL and PostgreSQL + S3: what each kiosk reads
of a release through the real routes and the protocol's own readers, verified with `cryptography` against HQ's
public key; staged through the canary stores, widened, rolled back, withdrawn, kept in the snapshot."""

from __future__ import annotations

import hashlib
import urllib.request
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from fastapi.testclient import TestClient

from nailmirror_hq import db, feed, maintenance, model_releases, rollout_actions, rollouts, stores
from nailmirror_hq.errors import HQError
from nailmirror_hq.service import HQ
from nailmirror_protocol import paths, wire
from nailmirror_protocol.model_release import (
    HQKey,
    ModelRelease,
    TensorSpec,
    b64,
    key_id,
    signed_message,
    unb64,
    verify_release,
)
from tests.support.hq_fixtures import new_kiosk

INPUTS: list[TensorSpec] = [{"name": "rois", "shape": [-1, 3, 128, 128], "dtype": "float32"}]
OUTPUTS: list[TensorSpec] = [{"name": "masks", "shape": [-1, 1, 128, 128], "dtype": "float32"}]


def verifier(public_b64: str, purpose: str, payload: bytes, signature: str) -> bool:
    """The kiosk's side of a signature check, with `cryptography` (never HQ's own code)."""
    try:
        Ed25519PublicKey.from_public_bytes(unb64(public_b64)).verify(unb64(signature),
                                                                     signed_message(purpose, payload))
    except (InvalidSignature, ValueError):
        return False
    return True


def hq_key(hq: HQ) -> HQKey:
    public = hq.require_signing_key().public
    assert public.key_id == key_id(public.raw)
    return {"alg": "ed25519", "key": b64(public.raw), "key_id": public.key_id}


def model_file(hq: HQ, tmp_path: Path, salt: int) -> tuple[str, int]:
    path = tmp_path / f"model-{salt}.onnx"
    path.write_bytes(b"ONNX model bytes " + bytes([salt]) * 4096)
    return model_releases.store_model_file(hq.engine, hq.blobs, path)


def publish(hq: HQ, tmp_path: Path, salt: int, slot: str = "live",
            channel: str = "all") -> model_releases.PublishedRelease:
    sha256, size = model_file(hq, tmp_path, salt)
    with db.write(hq.engine) as conn:
        return model_releases.publish(conn, hq.require_signing_key(), channel_code=channel, name="nail_segmenter",
                                      slot=slot, sha256=sha256, size=size, inputs=INPUTS, outputs=OUTPUTS,
                                      gate_report_id=f"gate-{salt}", threshold=0.45, actor="test")


def fetch_blob(client: TestClient, headers: dict[str, str], sha256: str) -> bytes:
    got = client.get(f"/v1/blobs/{sha256}", headers=headers, follow_redirects=False)
    if got.status_code == 307:  # the S3 store: the bytes come from a presigned URL, without the token
        with urllib.request.urlopen(got.headers["location"], timeout=10) as direct:
            return bytes(direct.read())
    assert got.status_code == 200, got.text
    return got.content


class Kiosk:
    """A kiosk's side of the wire for releases: a snapshot, then pages from its cursor, each answer read by the
    protocol's own readers."""

    def __init__(self, client: TestClient, headers: dict[str, str]) -> None:
        self.client, self.headers = client, headers
        self.cursor = ""
        self.models: dict[str, tuple[int, ModelRelease]] = {}
        self.state: Any = None

    def snapshot(self) -> None:
        answer = wire.read_snapshot(self.client.get(paths.CATALOG_SNAPSHOT, headers=self.headers).json())
        self.cursor, self.state = answer["cursor"], answer["state"]
        self.models = {m["id"]: (m["version"], m["model"]) for m in answer.get("models", [])}

    def poll(self) -> list[tuple[str, str, int]]:
        """The model changes of one poll, applied: (op, slot, version)."""
        answer = self.client.get(f"{paths.CATALOG_CHANGES}?since={self.cursor}", headers=self.headers)
        assert answer.status_code == 200, answer.text
        page = wire.read_changes_page(answer.json())
        self.cursor, self.state = page["next"], page.get("state")
        seen = []
        for change in page["changes"]:
            if change["type"] != "model":
                continue
            seen.append((change["op"], change["id"], change["version"]))
            if change["op"] == "upsert":
                self.models[change["id"]] = (change["version"], change["model"])
            else:
                self.models.pop(change["id"], None)
        return seen


def test_a_release_reaches_the_canary_store_first_then_every_store_and_rolls_back(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    canary_store, canary_headers = new_kiosk(hq, client, "SH-0012")
    _, other_headers = new_kiosk(hq, client, "BJ-0001")
    with db.write(hq.engine) as conn:
        rollouts.add_canary(conn, "all", canary_store, "t")
    canary, other = Kiosk(client, canary_headers), Kiosk(client, other_headers)
    canary.snapshot()
    other.snapshot()
    styles_state = other.state

    first = publish(hq, tmp_path, salt=1)
    assert (first.slot, first.channel, first.version, first.stage) == ("live", "all", 1, rollouts.CANARY)
    assert first.manifest["version"] == f"nail_segmenter-{first.manifest['sha256'][:12]}"
    assert canary.poll() == [("upsert", "live", 1)]
    assert other.poll() == []  # held: only the canary store's feed carries it
    release = canary.models["live"][1]
    assert release["manifest"] == first.manifest
    assert verify_release(hq_key(hq), release, verifier)
    tampered = {**release, "manifest": {**release["manifest"], "size": release["manifest"]["size"] + 1}}
    assert not verify_release(hq_key(hq), tampered, verifier)  # type: ignore[arg-type]
    assert other.state == styles_state  # the catalog's count and digest are its styles' alone
    assert hashlib.sha256(fetch_blob(client, canary_headers, first.manifest["sha256"])).hexdigest() == \
        first.manifest["sha256"]

    with db.write(hq.engine) as conn:
        rollout_actions.widen(conn, first.rollout_id, "t")
    assert other.poll() == [("upsert", "live", 1)]
    assert canary.poll() == []  # it had this release first
    assert other.models == canary.models

    second = publish(hq, tmp_path, salt=2)
    assert second.version == 2 and canary.poll() == [("upsert", "live", 2)] and other.poll() == []
    with db.write(hq.engine) as conn:
        version, undone = rollout_actions.rollback_model(conn, hq.require_signing_key(), "all", "live", "t")
    assert (version, undone.id, undone.stage) == (3, second.rollout_id, rollouts.ROLLED_BACK)
    assert canary.poll() == [("upsert", "live", 3)]
    assert other.poll() == []  # the held release never reached it: it runs the one rolled back to already
    for kiosk in (canary, other):
        back = kiosk.models["live"][1]
        assert back["manifest"] == first.manifest and verify_release(hq_key(hq), back, verifier)
    third = publish(hq, tmp_path, salt=3)
    with db.write(hq.engine) as conn:
        rollout_actions.widen(conn, third.rollout_id, "t")
        assert rollout_actions.rollback_model(conn, hq.require_signing_key(), "all", "live", "t")[0] == 5
    for kiosk in (canary, other):  # a widened release: every store gets the one before it back
        assert kiosk.poll() == [("upsert", "live", 4), ("upsert", "live", 5)]
        assert kiosk.models["live"][1]["manifest"] == first.manifest

    with db.write(hq.engine) as conn:
        assert model_releases.withdraw(conn, channel_code="all", slot="live", actor="t")
        assert not model_releases.withdraw(conn, channel_code="all", slot="live", actor="t")
    for kiosk in (canary, other):
        assert kiosk.poll() == [("delete", "live", 6)]
        assert kiosk.models == {}


def test_the_snapshot_carries_the_release_and_compaction_keeps_its_number(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    _, headers = new_kiosk(hq, client, "SH-0012")
    before = Kiosk(client, headers)
    before.snapshot()
    publish(hq, tmp_path, salt=1, slot="still")
    second = publish(hq, tmp_path, salt=2, slot="still")
    assert second.stage == rollouts.WIDENED  # no canary stores: every store at once
    kiosk = Kiosk(client, headers)
    kiosk.snapshot()
    assert list(kiosk.models) == ["still"] and kiosk.models["still"][0] == 2
    assert kiosk.models["still"][1]["manifest"] == second.manifest
    assert verify_release(hq_key(hq), kiosk.models["still"][1], verifier)
    assert kiosk.state == before.state  # a release is not a style: the digest a kiosk checks is unchanged
    with db.write(hq.engine) as conn:
        assert maintenance.compact_channels(conn, retention=timedelta(0))["all"] >= 1
        assert model_releases.next_version(conn, "all", "still") == 3
        kept = maintenance.referenced_blobs(conn)
    assert second.manifest["sha256"] in kept  # the model file is not an orphan blob


def test_a_canary_store_added_later_gets_the_release_in_its_feed_copy(
        hq_sqlite: HQ, tmp_path: Path) -> None:
    publish(hq_sqlite, tmp_path, salt=1)
    with db.write(hq_sqlite.engine) as conn:
        found, _ = stores.add_store(conn, "SH-0099", "all", "test")
        rollouts.add_canary(conn, "all", found.id, "t")
        assert feed.live_version(conn, feed.canary_feed("all"), "model", "live") == 1


@pytest.mark.parametrize(("change", "words"), [
    ({"sha256": "0" * 64}, "is not in HQ's catalog blob store"),
    ({"size": 5}, "bytes in HQ's blob store, not 5"),
    ({"slot": "palm"}, "is not one of live, still, full_frame"),
    ({"channel_code": "nowhere"}, "channel nowhere"),
    ({"name": "a name"}, "name 'a name' must be"),
    ({"threshold": 1.5}, "threshold must be between 0 and 1"),
    ({"outputs": [{"name": "m", "shape": [1.5], "dtype": "float32"}]}, "is not a tensor"),
])
def test_publish_refuses_bad_input_in_one_line_writing_nothing(
        hq_sqlite: HQ, tmp_path: Path, change: dict[str, Any], words: str) -> None:
    sha256, size = model_file(hq_sqlite, tmp_path, 1)
    arguments: dict[str, Any] = {"channel_code": "all", "name": "nail_segmenter", "slot": "live", "sha256": sha256,
                                 "size": size, "inputs": INPUTS, "outputs": OUTPUTS, "gate_report_id": "gate-1",
                                 "threshold": None, "actor": "t", **change}
    with pytest.raises(HQError) as refused, db.write(hq_sqlite.engine) as conn:
        model_releases.publish(conn, hq_sqlite.require_signing_key(), **arguments)
    assert words in refused.value.message and "\n" not in refused.value.message
    with db.read(hq_sqlite.engine) as conn:
        assert feed.live(conn, "all", "model") == [] and rollouts.list_rollouts(conn) == []
