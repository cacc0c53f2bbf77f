"""A store's time zone on the stores page (issue #25 §11): shown per store, set by typing an IANA name (the list
offers zoneinfo's), refused with one line when it is not one; in Chromium with screenshots in
test-artifacts/hq_review/, and through the form's CSRF rules without a browser."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq import db, reviewers, stores
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.hq.web.test_review_browser import ARTIFACTS, PASSWORD, _browser
from tests.support.hq_fixtures import add_store
from tests.support.hq_servers import Uvicorn


def _zone(hq: HQ, store_id: str) -> str:
    with db.read(hq.engine) as conn:
        return stores.store_time_zone(conn, store_id)


def test_the_form_sets_a_zone_and_refuses_a_wrong_one(hq_sqlite: HQ, monkeypatch: pytest.MonkeyPatch) -> None:
    from argon2 import PasswordHasher

    monkeypatch.setattr(reviewers, "_hasher", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    with db.write(hq_sqlite.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
    store_id, _ = add_store(hq_sqlite, "SH-0012")
    client = TestClient(create_app(hq_sqlite))
    page = client.get("/review/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf and client.post("/review/login", data={"csrf": csrf.group(1), "name": "li.wang",
                                                       "password": PASSWORD}, follow_redirects=False).status_code == 303
    listing = client.get("/review/stores?lang=en")
    assert 'value="Asia/Shanghai"' in listing.text and '<option value="Europe/Paris">' in listing.text
    session_csrf = re.search(r'name="csrf" value="([^"]+)"', listing.text)
    assert session_csrf
    url = f"/review/stores/{store_id}/time-zone"
    assert client.post(url, data={"time_zone": "Europe/Paris"}).status_code == 403  # no CSRF token: nothing set
    assert _zone(hq_sqlite, store_id) == "Asia/Shanghai"
    done = client.post(url, data={"csrf": session_csrf.group(1), "time_zone": "Europe/Paris"})
    assert done.status_code == 200 and 'value="Europe/Paris"' in done.text
    assert _zone(hq_sqlite, store_id) == "Europe/Paris"
    refused = client.post(f"{url}?lang=en", data={"csrf": session_csrf.group(1), "time_zone": "<b>Mars/Olympus"})
    assert refused.status_code == 400 and "Not a time zone: &lt;b&gt;Mars/Olympus" in refused.text
    assert _zone(hq_sqlite, store_id) == "Europe/Paris"


@pytest.mark.slow  # a real Chromium
def test_setting_a_store_s_zone_in_chromium(hq_sqlite: HQ) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with db.write(hq_sqlite.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
    shanghai, _ = add_store(hq_sqlite, "SH-0012")
    add_store(hq_sqlite, "PAR-0001")
    running = Uvicorn(create_app(hq_sqlite))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver = _browser()
    try:
        driver.get(f"{running.url}/review/login?lang=zh_CN")
        driver.find_element(By.ID, "name").send_keys("li.wang")
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "sign-in").click()
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.ID, "queue"))
        driver.get(f"{running.url}/review/stores")
        row = driver.find_element(By.ID, "store-st_PAR-0001")
        field = row.find_element(By.NAME, "time_zone")
        assert field.get_attribute("value") == "Asia/Shanghai"  # a new store's default
        field.clear()
        field.send_keys("Europe/Paris")
        row.find_element(By.CSS_SELECTOR, "button.set-zone").click()
        # The form posts and the page reloads: an element of the old page goes stale while the wait looks.
        WebDriverWait(driver, 30, ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda d: d.find_element(By.ID, "store-st_PAR-0001").find_element(
            By.NAME, "time_zone").get_attribute("value") == "Europe/Paris")
        driver.save_screenshot(str(ARTIFACTS / "5_stores_time_zone.png"))
        field = driver.find_element(By.ID, f"store-{shanghai}").find_element(By.NAME, "time_zone")
        field.clear()
        field.send_keys("Mars/Olympus")
        driver.find_element(By.ID, f"store-{shanghai}").find_element(By.CSS_SELECTOR, "button.set-zone").click()
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.ID, "bad-zone"))
        assert driver.find_element(By.ID, "bad-zone").text.startswith("不是有效的时区：Mars/Olympus")
        assert "时区" in driver.find_element(By.ID, "stores").text
        driver.save_screenshot(str(ARTIFACTS / "6_stores_bad_time_zone.png"))
        driver.get(f"{running.url}/review/stores?lang=en")
        assert "Time zone" in driver.find_element(By.ID, "stores").text
        driver.save_screenshot(str(ARTIFACTS / "7_stores_time_zone_en.png"))
    finally:
        driver.quit()
        running.stop()
    assert _zone(hq_sqlite, "st_PAR-0001") == "Europe/Paris" and _zone(hq_sqlite, shanghai) == "Asia/Shanghai"
