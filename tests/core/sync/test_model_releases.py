"""The kiosk learns signed model releases (issue #27 §5), with the real HQ app on loopback behind a relay that
adds what HQ does not send yet (tests/support/model_releases.py): HQ's key pinned at enrollment or at an older
kiosk's first hello, rotations followed only when signed, releases ignored without a key or with a key no rotation
leads to, a release refused for its signature, shapes or bytes, the file fetched, checked and stored, a
withdrawal, a snapshot that keeps what a release reached, and the report and `sync status` fields."""

from __future__ import annotations

import hashlib
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nailmirror_desktop.adapters.sync.client import HttpHq
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.model_releases import download, store
from nailmirror_desktop.core.model_version import bundled_model_version
from nailmirror_desktop.core.paths import data_dir, database_path
from nailmirror_desktop.core.sync import state
from nailmirror_hq import db, fleet, key_rotation, model_releases
from tests.core.sync.test_disk_full import ROOT, _capped
from tests.support.model_releases import (
    HqSigner,
    ReleasingHq,
    manifest_for,
    model_change,
    model_file,
    snapshot_model,
)
from tests.support.sync_fixtures import rig_on
from tests.support.sync_rig import FaultProxy, HqRig, enroll, nailmirror

pytestmark = pytest.mark.slow  # each enrolls and syncs a few times against the real HQ: 1.3–2.8 s


@pytest.fixture
def relay(rig: HqRig) -> Iterator[ReleasingHq]:
    hq = ReleasingHq(rig.server.port)
    yield hq
    hq.stop()


def _status() -> dict[str, Any]:
    run = nailmirror("sync", "status", "--json")
    assert run.rc == 0, run.err
    result: dict[str, Any] = run.json()
    return result


def _sync() -> None:
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err


def _row(slot: str, release: int) -> store.ModelReleaseRow | None:
    conn = open_database(database_path())
    try:
        return store.get(conn, slot, release)
    finally:
        conn.close()


def test_a_key_pinned_at_enrollment_lets_a_release_download_verified_and_the_report_says_so(
        rig: HqRig, relay: ReleasingHq) -> None:
    hq = HqSigner.new()
    relay.enroll_key = relay.hello_key = hq.key
    live, frame = model_file(), model_file(1000)
    relay.serve_model(live)
    relay.serve_model(frame)
    relay.snapshot_models = [snapshot_model("live", 4, hq.sign(manifest_for(live))),
                             snapshot_model("full_frame", 5, hq.sign(manifest_for(frame, "full_frame")))]
    enroll(rig, relay.url)
    assert _status()["hq_key_id"] == hq.key["key_id"]
    _sync()
    sha = hashlib.sha256(live).hexdigest()
    stored = data_dir() / "models" / f"{sha}.onnx"
    assert stored.read_bytes() == live and stored.stat().st_mode & 0o077 == 0
    row = _row("live", 4)
    assert row is not None and row.state == "verified" and row.path == str(stored)
    status = _status()
    assert status["model_signing"] == "ok" and status["model_slots"]["live"]["state"] == "verified"
    # a slot this kiosk does not run is recorded, never fetched
    assert status["model_slots"]["full_frame"]["state"] == "bundled"
    assert hashlib.sha256(frame).hexdigest() not in relay.blob_requests
    text = nailmirror("sync", "status")
    assert f"hq_key_id: {hq.key['key_id']}" in text.out and "model_signing: ok" in text.out
    assert f"model live: verified release 4, running {bundled_model_version()}" in text.out
    # verified is not yet running: the version reported stays the bundled one until the switch (issue #27 §7)
    assert status["model_version"] == bundled_model_version()
    _sync()  # the next cycle's report carries the verified slot to HQ
    report = relay.reports[-1]
    assert report["model_signing"] == "ok" and report["model_slots"]["live"]["release"] == 4
    assert report["model_slots"]["live"]["state"] == "verified"
    assert report["model_version"] == bundled_model_version()


