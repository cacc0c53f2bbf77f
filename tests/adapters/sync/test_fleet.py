"""The kiosk in HQ's fleet (issue #25 §7, §8), against the real HQ on loopback: its name from enrollment, the
health its report carries (versions, sync state, cursor, dead letters, disk, camera, FPS), and what an HQ
operator asks of it, done at its next sync and answered: dead letters replayed (never a generation's, never one
that ended OUTCOME_UNKNOWN), a resync from the snapshot, failed downloads retried before their backoff ran out."""

from __future__ import annotations

from typing import Any

import pytest

from nailmirror_desktop.app.services import register_credits, register_sync
from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.model_version import model_version
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.sync import fleet as kiosk_fleet
from nailmirror_desktop.core.tasks import TaskEngine
from nailmirror_desktop.core.tasks.context import TaskContext
from nailmirror_desktop.core.tasks.errors import ErrorClass, TaskError
from nailmirror_hq import db, fleet
from tests.adapters.sync.test_client import status, visible
from tests.adapters.sync.test_failed_downloads import blob_row, hq_report, rot, settle
from tests.support.sync_rig import HqRig, nailmirror


def hq_kiosk(rig: HqRig, store_id: str) -> fleet.FleetKiosk:
    with db.read(rig.hq.engine) as conn:
        (kiosk,) = [k for k in fleet.fleet(conn) if k.store_id == store_id]
    return kiosk


def ask(rig: HqRig, kiosk_id: str, kind: str) -> str:
    with db.write(rig.hq.engine) as conn:
        return fleet.ask(conn, kiosk_id, kind, "hq:li.wang").id


def dead_letters() -> dict[str, Any]:
    """Three dead letters as a kiosk gets them: a preview that failed, a preview and a paid generation whose
    outcome nobody knows. Returns their task numbers by name."""
    failures = {"failed": ("EFFECT_PREVIEW", "render_failed"), "unknown": ("EFFECT_PREVIEW", "OUTCOME_UNKNOWN"),
                "paid": ("STYLE_GENERATION", "provider_refused")}

    def fail(ctx: TaskContext) -> dict[str, Any]:
        raise TaskError(str((ctx.task.payload or {})["code"]), "as it failed", ErrorClass.INVALID_REQUEST)

    with TaskEngine(database_path()) as engine:
        engine.register_handler("EFFECT_PREVIEW", fail)
        engine.register_handler("STYLE_GENERATION", fail)
        numbers = {name: engine.submit(task_type, {"code": code}).task_no
                   for name, (task_type, code) in failures.items()}
        engine.run_until_idle()
        assert {engine.get(n).status.value for n in numbers.values()} == {"DEAD"}  # type: ignore[union-attr]
    return numbers


def task_status(task_no: str) -> str:
    with TaskEngine(database_path()) as engine:
        task = engine.get(task_no)
        assert task is not None
        return task.status.value


