"""What HQ learns back of its model releases (issue #27 §5–§7), on SQLite, PostgreSQL (+ S3): the sync report's
`model_signing` and `model_slots` kept per kiosk, the fleet's model problems and filter, and a model rollout's
report (running, failing, pending, unknown); an older kiosk's report without model fields still accepted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from nailmirror_hq import db, fleet, rollout_actions, rollout_report, rollouts
from nailmirror_hq.service import HQ
from tests.hq.test_fleet import another_code, report
from tests.hq.test_model_releases import publish
from tests.support.hq_fixtures import add_store, enroll

REASON = "painted nails per frame 7.1 < 8.6 (median of 20)"


def slot(version: str, state: str, release: int | None = None, detail: str = "") -> dict[str, Any]:
    found: dict[str, Any] = {"version": version, "state": state, "detail": detail, "at": "2026-12-05T02:00:00.000Z"}
    if release is not None:
        found["release"] = release
    return found


def test_the_fleet_and_a_model_rollout_read_each_kiosks_model_state(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    canary_store, code = add_store(hq, "SH-0012")
    running = enroll(client, code, "running")
    other_store, other_code = add_store(hq, "BJ-0001")
    rolled = enroll(client, other_code, "rolled back")
    older = enroll(client, another_code(hq, other_store), "older")
    keyless = enroll(client, another_code(hq, other_store), "no key")
    strange = enroll(client, another_code(hq, other_store), "other key")
    for headers in (running, rolled, older, keyless, strange):  # seen: no "not synced" problem in the way
        assert client.get("/v1/hello", headers=headers).status_code == 200
    with db.write(hq.engine) as conn:
        rollouts.add_canary(conn, "all", canary_store, "t")
    release = publish(hq, tmp_path, salt=1)
    version = release.manifest["version"]
    with db.read(hq.engine) as conn:
        held = rollout_report.report(conn, rollouts.get(conn, release.rollout_id))
    assert (held.code, held.in_scope, held.pending) == (version, 1, 1)  # in canary: the canary store alone

    report(client, running, {"model_signing": "ok", "model_slots": {"live": slot(version, "active", 1)}})
    with db.write(hq.engine) as conn:
        rollout_actions.widen(conn, release.rollout_id, "t")
    report(client, rolled, {"model_signing": "ok", "model_slots": {
        "live": slot("nail_segmenter-bundled", "rolled_back", 1, REASON), "still": slot("bundled-1", "bundled")}})
    report(client, older, {"failed_downloads": []})  # a kiosk from before releases: accepted, counted unknown
    report(client, keyless, {"model_signing": "no_key", "model_slots": {"live": slot("bundled-1", "bundled")}})
    report(client, strange, {"model_signing": "key_mismatch", "model_slots": {}})

    with db.read(hq.engine) as conn:
        rows = {k.name: k for k in fleet.fleet(conn)}
        widened = rollout_report.report(conn, rollouts.get(conn, release.rollout_id))
    assert rows["running"].problems == () and rows["running"].model_slots["live"]["release"] == 1
    assert rows["rolled back"].problems == ("model_failed",)
    assert rows["rolled back"].model_failures() == [("live", slot("nail_segmenter-bundled", "rolled_back", 1,
                                                                   REASON))]
    assert rows["older"].problems == () and rows["older"].model_signing is None and rows["older"].model_slots == {}
    assert rows["no key"].problems == () and rows["no key"].model_signing == "no_key"
    assert rows["other key"].problems == ("model_key",)
    listed = list(rows.values())
    assert {k.name for k in fleet.select_rows(listed, "model_problems")} == {"rolled back", "no key", "other key"}
    assert [(k.name, p) for k, p in fleet.alerts(listed)] == [("rolled back", "model_failed"),
                                                              ("other key", "model_key")]
    by_name = {k.kiosk_name: k.state for k in widened.kiosks}
    assert by_name == {"running": "showing", "rolled back": "failing", "older": "unknown", "no key": "pending",
                       "other key": "pending"}
    assert (widened.in_scope, widened.showing, widened.failing, widened.pending, widened.unknown) == (5, 1, 1, 2, 1)
    assert widened.as_json(kiosks=False)["code"] == version
