"""Model releases on the Fleet tab in a real browser (Debian's chromium + chromedriver, driven by selenium), as an
operator meets them (issue #27 §5–§7): each kiosk's model per slot, a rollback with the kiosk's reason in the
alerts, "waiting for HQ's key", and the "model problems" filter, in zh_CN and English. Screenshots are kept in
test-artifacts/hq_fleet/."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq import db, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.hq.test_model_fleet import REASON, slot
from tests.hq.test_model_releases import publish
from tests.hq.web.test_fleet_browser import ARTIFACTS
from tests.hq.web.test_review_browser import PASSWORD, _browser
from tests.support.hq_fixtures import add_store, enroll
from tests.support.hq_servers import Uvicorn


@pytest.mark.slow  # a real Chromium
def test_an_operator_sees_each_kiosks_model_and_the_rolled_back_one_in_chromium(
        hq_sqlite: HQ, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    hq = hq_sqlite
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
    api = TestClient(create_app(hq))
    kiosks = {}
    for store, name in (("SH-0012", "Front desk"), ("BJ-0001", "Window seat"), ("GZ-0100", "Back room")):
        _, code = add_store(hq, store)
        kiosks[name] = enroll(api, code, name)
        assert api.get("/v1/hello", headers=kiosks[name]).status_code == 200
    version = publish(hq, tmp_path, salt=1).manifest["version"]
    for name, body in (
            ("Front desk", {"model_signing": "ok", "model_slots": {
                "live": slot(version, "active", 1), "still": slot("nail_segmenter-2ae635817291", "bundled")}}),
            ("Window seat", {"model_signing": "ok", "model_slots": {
                "live": slot("nail_segmenter-2ae635817291", "rolled_back", 1, REASON)}}),
            ("Back room", {"model_signing": "no_key", "model_slots": {}})):
        assert api.put("/v1/kiosks/me/sync-report", headers=kiosks[name], json={"nm": 1, **body}).status_code == 200
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    running = Uvicorn(create_app(hq))
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
            driver.save_screenshot(str(ARTIFACTS / f"6_models_{lang}.png"))
            if lang == "zh_CN":
                assert "模型版本已回滚或被拒绝" in driver.find_element(By.ID, "alerts").text
                assert "等待总部密钥" in driver.find_element(By.ID, "fleet").text
        (alert,) = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#alerts li.alert-model_failed")]
        assert alert == f"st_BJ-0001 · Window seat: Model release rolled back or refused — Live mirror: {REASON}"
        front = driver.find_element(By.XPATH, "//tr[.//b[text()='Front desk']]").find_element(By.CLASS_NAME,
                                                                                            "models").text
        assert f"Live mirror: {version} (#1) — running" in front and "Photos: nail_segmenter-2ae635817291" in front

        driver.find_element(By.ID, "filter-model_problems").click()
        WebDriverWait(driver, 20).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#fleet tr")) == 3)
        names = [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#fleet b.name")]
        assert names == ["Window seat", "Back room"]
        back = driver.find_element(By.XPATH, "//tr[.//b[text()='Back room']]")
        assert back.find_element(By.CLASS_NAME, "models").text == "Waiting for HQ's key"
        driver.save_screenshot(str(ARTIFACTS / "7_model_problems.png"))
    finally:
        driver.quit()
        running.stop()
    assert all((ARTIFACTS / f).stat().st_size > 1000 for f in (
        "6_models_zh_CN.png", "6_models_en.png", "7_model_problems.png"))
