"""The review queue in Chromium shows a draft's designer's choice of nail shape and length (issue #24), in
Chinese; the screenshot is kept in test-artifacts/hq_review/designer_choice.png."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq import db, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.hq.web.test_review_browser import ARTIFACTS, PASSWORD, _browser
from tests.support.hq_fixtures import draft_body, new_draft_id, new_kiosk
from tests.support.hq_servers import Uvicorn


@pytest.mark.slow  # a real Chromium
def test_the_queue_names_the_designers_shape_and_length_in_chromium(hq_sqlite: HQ) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    hq = hq_sqlite
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test")
    api = TestClient(create_app(hq))
    _, headers = new_kiosk(hq, api, "SH-0012")
    draft_id = new_draft_id()
    body = {**draft_body(api, headers, name="杏仁裸粉"), "design": {"base": "nude", "shape": "almond",
                                                                   "length": "medium"}}
    assert api.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=body).status_code == 201
    running = Uvicorn(create_app(hq))
    driver = _browser()
    try:
        driver.get(f"{running.url}/review/login?lang=zh_CN")
        driver.find_element(By.ID, "name").send_keys("li.wang")
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "sign-in").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "queue"))
        line = driver.find_element(By.CSS_SELECTOR, f"#draft-{draft_id} .nail-form")
        assert line.is_displayed() and line.text == "设计师推荐: 杏仁形 · 中长", line.text
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "designer_choice.png"))
    finally:
        driver.quit()
        running.stop()
