"""The review page's Captures tab (issue #26 §6) through the real app: sign-in required; counts per store and
day and thumbnails, each thumbnail an audited read served never-cached; a withdrawal by code with the session's
CSRF token; in zh_CN and English. Driven once in Chromium (a screenshot in test-artifacts/hq_review/)."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from nailmirror_hq import db
from nailmirror_hq.api.app import create_app
from nailmirror_hq.schema import audit_log, capture
from nailmirror_hq.service import HQ
from tests.hq.web.test_credits_page import _signed_in
from tests.support.hq_fixtures import new_kiosk, png


def _body(code: str, image: bytes) -> dict[str, Any]:
    return {"nm": 1, "code": code, "image_png_b64": base64.b64encode(image).decode(),
            "image_sha256": hashlib.sha256(image).hexdigest(), "taken_at": "2026-12-04T10:00:00.000Z",
            "consent": {"by": "customer", "at": "2026-12-04T10:00:00.000Z", "text_version": "v1"},
            "model_version": "nail_segmenter-2ae635817291", "facts": {}}


def _captured(hq: HQ) -> tuple[str, list[str]]:
    api = TestClient(create_app(hq))
    store_id, headers = new_kiosk(hq, api)
    codes = ["K7QH3MPX", "23456789"]
    for n, code in enumerate(codes):
        answer = api.put(f"/v1/captures/{code}", json=_body(code, png(64, 48, salt=n)), headers=headers)
        assert answer.status_code == 201
    return store_id, codes


def test_the_captures_tab_lists_counts_and_audited_thumbnails_and_withdraws(hq_sqlite: HQ) -> None:
    hq = hq_sqlite
    store_id, codes = _captured(hq)
    assert TestClient(create_app(hq)).get("/review/captures", follow_redirects=False).status_code == 303
    anonymous = TestClient(create_app(hq)).get(f"/review/captures/{codes[0]}/image", follow_redirects=False)
    assert anonymous.status_code == 303 and not anonymous.content.startswith(b"\x89PNG")
    browser = _signed_in(hq)
    page = browser.get("/review/captures?lang=en")
    assert page.status_code == 200 and "Nail captures" in page.text
    assert re.search(rf"<td>{store_id}</td><td>2026-12-04</td><td class=\"n\">2</td>", page.text), page.text
    assert all(f'id="capture-{code}"' in page.text for code in codes)
    image = browser.get(f"/review/captures/{codes[0]}/image")
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
    assert "no-store" in image.headers["cache-control"]
    with db.read(hq.engine) as conn:
        actions = [r.action for r in conn.execute(select(audit_log).where(audit_log.c.actor == "li.wang"))]
    assert {"CAPTURE_LIST", "CAPTURE_COUNTS", "CAPTURE_IMAGE"} <= set(actions)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf
    assert browser.post("/review/captures/withdraw", data={"code": "k7qh-3mpx"}).status_code == 403  # no token
    done = browser.post("/review/captures/withdraw", data={"csrf": csrf.group(1), "code": "k7qh-3mpx"})
    assert done.status_code == 200 and "deleted everywhere" in done.text
    with db.read(hq.engine) as conn:
        assert list(conn.execute(select(capture.c.code)).scalars()) == [codes[1]]
    bad = browser.post("/review/captures/withdraw", data={"csrf": csrf.group(1), "code": "nope"})
    assert "not a capture code" in bad.text
    zh = browser.get("/review/captures?lang=zh_CN")
    assert "美甲采集" in zh.text and "撤回" in zh.text and "按门店和日期" in zh.text


@pytest.mark.slow  # a real Chromium
def test_the_captures_tab_in_chromium(hq_sqlite: HQ) -> None:
    from selenium.webdriver.common.by import By

    from tests.hq.web.test_review_browser import ARTIFACTS, PASSWORD, _browser
    from tests.support.hq_servers import Uvicorn

    hq = hq_sqlite
    _captured(hq)
    from nailmirror_hq import reviewers

    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
    running = Uvicorn(create_app(hq))
    driver = _browser()
    try:
        driver.get(f"{running.url}/review/login?lang=zh_CN")
        driver.find_element(By.ID, "name").send_keys("li.wang")
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "sign-in").click()
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "who"))  # signed in before moving on
        driver.get(f"{running.url}/review/captures?lang=zh_CN")

        thumbs = driver.find_elements(By.CSS_SELECTOR, "#thumbnails img")
        assert len(thumbs) == 2
        loaded = "return arguments[0].complete && arguments[0].naturalWidth"
        WebDriverWait(driver, 10).until(lambda d: all(d.execute_script(loaded, t) for t in thumbs))
        assert all(driver.execute_script("return arguments[0].naturalWidth", t) == 64 for t in thumbs)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "captures_zh_CN.png"))
        driver.find_element(By.NAME, "code").send_keys("2345-6789")
        driver.find_element(By.CSS_SELECTOR, "#withdraw button").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "notice"))
        assert len(driver.find_elements(By.CSS_SELECTOR, "#thumbnails img")) == 1
        driver.save_screenshot(str(ARTIFACTS / "captures_withdrawn_zh_CN.png"))
    finally:
        driver.quit()
        running.stop()
