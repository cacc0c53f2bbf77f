"""The Fleet tab in a real browser (Debian's chromium + chromedriver, driven by selenium), as an operator meets
it (issue #25 §7, §8): the fleet with its alerts, the "failed downloads" filter, a fix asked through its
confirmation, the kiosk's answer at its next sync, and one stolen kiosk revoked. Screenshots are kept in
test-artifacts/hq_fleet/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from nailmirror_hq import db, fleet, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.schema import store_token
from nailmirror_hq.service import HQ
from tests.hq.web.test_review_browser import PASSWORD, _browser
from tests.support.hq_fixtures import add_store, enroll
from tests.support.hq_servers import Uvicorn

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = Path(os.environ.get("NAILMIRROR_TEST_ARTIFACTS") or ROOT / "test-artifacts") / "hq_fleet"
SHA = "ab" * 32


@pytest.fixture
def fleet_server(hq_sqlite: HQ) -> Iterator[tuple[HQ, Uvicorn, TestClient, dict[str, dict[str, str]]]]:
    """Three stores' kiosks: one well, one with a failed download and dead letters, one silent for 36 h."""
    hq = hq_sqlite
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
    api = TestClient(create_app(hq))
    kiosks = {}
    for store, name in (("SH-0012", "Front desk"), ("BJ-0001", "Window seat"), ("GZ-0100", "Back room")):
        _store_id, code = add_store(hq, store)
        kiosks[name] = enroll(api, code, name)
        assert api.get("/v1/hello", headers=kiosks[name]).status_code == 200
    well = {"nm": 1, "app_version": "0.2.0", "model_version": "2ae635817291", "sync_state": "OK",
            "dead_letters": {}, "disk_free_bytes": 40 * 2**30, "camera_state": "LIVE", "fps": 28.4,
            "failed_downloads": []}
    api.put("/v1/kiosks/me/sync-report", headers=kiosks["Front desk"], json=well)
    api.put("/v1/kiosks/me/sync-report", headers=kiosks["Window seat"], json={
        **well, "dead_letters": {"EFFECT_PREVIEW": 1, "STYLE_GENERATION": 1}, "fps": 21.0,
        "failed_downloads": [{"style_code": "HQ-0007", "sha256": SHA, "attempts": 4, "last_error": "http_404"}]})
    with db.write(hq.engine) as conn:
        conn.execute(update(store_token).where(store_token.c.kiosk_name == "Back room").values(
            last_seen_at=(datetime.now(UTC) - timedelta(hours=36)).strftime("%Y-%m-%dT%H:%M:%S.000Z")))
    running = Uvicorn(create_app(hq))
    yield hq, running, api, kiosks
    running.stop()