def test_an_older_kiosk_ignores_releases_until_its_first_hello_with_a_key_then_reads_them(
        rig: HqRig, relay: ReleasingHq) -> None:
    hq = HqSigner.new()
    data = model_file()
    relay.serve_model(data)
    release = hq.sign(manifest_for(data))
    enroll(rig, relay.url)  # an HQ from before releases: no key in the answer
    _sync()
    relay.feed = [model_change("live", 3, release)]
    _sync()  # HQ sends no key yet: the release is ignored
    assert _status()["model_signing"] == "no_key" and _status()["hq_key_id"] is None
    assert _row("live", 3) is None and relay.reports[-1]["model_signing"] == "no_key"
    relay.hello_key = hq.key
    relay.snapshot_models = [snapshot_model("live", 3, release)]
    _sync()  # pinned from hello, and the releases it missed are read again from the snapshot
    status = _status()
    assert status["hq_key_id"] == hq.key["key_id"] and status["model_signing"] == "ok"
    row = _row("live", 3)
    assert row is not None and row.state == "verified"


def test_a_rotation_signed_by_the_pinned_key_is_followed_and_a_forged_one_is_not(
        rig: HqRig, relay: ReleasingHq, caplog: pytest.LogCaptureFixture) -> None:
    old, new, thief = HqSigner.new(), HqSigner.new(), HqSigner.new()
    relay.enroll_key = relay.hello_key = old.key
    enroll(rig, relay.url)
    _sync()
    # a key no signed rotation leads to: key_mismatch, its releases ignored, one log line
    data = model_file()
    relay.serve_model(data)
    relay.hello_key = thief.key
    relay.rotations = [old.rotate_to(thief, signed_by=thief)]
    relay.feed = [model_change("live", 6, thief.sign(manifest_for(data)))]
    with caplog.at_level(logging.WARNING, logger="nailmirror_desktop"):
        _sync()
    assert _status()["model_signing"] == "key_mismatch" and _status()["hq_key_id"] == old.key["key_id"]
    assert _row("live", 6) is None
    assert [r.getMessage() for r in caplog.records if "ignored" in r.getMessage()] == [
        f"model releases ignored: HQ sent key {thief.key['key_id']}, no signed rotation leads to it from"
        f" {old.key['key_id']}"]
    # the real rotation, signed by the pinned key: followed, the old key kept, the new one's releases taken
    relay.hello_key = new.key
    relay.rotations = [old.rotate_to(new)]
    relay.snapshot_models = [snapshot_model("live", 7, new.sign(manifest_for(data)))]
    _sync()
    status = _status()
    assert status["model_signing"] == "ok" and status["hq_key_id"] == new.key["key_id"]
    conn = open_database(database_path())
    try:
        assert [r[0] for r in conn.execute("SELECT key_id FROM hq_key ORDER BY current")] == [
            old.key["key_id"], new.key["key_id"]]
    finally:
        conn.close()
    row = _row("live", 7)
    assert row is not None and row.state == "verified"


def test_a_bad_signature_or_shape_is_refused_before_anything_is_fetched(rig: HqRig, relay: ReleasingHq) -> None:
    hq, other = HqSigner.new(), HqSigner.new()
    relay.enroll_key = relay.hello_key = hq.key
    enroll(rig, relay.url)
    _sync()
    data = model_file()
    relay.serve_model(data)
    tampered = hq.sign(manifest_for(data))
    tampered["manifest"]["size"] += 1
    wrong_key = {**other.sign(manifest_for(data)), "key_id": hq.key["key_id"]}
    relay.feed = [model_change("live", 8, tampered), model_change("still", 9, wrong_key)]  # type: ignore[list-item]
    _sync()
    for slot, release in (("live", 8), ("still", 9)):
        row = _row(slot, release)
        assert row is not None and row.state == "refused" and "signature does not verify" in row.detail
    relay.feed = [model_change("live", 10, hq.sign(manifest_for(data, shapes_ok=False))),
                  model_change("still", 11, hq.sign(manifest_for(data, "live")))]
    _sync()
    shapes, slot_mismatch = _row("live", 10), _row("still", 11)
    assert shapes is not None and shapes.state == "refused" and "shapes do not fit slot live" in shapes.detail
    assert slot_mismatch is not None and "for slot live, the change for slot still" in slot_mismatch.detail
    assert _row("live", 8) is None  # a newer refusal supersedes the older one
    assert relay.blob_requests == []
    assert _status()["model_slots"]["live"]["state"] == "refused"


