"""The review page's Fleet tab through the real app (issue #25 §7, §8): sign-in required; every kiosk with its
last report and problems, the filters and the alert list; each action behind a confirmation naming its reach,
done only by the confirmed, CSRF-checked form. (fleet.py's storage is tested on both engines in
tests/hq/test_fleet.py; the page is the same code over it.)"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq import db, fleet
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.hq.web.test_credits_page import _signed_in
from tests.support.hq_fixtures import add_store, enroll


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found
    return found.group(1)


@pytest.mark.slow  # about 2 s: a dozen requests through the real app
def test_fleet_page_shows_problems_filters_alerts_and_confirms_each_action(hq_sqlite: HQ) -> None:
    hq = hq_sqlite
    assert TestClient(create_app(hq)).get("/review/fleet", follow_redirects=False).status_code == 303
    api = TestClient(create_app(hq))
    store_id, code = add_store(hq)
    headers = enroll(api, code, "Window seat")
    assert api.get("/v1/hello", headers=headers).status_code == 200
    api.put("/v1/kiosks/me/sync-report", headers=headers, json={
        "nm": 1, "app_version": "0.2.0", "model_version": "2ae635817291", "sync_state": "OK",
        "failed_downloads": [{"style_code": "HQ-1", "sha256": "ab" * 32, "attempts": 2, "last_error": "x"}]})
    browser = _signed_in(hq)
    page = browser.get("/review/fleet?lang=en")
    assert page.status_code == 200 and 'id="nav-fleet"' in page.text and "Window seat" in page.text
    assert "2ae635817291" in page.text and 'class="alert-failed_downloads"' in page.text
    assert "Window seat" in browser.get("/review/fleet?filter=failed_downloads").text
    assert 'id="no-kiosks"' in browser.get("/review/fleet?filter=not_seen").text
    zh = browser.get("/review/fleet?lang=zh_CN").text
    assert ">终端状态</a>" in zh and "警报" in zh and "下载失败" in zh and "重试失败的下载" in zh

    kiosk_id = fleet_row(hq).kiosk_id
    confirm = browser.get(f"/review/fleet/{kiosk_id}/revoke?lang=en")
    assert confirm.status_code == 200 and f"Window seat ({kiosk_id})" in confirm.text
    assert f"of store {store_id} stops syncing at once" in confirm.text and "other kiosks go on" in confirm.text
    assert api.get("/v1/hello", headers=headers).status_code == 200  # the confirmation page changed nothing
    forged = browser.post(f"/review/fleet/{kiosk_id}/revoke", data={"csrf": "nope"})
    assert forged.status_code == 403 and api.get("/v1/hello", headers=headers).status_code == 200

    asked = browser.post(f"/review/fleet/{kiosk_id}/retry_downloads", data={"csrf": _csrf(confirm.text)})
    assert asked.status_code == 200 and 'id="done"' in asked.text
    assert api.get("/v1/hello", headers=headers).json()["fleet_requests"][0]["kind"] == "retry_downloads"
    assert "sent, waiting for the result" in browser.get("/review/fleet?lang=en").text
    renamed = browser.post(f"/review/fleet/{kiosk_id}/rename", data={"csrf": _csrf(confirm.text), "name": "Door"})
    assert renamed.status_code == 200 and fleet_row(hq).name == "Door"
    replaced = browser.post(f"/review/fleet/{kiosk_id}/replace", data={"csrf": _csrf(confirm.text)})
    new_code = re.search(r'<b id="new-code">([^<]+)</b>', replaced.text)
    assert new_code, replaced.text[-2000:]
    enroll(api, new_code.group(1), "new PC")
    assert api.get("/v1/hello", headers=headers).json()["error"] == "token_revoked"
    again = browser.post(f"/review/fleet/{kiosk_id}/resync", data={"csrf": _csrf(confirm.text)})
    assert again.status_code == 409 and "is revoked" in again.text
    assert browser.get("/review/fleet/k_nope/revoke").status_code == 404
    assert browser.get(f"/review/fleet/{kiosk_id}/format_disk").status_code == 404


def fleet_row(hq: HQ) -> fleet.FleetKiosk:
    with db.read(hq.engine) as conn:
        return fleet.fleet(conn)[0]


@pytest.mark.slow  # a reviewer's sign-in (argon2)
def test_dead_letters_a_replay_left_for_staff_wait_for_staff_instead_of_alerting(hq_sqlite: HQ) -> None:
    hq = hq_sqlite
    api = TestClient(create_app(hq))
    _, code = add_store(hq)
    headers = enroll(api, code, "Window seat")
    assert api.get("/v1/hello", headers=headers).status_code == 200  # seen: no "not synced" alert

    def report(dead: dict[str, int], **more: object) -> None:
        sent = api.put("/v1/kiosks/me/sync-report", headers=headers, json={"nm": 1, "dead_letters": dead, **more})
        assert sent.status_code == 200, sent.text

    report({"STYLE_GENERATION": 2, "BLOB_FETCH": 1})
    assert fleet_row(hq).problems == ("dead_letters",) and fleet_row(hq).waiting_for_staff == 0
    with db.write(hq.engine) as conn:
        asked = fleet.ask(conn, "Window seat", "replay_dead_letters", "hq:li")
    assert api.get("/v1/hello", headers=headers).status_code == 200
    detail = "1 replayed, 2 left for staff (generation or outcome unknown)"  # the kiosk's words (core/sync/fleet.py)
    report({"STYLE_GENERATION": 2}, fleet_results=[{"id": asked.id, "kind": "replay_dead_letters", "outcome": "DONE",
                                                    "detail": detail, "done_at": "2026-12-04T10:00:00.000Z"}])
    kiosk = fleet_row(hq)
    assert (kiosk.problems, kiosk.waiting_for_staff) == ((), 2)
    page = _signed_in(hq).get("/review/fleet?lang=en").text
    assert 'id="no-alerts"' in page and "2 dead letter(s) waiting for staff at the kiosk" in page
    report({"STYLE_GENERATION": 2, "IMAGE_FETCH": 1})  # a new one since: HQ may replay it, so the alert is back
    assert (fleet_row(hq).problems, fleet_row(hq).waiting_for_staff) == (("dead_letters",), 0)
