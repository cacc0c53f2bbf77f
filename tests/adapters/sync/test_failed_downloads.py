"""A failed download comes back (issue #20 §14): retried with backoff by later cycles, at once when HQ publishes
a new version of its style or staff run `sync now`; `sync status --json` lists it, and the kiosk's sync report
tells HQ. The report is optional on both sides: a kiosk that sends none (an older one) and an HQ without the
route (an older one, simulated on the real wire by the proxy answering 404) both keep syncing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nailmirror_desktop.app.services import register_credits, register_sync
from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.model_version import model_version
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.sync.errors import SyncError
from nailmirror_desktop.core.tasks import TaskEngine
from nailmirror_hq import catalog, db, stores
from nailmirror_protocol import paths
from tests.adapters.sync.test_client import status, visible
from tests.adapters.sync.test_hostile_hq import hq_client, one_line
from tests.support.sync_rig import FaultProxy, HqRig, Rule, answer, enroll, local_styles, nailmirror


def rot(rig: HqRig, style_id: str) -> tuple[str, Path, bytes]:
    """HQ's copy of the style's nail texture rots on disk (same size, other bytes); (sha256, path, good bytes)."""
    nail = next(a for a in rig.style_assets(style_id) if a["type"] == "NAIL_TEXTURE")
    path = rig.blob_path(nail["sha256"])
    good = path.read_bytes()
    bad = bytearray(good)
    bad[-20] ^= 0xFF
    path.write_bytes(bytes(bad))
    return nail["sha256"], path, good


def style_code(rig: HqRig, style_id: str) -> str:
    with db.read(rig.hq.engine) as conn:
        row = catalog.get_style(conn, style_id)
    assert row is not None
    return str(row.style_code)


def hq_report(rig: HqRig, store_id: str) -> Any:
    with db.read(rig.hq.engine) as conn:
        (kiosk,) = stores.kiosks(conn, store_id)
    return kiosk["sync_report"]


def blob_row(sha256: str) -> dict[str, Any]:
    conn = open_database(database_path())
    try:
        return dict(conn.execute("SELECT * FROM sync_blob WHERE sha256 = ?", (sha256,)).fetchone())
    finally:
        conn.close()


@pytest.mark.slow
def test_a_failed_download_is_listed_reported_and_comes_back_once_hq_mends_it(
        rig: HqRig, proxy: FaultProxy) -> None:
    store_id = enroll(rig, proxy.url)
    style_id = rig.publish_new()
    sha256, path, good = rot(rig, style_id)
    failed = nailmirror("sync", "now")
    assert failed.rc == 1 and one_line(failed.err) and "hash_mismatch" in failed.err, failed.err
    assert style_code(rig, style_id) in failed.err
    listed = status()["failed_downloads"]
    assert isinstance(listed, list) and len(listed) == 1
    assert listed[0]["style_code"] == style_code(rig, style_id) and listed[0]["sha256"] == sha256
    assert listed[0]["attempts"] == 2 and listed[0]["last_error"].startswith("hash_mismatch")
    sent = hq_report(rig, store_id)
    assert sent["failed_downloads"] == [] and sent["cursor"] == status()["cursor"]  # sent before the blob failed
    assert sent["model_version"] == model_version()  # the nail model the kiosk runs (issue #26 §7)

    again = nailmirror("sync", "now")  # still rotten: tried again (staff asked), fails again, said again
    assert again.rc == 1 and status()["failed_downloads"][0]["attempts"] == 4
    reported = hq_report(rig, store_id)["failed_downloads"]  # this cycle told HQ of the first failure
    assert [(r["sha256"], r["style_code"], r["attempts"]) for r in reported] == [(sha256, style_code(rig, style_id), 2)]

    path.write_bytes(good)  # HQ mends its file
    assert nailmirror("sync", "now").rc == 0 and visible(style_id)
    assert status()["failed_downloads"] == []
    assert nailmirror("sync", "now").rc == 0 and hq_report(rig, store_id)["failed_downloads"] == []


def settle(engine: TaskEngine, clock: ManualClock, seconds: float, step: float = 60.0) -> None:
    """Run the engine while `seconds` pass on its clock (the poll timer, the blob spread, retries)."""
    waited = 0.0
    while waited < seconds:
        engine.run_due()
        clock.advance(step)
        waited += step
    engine.run_due()


@pytest.mark.slow
def test_the_poll_timer_retries_a_failed_download_after_its_backoff_not_before(rig: HqRig) -> None:
    from nailmirror_desktop.core.sync.tasks import FAILED_RETRY_BASE_S

    proxy = FaultProxy(rig.server.port)
    try:
        enroll(rig, proxy.url)
        local_styles()
        style_id = rig.publish_new()
        sha256, path, good = rot(rig, style_id)
        clock = ManualClock()
        with TaskEngine(database_path(), clock=clock) as engine:
            register_credits(engine)
            register_sync(engine, periodic=True)
            settle(engine, clock, 120, step=10)
            row = blob_row(sha256)
            assert row["state"] == "FAILED" and row["attempts"] == 2
            assert row["retry_at"] >= clock.now() - 120 + FAILED_RETRY_BASE_S - 1
            path.write_bytes(good)  # HQ mends the file but publishes nothing new
            gets = sum(f"/v1/blobs/{sha256}" in p for p in proxy.paths())
            settle(engine, clock, row["retry_at"] - clock.now() - 60)  # polls meanwhile, the blob waits
            assert blob_row(sha256)["state"] == "FAILED" and not visible(style_id)
            assert sum(f"/v1/blobs/{sha256}" in p for p in proxy.paths()) == gets
            settle(engine, clock, 300 + 1800 + 120)  # the next poll after it queues it (spread over 30 min)
            assert blob_row(sha256)["state"] == "DONE" and visible(style_id)
    finally:
        proxy.stop()


@pytest.mark.slow
def test_a_new_version_from_hq_retries_a_failed_download_at_once(rig: HqRig) -> None:
    enroll(rig)
    local_styles()
    style_id = rig.publish_new()
    sha256, path, good = rot(rig, style_id)
    clock = ManualClock()
    with TaskEngine(database_path(), clock=clock) as engine:
        register_credits(engine)
        register_sync(engine, periodic=True)
        settle(engine, clock, 120, step=10)
        assert blob_row(sha256)["state"] == "FAILED"
        path.write_bytes(good)
        with db.write(rig.hq.engine) as conn:  # HQ re-publishes the style: a new version naming the same blob
            row = catalog.get_style(conn, style_id)
            assert row is not None
            catalog.replace_body(conn, style_id, {**row.body, "prompt": "mended"}, "test")
        settle(engine, clock, 300, step=10)  # the next poll, well before the blob's backoff ran out
        assert blob_row(sha256)["state"] in ("PENDING", "DONE")
        assert blob_row(sha256)["retry_at"] is None
        settle(engine, clock, 1800 + 60)  # within the publish spread
        assert blob_row(sha256)["state"] == "DONE" and visible(style_id)


@pytest.mark.slow
def test_new_kiosk_with_an_hq_that_has_no_report_route_keeps_syncing(rig: HqRig, proxy: FaultProxy) -> None:
    # An HQ from before sync reports: its router answers 404 for the path (FastAPI's own body).
    old_hq = answer(404, "Not Found", {"Content-Type": "application/json"}, b'{"detail":"Not Found"}')
    proxy.rules.append(Rule(path=paths.SYNC_REPORT, times=100, answer=old_hq))
    enroll(rig, proxy.url)
    style_id = rig.publish_new()
    run = nailmirror("sync", "now")
    assert run.rc == 0 and run.err == "", run.err
    assert visible(style_id) and status()["state"] == "OK"
    assert sum(paths.SYNC_REPORT in p for p in proxy.paths()) == 1
    assert nailmirror("sync", "now").rc == 0
    assert sum(paths.SYNC_REPORT in p for p in proxy.paths()) == 1  # the same report is not pressed on it again


@pytest.mark.slow
def test_new_hq_takes_a_report_with_fields_missing_or_unknown_and_refuses_a_wrong_shape(rig: HqRig) -> None:
    store_id = enroll(rig)
    assert hq_report(rig, store_id) is None  # a kiosk that never sent one (an older kiosk) is simply that
    assert nailmirror("sync", "now").rc == 0
    client = hq_client(rig)
    client.put_sync_report({"nm": 1})  # an older kiosk's report, without failed_downloads
    assert hq_report(rig, store_id) == {"nm": 1}
    entry = {"style_code": "NM-1", "sha256": "a" * 64, "attempts": 3, "last_error": "hash_mismatch: x",
             "since": "2026-01-01"}
    client.put_sync_report({"nm": 1, "failed_downloads": [entry], "disk_free_mb": 12})  # type: ignore[typeddict-unknown-key]
    assert hq_report(rig, store_id) == {"nm": 1, "failed_downloads": [
        {"style_code": "NM-1", "sha256": "a" * 64, "attempts": 3, "last_error": "hash_mismatch: x"}]}
    client.put_sync_report({"nm": 1, "model_version": "nail_segmenter-0123456789ab"})
    assert hq_report(rig, store_id) == {"nm": 1, "model_version": "nail_segmenter-0123456789ab"}
    for bad_version in ({"nm": 1, "model_version": 7}, {"nm": 1, "model_version": "x" * 81}):
        with pytest.raises(SyncError, match="model_version"):
            client.put_sync_report(bad_version)  # type: ignore[typeddict-item]
    bad = {"nm": 1, "failed_downloads": [{**entry, "sha256": "../../x"}]}
    try:
        client.put_sync_report(bad)  # type: ignore[arg-type]
    except SyncError as exc:
        assert exc.code == "bad_request" and "sha256" in exc.message
    else:
        raise AssertionError("HQ took a report with a malformed hash")
    try:
        client.put_sync_report({"nm": 1, "cursor": "../x"})
    except SyncError as exc:
        assert exc.code == "bad_request" and "cursor" in exc.message
    else:
        raise AssertionError("HQ took a report with a malformed cursor")
    assert json.dumps(hq_report(rig, store_id)).count("../") == 0