def test_wrong_bytes_are_fetched_once_more_then_refused_with_the_reason(rig: HqRig, relay: ReleasingHq) -> None:
    hq = HqSigner.new()
    relay.enroll_key = relay.hello_key = hq.key
    enroll(rig, relay.url)
    _sync()
    data = model_file()
    manifest = manifest_for(data)
    relay.serve_model(model_file(), as_sha=manifest["sha256"])  # HQ (or a cache between) serves other bytes
    relay.feed = [model_change("live", 12, hq.sign(manifest))]
    _sync()  # the first attempt fails inside sync now and waits for its retry
    conn = open_database(database_path())
    try:
        port = HttpHq(relay.url, state.require(conn).token, parts_dir=data_dir() / "sync" / "parts")
        with pytest.raises(download.ModelFetchFailed) as second:
            download.fetch(conn, port, "live", 12, attempt=2)
        assert second.value.refused
        row = store.get(conn, "live", 12)
        assert row is not None and row.state == "refused" and "hash" in row.detail and row.path is None
    finally:
        conn.close()
    assert relay.blob_requests.count(manifest["sha256"]) == 2
    assert not (data_dir() / "models" / f"{manifest['sha256']}.onnx").exists()


def test_a_withdrawal_brings_the_bundled_model_back_and_a_resync_keeps_an_active_release(
        rig: HqRig, relay: ReleasingHq) -> None:
    hq = HqSigner.new()
    relay.enroll_key = relay.hello_key = hq.key
    data = model_file()
    relay.serve_model(data)
    release = hq.sign(manifest_for(data))
    relay.snapshot_models = [snapshot_model("live", 4, release)]
    enroll(rig, relay.url)
    _sync()
    conn = open_database(database_path())
    try:
        store.mark_active(conn, "live", 4)  # what the switch at an idle moment does (issue #27 §7)
    finally:
        conn.close()
    assert _status()["model_version"] == release["manifest"]["version"]
    rig.new_epoch()  # HQ restored: the next cycle takes the snapshot, which lists the same release
    _sync()
    row = _row("live", 4)
    assert row is not None and row.state == "active"
    assert relay.blob_requests.count(release["manifest"]["sha256"]) == 1  # not fetched again
    relay.feed = [model_change("live", 5)]  # HQ withdraws the slot's release
    _sync()
    assert _row("live", 4) is None and "live" not in _status()["model_slots"]
    assert _status()["model_version"] == bundled_model_version()
    assert not (data_dir() / "models" / f"{release['manifest']['sha256']}.onnx").exists()


@pytest.fixture(params=["sqlite", "postgresql+s3"])
def any_rig(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HqRig]:
    """HQ on one machine, and on PostgreSQL + S3 (where the model file comes by 307 from a presigned URL)."""
    hq = rig_on(request.param, request, tmp_path, monkeypatch)
    yield hq
    hq.stop()


def test_a_release_the_real_hq_publishes_reaches_the_kiosk_verified_and_its_withdrawal_too(
        any_rig: HqRig, tmp_path: Path) -> None:
    """HQ's own side (nailmirror_hq/model_releases.py): its key at enrollment, its signed release in the feed,
    the model file from its catalog blob store."""
    rig = any_rig
    enroll(rig)
    public = rig.hq.require_signing_key().public
    assert _status()["hq_key_id"] == public.key_id
    _sync()
    path = tmp_path / "model.onnx"
    path.write_bytes(model_file())
    sha256, size = model_releases.store_model_file(rig.hq.engine, rig.hq.blobs, path)
    manifest = manifest_for(path.read_bytes())
    with db.write(rig.hq.engine) as conn:
        published = model_releases.publish(conn, rig.hq.require_signing_key(), channel_code="all",
                                           name="nail_segmenter", slot="live", sha256=sha256, size=size,
                                           inputs=manifest["inputs"], outputs=manifest["outputs"],
                                           gate_report_id="gate-9", threshold=None, actor="test")
    _sync()
    row = _row("live", published.version)
    assert row is not None and row.state == "verified", row
    assert (data_dir() / "models" / f"{sha256}.onnx").read_bytes() == path.read_bytes()
    assert _status()["model_slots"]["live"]["version"] == bundled_model_version()  # verified, not yet switched
    _sync()  # the report HQ's fleet page reads
    with db.read(rig.hq.engine) as conn:
        (seen,) = fleet.fleet(conn)
    assert seen.model_signing == "ok" and seen.model_slots["live"]["state"] == "verified"
    assert seen.model_slots["live"]["release"] == published.version
    with db.write(rig.hq.engine) as conn:
        assert model_releases.withdraw(conn, channel_code="all", slot="live", actor="test")
    _sync()
    assert _row("live", published.version) is None and "live" not in _status()["model_slots"]