@pytest.mark.slow
def test_the_report_carries_the_kiosks_health_and_hq_asks_are_done_once(rig: HqRig) -> None:
    store_id, code = rig.add_store("SH-0099")
    assert nailmirror("sync", "enroll", code, "--hq", rig.url, "--name", "Window seat").rc == 0
    style_id = rig.publish_new()
    conn = open_database(database_path())
    try:
        kiosk_fleet.record_health(conn, "LIVE", 27.46)  # what the running kiosk's mirror writes
    finally:
        conn.close()
    numbers = dead_letters()
    assert nailmirror("sync", "now").rc == 0 and visible(style_id)

    report = hq_report(rig, store_id)
    model = status()["model_version"]
    assert model == model_version() and report["model_version"] == model
    assert report["app_version"] == status()["app_version"] == "0.1.0" and report["sync_state"] == "OK"
    assert report["dead_letters"] == {"EFFECT_PREVIEW": 2, "STYLE_GENERATION": 1}
    assert report["camera_state"] == "LIVE" and report["fps"] == 27.5 and report["disk_free_bytes"] > 0
    kiosk = hq_kiosk(rig, store_id)
    assert kiosk.name == "Window seat" and kiosk.cursor_lag == 0 and kiosk.problems == ("dead_letters",)
    assert status()["kiosk_name"] == "Window seat"  # the kiosk knows the name HQ shows it under
    with db.write(rig.hq.engine) as conn:
        fleet.rename(conn, kiosk.kiosk_id, "Front desk", "hq:li.wang")

    replay, resync = ask(rig, kiosk.kiosk_id, "replay_dead_letters"), ask(rig, kiosk.kiosk_id, "resync")
    assert nailmirror("sync", "now").rc == 0 and visible(style_id)
    assert status()["kiosk_name"] == "Front desk"  # renamed at HQ: the kiosk's next sync says so
    assert task_status(numbers["failed"]) == "PENDING"  # replayed: the kiosk's own engine runs it next
    assert task_status(numbers["unknown"]) == task_status(numbers["paid"]) == "DEAD"  # left for staff
    done = {r.id: r for r in hq_kiosk(rig, store_id).requests}
    assert (done[replay].outcome, done[replay].detail) == (
        "DONE", "1 replayed, 2 left for staff (generation or outcome unknown)")
    assert done[resync].outcome == "DONE" and "snapshot" in (done[resync].detail or "")
    assert hq_report(rig, store_id)["dead_letters"] == {"EFFECT_PREVIEW": 1, "STYLE_GENERATION": 1}

    again = ask(rig, kiosk.kiosk_id, "replay_dead_letters")  # a new request: nothing left that HQ may replay
    assert nailmirror("sync", "now").rc == 0
    assert {r.id: r for r in hq_kiosk(rig, store_id).requests}[again].detail == (
        "0 replayed, 2 left for staff (generation or outcome unknown)")


@pytest.mark.slow
def test_a_running_kiosk_retries_its_failed_downloads_when_hq_asks_not_after_its_backoff(rig: HqRig) -> None:
    store_id, code = rig.add_store("SH-0098")
    assert nailmirror("sync", "enroll", code, "--hq", rig.url).rc == 0
    style_id = rig.publish_new()
    sha256, path, good = rot(rig, style_id)
    clock = ManualClock()
    with TaskEngine(database_path(), clock=clock) as engine:
        register_credits(engine)
        register_sync(engine, periodic=True)
        settle(engine, clock, 120, step=10)
        failed = blob_row(sha256)
        assert failed["state"] == "FAILED" and failed["retry_at"] > clock.now() + 600
        settle(engine, clock, 200, step=10)  # the next poll reports it
        path.write_bytes(good)  # HQ's file mended; the operator sees the failed download on the fleet page
        assert "failed_downloads" in hq_kiosk(rig, store_id).problems
        request = ask(rig, hq_kiosk(rig, store_id).kiosk_id, "retry_downloads")
        settle(engine, clock, 300, step=10)  # the poll after, still before the blob's own retry
        assert clock.now() < failed["retry_at"] and blob_row(sha256)["state"] in ("PENDING", "DONE")
        settle(engine, clock, 1800 + 300, step=60)  # the download spread, and the poll that reports it
        assert blob_row(sha256)["state"] == "DONE" and visible(style_id)
    kiosk = hq_kiosk(rig, store_id)
    (answer,) = [r for r in kiosk.requests if r.id == request]
    assert (answer.outcome, answer.detail) == ("DONE", "1 failed download(s) queued again")
    assert "failed_downloads" not in kiosk.problems


@pytest.mark.slow
def test_one_revoked_kiosk_stops_and_says_so_while_its_store_goes_on(rig: HqRig) -> None:
    store_id, code = rig.add_store("SH-0097")
    assert nailmirror("sync", "enroll", code, "--hq", rig.url, "--name", "Stolen PC").rc == 0
    assert nailmirror("sync", "now").rc == 0
    with db.write(rig.hq.engine) as conn:
        other = fleet.stores.new_enroll_code(conn, store_id, "test")
        fleet.revoke(conn, "Stolen PC", "hq:li.wang")
    failed = nailmirror("sync", "now")
    assert failed.rc == 1 and "revoked" in failed.err.lower() and status()["state"] == "REVOKED"
    assert nailmirror("sync", "enroll", other, "--hq", rig.url, "--name", "New PC").rc == 0  # the store goes on
    assert nailmirror("sync", "now").rc == 0 and status()["state"] == "OK"
