"""The Rollouts tab in a real browser (Debian's chromium + chromedriver, driven by selenium): put a store in the
canary set, watch a new version reach it (the kiosk's sync report past the change), widen it to every store,
then roll the style back after the confirmation that names its reach. Screenshots in test-artifacts/hq_rollouts/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq import catalog, db, reviewers, rollouts, style_folder
from nailmirror_hq.api.app import create_app
from nailmirror_hq.schema import audit_log
from nailmirror_hq.service import HQ
from nailmirror_protocol import paths
from tests.hq.web.test_review_browser import PASSWORD, _browser
from tests.support.hq_fixtures import new_kiosk
from tests.support.hq_fixtures import style_folder as make_folder
from tests.support.hq_servers import Uvicorn

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = Path(os.environ.get("NAILMIRROR_TEST_ARTIFACTS") or ROOT / "test-artifacts") / "hq_rollouts"


def _new_version(hq: HQ, style_id: str, root: Path) -> None:
    folder = style_folder.read(make_folder(root, name="樱花二版", salt=77))
    for img in folder.images:
        catalog.store_blob(hq.blobs, img.data, img.sha256)
    with db.write(hq.engine) as conn:
        for img in folder.images:
            catalog.record_blob(conn, img.sha256, len(img.data), img.format, img.width, img.height)
        body = catalog.folder_body(folder, name_zh="樱花二版", name_en="", category_code=None, tags=[], prompt="")
        catalog.replace_body(conn, style_id, body, "test")


@pytest.mark.slow  # a real Chromium
def test_canary_widen_and_roll_back_in_chromium(hq_sqlite: HQ, tmp_path: Path) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    from selenium.webdriver.support.ui import WebDriverWait as _Wait

    def WebDriverWait(driver, timeout):  # type: ignore[no-untyped-def]  # noqa: N802
        # each form post reloads the page: an element of the old page only means "look again"
        return _Wait(driver, timeout, ignored_exceptions=[StaleElementReferenceException])

    hq = hq_sqlite
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
    api = TestClient(create_app(hq))
    canary_store, canary_headers = new_kiosk(hq, api, "SH-0012")
    new_kiosk(hq, api, "BJ-0001")
    style = catalog.import_folder(hq.engine, hq.blobs, make_folder(tmp_path / "v1", name="樱花一版", salt=5),
                                  actor="test", publish=True)
    running = Uvicorn(create_app(hq))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver = _browser()
    try:
        driver.get(f"{running.url}/review/login?lang=zh_CN")
        driver.find_element(By.ID, "name").send_keys("li.wang")
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "sign-in").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "queue"))
        driver.find_element(By.LINK_TEXT, "发布进度").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "canary"))
        Select(driver.find_element(By.CSS_SELECTOR, "#canary-all select")).select_by_value(canary_store)
        driver.find_element(By.CSS_SELECTOR, "#canary-all button.add-canary").click()
        WebDriverWait(driver, 20).until(lambda d: canary_store in d.find_element(By.ID, "canary-all").text)

        _new_version(hq, style.id, tmp_path / "v2")
        with db.read(hq.engine) as conn:
            rollout = rollouts.list_rollouts(conn, subject_id=style.id)[0]
        # The canary kiosk syncs its feed (the canary feed's snapshot) and says so in its report.
        snapshot = api.get(paths.CATALOG_SNAPSHOT, headers=canary_headers).json()
        assert [s["style"]["name"]["zh"] for s in snapshot["styles"]] == ["樱花二版"]
        cursor = snapshot["cursor"]
        assert api.put("/v1/kiosks/me/sync-report", headers=canary_headers,
                       json={"nm": 1, "failed_downloads": [], "cursor": cursor}).status_code == 200
        driver.get(f"{running.url}/review/rollouts")
        row = driver.find_element(By.ID, f"rollout-{rollout.id}")
        assert "试点中" in row.find_element(By.CLASS_NAME, "stage").text
        assert (row.find_element(By.CLASS_NAME, "in-scope").text, row.find_element(By.CLASS_NAME, "showing").text) == (
            "1", "1")
        driver.save_screenshot(str(ARTIFACTS / "1_canary.png"))

        row.find_element(By.CSS_SELECTOR, "button.widen").click()
        WebDriverWait(driver, 20).until(
            lambda d: "已全面发布" in d.find_element(By.CSS_SELECTOR, f"#rollout-{rollout.id} .stage").text)
        row = driver.find_element(By.ID, f"rollout-{rollout.id}")
        assert row.find_element(By.CLASS_NAME, "in-scope").text == "2"
        driver.save_screenshot(str(ARTIFACTS / "2_widened.png"))
        driver.get(f"{running.url}/review/rollouts?refused=not_found")  # a refusal, as a form's redirect says it
        assert driver.find_element(By.ID, "refused").text == "未执行：该门店、渠道或发布已不存在，请刷新页面。"
        driver.save_screenshot(str(ARTIFACTS / "2b_refused.png"))
        row = driver.find_element(By.ID, f"rollout-{rollout.id}")

        row.find_element(By.CSS_SELECTOR, "a.rollback").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "reach"))
        reach = driver.find_element(By.ID, "reach").text
        assert "2 家门店" in reach and "2 台" in reach and "版本 2" in reach, reach
        driver.save_screenshot(str(ARTIFACTS / "3_confirm_rollback.png"))
        driver.find_element(By.ID, "confirm-rollback").click()
        WebDriverWait(driver, 20).until(
            lambda d: "已回滚" in d.find_element(By.CSS_SELECTOR, f"#rollout-{rollout.id} .stage").text)
        driver.save_screenshot(str(ARTIFACTS / "4_rolled_back.png"))
    finally:
        driver.quit()
        running.stop()
    with db.read(hq.engine) as conn:
        current = catalog.get_style(conn, style.id)
        actions = list(conn.execute(audit_log.select().where(audit_log.c.entity_id.in_((style.id, canary_store)))))
    assert current is not None and current.version == 4 and current.body["name"]["zh"] == "樱花一版"
    assert {(a.action, a.actor) for a in actions} >= {("CANARY_ADD", "hq:li.wang"), ("ROLLOUT_WIDEN", "hq:li.wang"),
                                                       ("STYLE_ROLLBACK", "hq:li.wang")}
    assert all((ARTIFACTS / f).stat().st_size > 1000 for f in ("1_canary.png", "2_widened.png",
                                                                "3_confirm_rollback.png", "4_rolled_back.png"))