@pytest.mark.slow  # a real Chromium
def test_watch_the_fleet_and_fix_a_failed_kiosk_in_chromium(
        fleet_server: tuple[HQ, Uvicorn, TestClient, dict[str, dict[str, str]]]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    hq, running, api, kiosks = fleet_server
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver = _browser()
    try:
        for lang in ("zh_CN", "en"):
            driver.get(f"{running.url}/review/login?lang={lang}")
            if driver.find_elements(By.ID, "sign-in"):
                driver.find_element(By.ID, "name").send_keys("li.wang")
                driver.find_element(By.ID, "password").send_keys(PASSWORD)
                driver.find_element(By.ID, "sign-in").click()
                WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "queue"))
            driver.find_element(By.ID, "nav-fleet").click()
            WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "fleet"))
            driver.save_screenshot(str(ARTIFACTS / f"1_fleet_{lang}.png"))
            if lang == "zh_CN":
                assert driver.find_element(By.TAG_NAME, "h1").text == "终端状态"
                assert "超过 24 小时未同步" in driver.find_element(By.ID, "alerts").text
        alerts = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#alerts li")]
        assert alerts == ["st_GZ-0100 · Back room: Not synced for 24 h", "st_BJ-0001 · Window seat: Failed downloads",
                          "st_BJ-0001 · Window seat: Dead letters"]

        driver.find_element(By.ID, "filter-failed_downloads").click()
        WebDriverWait(driver, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#fleet tr")) == 2)
        row = driver.find_element(By.CSS_SELECTOR, "#fleet tr[id^=kiosk-]")
        assert row.find_element(By.CLASS_NAME, "name").text == "Window seat"
        assert "EFFECT_PREVIEW 1" in row.find_element(By.CLASS_NAME, "problems").text
        driver.save_screenshot(str(ARTIFACTS / "2_failed_downloads.png"))

        row.find_element(By.CLASS_NAME, "action-retry_downloads").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "confirm"))
        reach = driver.find_element(By.CLASS_NAME, "reach").text
        assert "Window seat" in reach and "st_BJ-0001" in reach and "no other kiosk" in reach
        driver.save_screenshot(str(ARTIFACTS / "3_confirm_retry.png"))
        driver.find_element(By.ID, "confirm-button").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "done"))
        assert "waiting for the next sync" in driver.find_element(By.ID, "fleet").text

        # The kiosk's next sync: hello carries the request, the report answers it and no download fails now.
        (asked,) = api.get("/v1/hello", headers=kiosks["Window seat"]).json()["fleet_requests"]
        assert api.put("/v1/kiosks/me/sync-report", headers=kiosks["Window seat"], json={
            "nm": 1, "failed_downloads": [], "dead_letters": {"STYLE_GENERATION": 1}, "sync_state": "OK",
            "fleet_results": [{**asked, "outcome": "DONE", "detail": "1 failed download(s) queued again",
                               "done_at": "2026-12-04T10:00:00.000Z"}]}).status_code == 200
        driver.get(f"{running.url}/review/fleet")
        row = driver.find_element(By.XPATH, "//tr[.//b[text()='Window seat']]")
        assert "Retry failed downloads: done — 1 failed download(s) queued again" in row.text
        assert "Failed downloads" not in row.find_element(By.CLASS_NAME, "problems").text
        driver.save_screenshot(str(ARTIFACTS / "4_fixed.png"))
        # The generation dead letter is for staff: once a replay says so, a note and no alert (issue #25 gaps).
        with db.write(hq.engine) as conn:
            replay = fleet.ask(conn, "Window seat", "replay_dead_letters", "hq:li.wang")
        assert api.get("/v1/hello", headers=kiosks["Window seat"]).status_code == 200
        assert api.put("/v1/kiosks/me/sync-report", headers=kiosks["Window seat"], json={
            "nm": 1, "failed_downloads": [], "dead_letters": {"STYLE_GENERATION": 1}, "sync_state": "OK",
            "fleet_results": [{"id": replay.id, "kind": "replay_dead_letters", "outcome": "DONE",
                               "detail": "0 replayed, 1 left for staff (generation or outcome unknown)",
                               "done_at": "2026-12-04T10:05:00.000Z"}]}).status_code == 200
        driver.get(f"{running.url}/review/fleet")
        row = driver.find_element(By.XPATH, "//tr[.//b[text()='Window seat']]")
        assert "waiting for staff at the kiosk" in row.find_element(By.CLASS_NAME, "problems").text
        assert not [a for a in driver.find_elements(By.CSS_SELECTOR, "#alerts li") if "Window seat" in a.text]
        driver.save_screenshot(str(ARTIFACTS / "4b_waiting_for_staff.png"))

        row = driver.find_element(By.XPATH, "//tr[.//b[text()='Back room']]")
        row.find_element(By.CLASS_NAME, "action-revoke").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "confirm"))
        assert "The store's other kiosks go on" in driver.find_element(By.CLASS_NAME, "reach").text
        driver.find_element(By.ID, "confirm-button").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "done"))
        assert "Revoked" in driver.find_element(By.XPATH, "//tr[.//b[text()='Back room']]").text
        driver.save_screenshot(str(ARTIFACTS / "5_revoked.png"))
    finally:
        driver.quit()
    assert api.get("/v1/hello", headers=kiosks["Back room"]).json()["error"] == "token_revoked"
    assert api.get("/v1/hello", headers=kiosks["Front desk"]).status_code == 200
    assert all((ARTIFACTS / f).stat().st_size > 1000 for f in (
        "1_fleet_zh_CN.png", "1_fleet_en.png", "2_failed_downloads.png", "3_confirm_retry.png", "4_fixed.png",
        "5_revoked.png"))
