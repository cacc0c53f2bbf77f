"""The review page in a real browser (Debian's chromium + chromedriver, driven by selenium), with htmx swapping
rows: approve, reject with a Chinese reason, and a second reviewer's stale page getting "already decided".
Screenshots are kept in test-artifacts/hq_review/."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq import db, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import Ticks, draft_body, new_draft_id, new_kiosk
from tests.support.hq_servers import Uvicorn, unavailable

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = Path(os.environ.get("NAILMIRROR_TEST_ARTIFACTS") or ROOT / "test-artifacts") / "hq_review"
PASSWORD = "correct horse battery"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def _browser():  # type: ignore[no-untyped-def]
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        unavailable("needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never try to download a driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1280,800"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.fixture
def server(hq_sqlite: HQ) -> Iterator[tuple[HQ, Uvicorn, list[str]]]:
    hq = hq_sqlite
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test")
        reviewers.add(conn, "zhang.min", PASSWORD, "test")
    api = TestClient(create_app(hq))
    ids = []
    for n, store in enumerate(("SH-0012", "BJ-0001", "GZ-0100")):
        _, headers = new_kiosk(hq, api, store)
        draft_id = new_draft_id()
        body = draft_body(api, headers, salt=n, name=f"奶白贝壳猫眼 {n + 1}")
        assert api.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=body).status_code == 201
        ids.append(draft_id)
    running = Uvicorn(create_app(hq))
    yield hq, running, ids
    running.stop()


@pytest.mark.slow  # a real Chromium
def test_review_round_trip_in_chromium(server: tuple[HQ, Uvicorn, list[str]]) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait as _Wait

    def WebDriverWait(driver, timeout):  # type: ignore[no-untyped-def]  # noqa: N802
        # htmx replaces the row while we read it: a stale element only means "look again"
        return _Wait(driver, timeout, ignored_exceptions=[StaleElementReferenceException])

    hq, running, (first_id, second_id, third_id) = server
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    a, b = _browser(), _browser()
    try:
        for driver, name in ((a, "li.wang"), (b, "zhang.min")):
            driver.get(f"{running.url}/review/login?lang=zh_CN")
            driver.find_element(By.ID, "name").send_keys(name)
            driver.find_element(By.ID, "password").send_keys(PASSWORD)
            driver.find_element(By.ID, "sign-in").click()
            WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "queue"))
        rows = a.find_elements(By.CSS_SELECTOR, "article.draft")
        assert len(rows) == 3 and {r.find_element(By.CLASS_NAME, "store").text for r in rows} == {
            "st_SH-0012", "st_BJ-0001", "st_GZ-0100"}
        a.save_screenshot(str(ARTIFACTS / "1_queue.png"))

        def status(driver, draft_id: str) -> str:  # type: ignore[no-untyped-def]
            return str(driver.find_element(By.ID, f"draft-{draft_id}").get_attribute("data-status"))

        a.find_element(By.CSS_SELECTOR, f"#draft-{first_id} button.approve").click()
        WebDriverWait(a, 20).until(lambda d: status(d, first_id) == "APPROVED")
        row = a.find_element(By.ID, f"draft-{second_id}")
        row.find_element(By.CLASS_NAME, "reason").send_keys("颜色与品牌色不符")
        row.find_element(By.CSS_SELECTOR, "button.reject").click()
        WebDriverWait(a, 20).until(lambda d: status(d, second_id) == "REJECTED")
        assert "颜色与品牌色不符" in a.find_element(By.ID, f"draft-{second_id}").text
        assert a.current_url.rstrip("/").endswith("/review")  # htmx swapped rows; the page never reloaded
        a.save_screenshot(str(ARTIFACTS / "2_decided.png"))

        # B's page was loaded before A decided: B's approve of the same draft must say "already decided".
        b.find_element(By.CSS_SELECTOR, f"#draft-{first_id} button.approve").click()
        WebDriverWait(b, 20).until(lambda d: "已被处理" in d.find_element(By.ID, f"draft-{first_id}").text)
        assert status(b, first_id) == "APPROVED"
        b.find_element(By.CSS_SELECTOR, f"#draft-{third_id} button.reject").click()  # no reason given
        WebDriverWait(b, 20).until(lambda d: "驳回需要填写原因" in d.find_element(By.ID, f"draft-{third_id}").text)
        b.save_screenshot(str(ARTIFACTS / "3_already_decided.png"))
    finally:
        a.quit()
        b.quit()
    with db.read(hq.engine) as conn:
        from nailmirror_hq import drafts

        states = {d["draft_id"]: (d["status"], d["reviewer"]) for d in drafts.list_drafts(conn)}
    assert states == {first_id: ("APPROVED", "hq:li.wang"), second_id: ("REJECTED", "hq:li.wang"),
                      third_id: ("PENDING_REVIEW", None)}
    assert all((ARTIFACTS / f).stat().st_size > 1000 for f in ("1_queue.png", "2_decided.png", "3_already_decided.png"))


@pytest.mark.slow  # a real Chromium
def test_a_throttled_sign_in_says_how_long_to_wait_in_chromium(hq_sqlite: HQ) -> None:
    """Issue 25.2 as a reviewer meets it: after the sixth wrong password the right one is refused, with the
    wait on the page (HQ's throttle clock stands still here, so the wait cannot run out under a slow browser)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with db.write(hq_sqlite.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test")
    running = Uvicorn(create_app(hq_sqlite, Ticks()))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver = _browser()
    try:
        for password, answer in [("wrong password!", "login-error")] * 6 + [(PASSWORD, "login-throttled")]:
            driver.get(f"{running.url}/review/login?lang=zh_CN")
            driver.find_element(By.ID, "name").send_keys("li.wang")
            driver.find_element(By.ID, "password").send_keys(password)
            driver.find_element(By.ID, "sign-in").click()
            WebDriverWait(driver, 30).until(lambda d, answer=answer: d.find_elements(By.ID, answer))
        message = driver.find_element(By.ID, "login-throttled").text
        assert message == "登录失败次数过多，请 1 秒后再试。"
        assert driver.find_elements(By.ID, "sign-in") and not driver.get_cookie("nm_hq_session")
        driver.save_screenshot(str(ARTIFACTS / "4_login_throttled.png"))
    finally:
        driver.quit()
        running.stop()


@pytest.mark.slow  # a real Chromium
def test_the_audit_page_in_chromium_reads_in_chinese_and_english_and_filters(hq_sqlite: HQ, tmp_path: Path) -> None:
    """Issue #25 points 6, 13, 14 as people meet them: the audit log with localised actions, store times, style
    codes, the approver's display name and a Chinese reason as Chinese; filtered by store, then in English; and
    a content reviewer's catalog without the take-down button, their Stores tab absent."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    from nailmirror_hq import catalog, drafts

    hq = hq_sqlite
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin", display_name="王丽")
        reviewers.add(conn, "zhang.min", PASSWORD, "test")
    api = TestClient(create_app(hq))
    ids = {}
    for n, store in enumerate(("SH-0012", "BJ-0001")):
        _, headers = new_kiosk(hq, api, store)
        ids[store] = new_draft_id()
        body = draft_body(api, headers, salt=n, name=f"奶白贝壳猫眼 {n + 1}")
        assert api.put(f"/v1/drafts/{ids[store]}/revisions/1", headers=headers, json=body).status_code == 201
    with db.write(hq.engine) as conn:
        drafts.approve(conn, ids["SH-0012"], "hq:li.wang")
        drafts.reject(conn, ids["BJ-0001"], "hq:li.wang", "颜色与品牌色不符，请换成酒红")
        code = catalog.get_style(conn, ids["SH-0012"]).style_code  # type: ignore[union-attr]
    running = Uvicorn(create_app(hq))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver = _browser()

    def sign_in(name: str) -> None:
        driver.delete_all_cookies()
        driver.get(f"{running.url}/review/login?lang=zh_CN")
        driver.find_element(By.ID, "name").send_keys(name)
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "sign-in").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "queue"))

    try:
        sign_in("li.wang")
        driver.get(f"{running.url}/review/audit?lang=zh_CN")
        table = driver.find_element(By.ID, "audit")
        approve = driver.find_element(By.CSS_SELECTOR, 'tr[data-action="DRAFT_APPROVE"]')
        assert "通过草稿" in approve.text and "王丽" in approve.text and code in approve.text
        assert ids["SH-0012"] not in approve.text  # the style's code, not its UUID
        assert "颜色与品牌色不符，请换成酒红" in table.text and "\\u" not in table.text
        driver.save_screenshot(str(ARTIFACTS / "5_audit_zh.png"))
        Select(driver.find_element(By.ID, "filter-store")).select_by_value("st_BJ-0001")
        driver.find_element(By.ID, "filter-apply").click()
        WebDriverWait(driver, 20).until(lambda d: "store=st_BJ-0001" in d.current_url)
        actions = {r.get_attribute("data-action") for r in driver.find_elements(By.CSS_SELECTOR, "tr.entry")}
        assert "DRAFT_REJECT" in actions and "DRAFT_APPROVE" not in actions
        driver.save_screenshot(str(ARTIFACTS / "6_audit_zh_filtered_by_store.png"))
        driver.get(f"{running.url}/review/audit?lang=en&person=li.wang")
        english = driver.find_element(By.ID, "audit").text
        assert "Approved a draft" in english and "Rejected a draft" in english and "DRAFT_" not in english
        assert "颜色与品牌色不符" in english  # the reason stays as written
        driver.save_screenshot(str(ARTIFACTS / "7_audit_en_filtered_by_person.png"))

        sign_in("zhang.min")  # a content reviewer
        driver.get(f"{running.url}/review/catalog?lang=zh_CN")
        assert not driver.find_elements(By.CSS_SELECTOR, "button.take-down")
        assert not driver.find_elements(By.CSS_SELECTOR, "nav a[href$='/stores']")
        driver.save_screenshot(str(ARTIFACTS / "8_catalog_content_reviewer.png"))
        driver.get(f"{running.url}/review/stores?lang=zh_CN")
        assert "您的角色（内容审核员）无权执行此操作" in driver.find_element(By.ID, "error").text
        driver.save_screenshot(str(ARTIFACTS / "9_stores_refused_content_reviewer.png"))
    finally:
        driver.quit()
        running.stop()
    shots = ("5_audit_zh.png", "6_audit_zh_filtered_by_store.png", "7_audit_en_filtered_by_person.png",
             "8_catalog_content_reviewer.png", "9_stores_refused_content_reviewer.png")
    assert all((ARTIFACTS / f).stat().st_size > 1000 for f in shots)