def test_a_full_disk_holds_the_download_with_one_line_and_sync_now_resumes_it_once_there_is_room(
        rig: HqRig, relay: ReleasingHq, nailmirror_home: Path) -> None:
    """`sync now` in a child under RLIMIT_FSIZE (a write past it fails with EFBIG, as a full disk fails with
    ENOSPC): the release waits "downloading" with the reason, no model file appears, and the next `sync now`
    with room fetches it."""
    hq = HqSigner.new()
    relay.enroll_key = relay.hello_key = hq.key
    enroll(rig, relay.url)
    _sync()
    limit = max(p.stat().st_size for p in nailmirror_home.rglob("*") if p.is_file()) + 1024 * 1024
    data = model_file(limit + 2 * 1024 * 1024)
    relay.serve_model(data)
    relay.feed = [model_change("live", 4, hq.sign(manifest_for(data)))]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_HOME": str(nailmirror_home)}
    full = subprocess.run([sys.executable, "-m", "nailmirror_desktop", "sync", "now"], env=env, capture_output=True,
                          text=True, preexec_fn=_capped(limit), timeout=300)
    assert "Traceback" not in full.stderr, full.stderr
    row = _row("live", 4)
    assert row is not None and row.state == "downloading" and row.detail.startswith("disk_full: no room")
    assert "\n" not in row.detail
    sha = hashlib.sha256(data).hexdigest()
    assert not list((nailmirror_home / "models").glob(f"*{sha}*"))
    _sync()  # room again: staff run sync now
    done = _row("live", 4)
    assert done is not None and done.state == "verified" and done.detail == ""
    assert (nailmirror_home / "models" / f"{sha}.onnx").read_bytes() == data


def test_a_release_hq_garbled_refuses_the_page_on_one_line_and_loses_nothing(rig: HqRig, relay: ReleasingHq) -> None:
    hq = HqSigner.new()
    relay.enroll_key = relay.hello_key = hq.key
    enroll(rig, relay.url)
    _sync()
    cursor = _status()["cursor"]
    data = model_file()
    relay.serve_model(data)
    garbled: Any = hq.sign(manifest_for(data))
    garbled["manifest"]["size"] = "big"
    relay.feed = [model_change("live", 4, garbled)]
    failed = nailmirror("sync", "now")
    assert failed.rc == 1 and len(failed.err.strip().splitlines()) == 1 and "Traceback" not in failed.err
    assert "size" in failed.err and _status()["cursor"] == cursor and _row("live", 4) is None
    relay.feed = [model_change("live", 4, hq.sign(manifest_for(data)))]  # HQ mends it
    _sync()
    row = _row("live", 4)
    assert row is not None and row.state == "verified"


def test_hqs_key_rotation_is_followed_and_its_re_signed_release_is_not_fetched_again(
        rig: HqRig, proxy: FaultProxy, tmp_path: Path) -> None:
    """The real HQ rotates its key (key_rotation.py): hello carries the new key and the rotation the old key
    signed, the kiosk follows it, and the live release HQ re-signs under a new number is the same file."""
    enroll(rig, proxy.url)
    _sync()
    path = tmp_path / "model.onnx"
    path.write_bytes(model_file())
    sha256, size = model_releases.store_model_file(rig.hq.engine, rig.hq.blobs, path)
    manifest = manifest_for(path.read_bytes())
    with db.write(rig.hq.engine) as conn:
        first = model_releases.publish(conn, rig.hq.require_signing_key(), channel_code="all",
                                       name="nail_segmenter", slot="live", sha256=sha256, size=size,
                                       inputs=manifest["inputs"], outputs=manifest["outputs"],
                                       gate_report_id="gate-9", threshold=None, actor="test")
    _sync()
    kiosk = open_database(database_path())
    try:
        store.mark_active(kiosk, "live", first.version)  # the switch at an idle moment (issue #27 §7)
    finally:
        kiosk.close()
    old_key = _status()["hq_key_id"]
    with db.write(rig.hq.engine) as conn:
        rotated = key_rotation.rotate(conn, rig.hq.kek or b"", "test")
    rig.hq.signing_key = rotated.key  # the running app signs with the new key (as HQ's own rotation tests do)
    _sync()
    status = _status()
    assert status["model_signing"] == "ok" and status["hq_key_id"] not in (None, old_key)
    slot = status["model_slots"]["live"]
    assert slot["state"] == "active" and slot["release"] > first.version
    assert slot["version"] == manifest["version"]
    assert len([p for p in proxy.paths() if p.startswith(f"/v1/blobs/{sha256}")]) == 1  # fetched once, ever
