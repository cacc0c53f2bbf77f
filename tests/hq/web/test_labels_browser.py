"""The labelling page in a real browser (Debian's chromium + chromedriver, driven by selenium; issue #27 §1):
a labeller draws a brush stroke and (zoomed in, panned) a polygon over the kiosk's proposal, erases a strip, draws
once more and undoes it, accepts with skin tone and nail kind — and the stored label version's mask has nail
exactly where she drew and not where she erased or undid; then skips one capture and rejects another for
privacy. A content reviewer (no capture reading) and a trainer (reads captures, does not label) are refused.
Screenshots in Chinese and English in test-artifacts/hq_labels/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from nailmirror_hq import captures, db, labels, mask_png, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.schema import label_version
from nailmirror_hq.service import HQ
from tests.hq.web.test_review_browser import PASSWORD, _browser
from tests.support.hq_fixtures import new_kiosk
from tests.support.hq_labels import HEIGHT, WIDTH, day_for, put_capture
from tests.support.hq_servers import Uvicorn

ROOT = Path(__file__).resolve().parents[3]
ARTIFACTS = Path(os.environ.get("NAILMIRROR_TEST_ARTIFACTS") or ROOT / "test-artifacts") / "hq_labels"
CODES = ("K7QH3MPX", "23456789", "3456789A")


@pytest.fixture
def server(hq_sqlite: HQ) -> Iterator[tuple[HQ, Uvicorn]]:
    hq = hq_sqlite
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.label", PASSWORD, "test", role="labeller")
        reviewers.add(conn, "zhang.review", PASSWORD, "test", role="content_reviewer")
        reviewers.add(conn, "wu.train", PASSWORD, "test", role="trainer")
    api = TestClient(create_app(hq))
    store_id, headers = new_kiosk(hq, api)
    for n, code in enumerate(CODES):
        put_capture(api, headers, code, day_for(store_id, evaluation=False), salt=n)
    running = Uvicorn(create_app(hq))
    yield hq, running
    running.stop()


def _sign_in(driver: Any, url: str, name: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.delete_all_cookies()
    driver.get(f"{url}/review/login?lang=zh_CN")
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    driver.find_element(By.ID, "sign-in").click()
    WebDriverWait(driver, 20).until(lambda d: "/login" not in d.current_url)


def _open(driver: Any, url: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    WebDriverWait(driver, 20).until(
        lambda d: d.find_element(By.ID, "labeller").get_attribute("data-ready") == "1")


def _mask_pixels(hq: HQ, code: str) -> bytes:
    with db.read(hq.engine) as conn:
        row = conn.execute(select(label_version).where(label_version.c.code == code)
                           .order_by(label_version.c.version.desc())).first()
    assert row is not None and row.mask_sha256
    data = b"".join(hq.require_captures().read_chunks(row.mask_sha256))
    return mask_png.read_mask(data, WIDTH, HEIGHT)


@pytest.mark.slow  # a real Chromium
def test_a_labeller_draws_undoes_and_accepts_then_skips_and_rejects_in_chromium(
        server: tuple[HQ, Uvicorn]) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    hq, running = server
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver = _browser()
    driver.set_window_size(1400, 1050)  # the whole editor, its shortcut list included, in the screenshots
    try:
        _sign_in(driver, running.url, "li.label")
        assert driver.find_elements(By.ID, "nav-labels")
        _open(driver, f"{running.url}/review/labels?lang=zh_CN")
        assert driver.find_element(By.ID, "labeller").get_attribute("data-code") == CODES[0]
        canvas = driver.find_element(By.ID, "label-canvas")
        size = canvas.size

        def at(x: float, y: float) -> tuple[int, int]:
            """Capture pixel (x, y) as an offset from the canvas's centre (selenium's origin)."""
            cx, cy = driver.execute_script("return window.nmLabel.toCanvas(arguments[0], arguments[1])", x, y)
            return round(cx - size["width"] / 2), round(cy - size["height"] / 2)

        def stroke(points: list[tuple[float, float]]) -> None:
            chain = ActionChains(driver).move_to_element_with_offset(canvas, *at(*points[0])).click_and_hold()
            for point in points[1:]:
                chain = chain.move_to_element_with_offset(canvas, *at(*point))
            chain.release().perform()

        def key(text: str) -> None:
            ActionChains(driver).send_keys(text).perform()

        stroke([(55.0, 50.0), (75.0, 50.0), (100.0, 50.0)])  # brush: a horizontal stroke right of the proposal
        # zoom in twice and pan with space-drag: the polygon is drawn on the zoomed, moved view
        key("+")
        key("+")
        before = driver.execute_script("return window.nmLabel.toCanvas(0, 0)")
        ActionChains(driver).key_down(Keys.SPACE).move_to_element(canvas).click_and_hold().move_by_offset(
            -30, -75).move_by_offset(-30, -75).release().key_up(Keys.SPACE).perform()
        after = driver.execute_script("return window.nmLabel.toCanvas(0, 0)")
        assert (round(after[0] - before[0]), round(after[1] - before[1])) == (-60, -150)
        key("p")
        corners = [(70.0, 68.0), (100.0, 68.0), (100.0, 86.0), (70.0, 86.0), (70.0, 68.0)]  # back to the first
        for corner in corners:
            ActionChains(driver).move_to_element_with_offset(canvas, *at(*corner)).click().perform()
        key("0")  # back to the whole photo
        key("e")
        stroke([(12.0, 12.0), (38.0, 12.0)])  # the eraser trims the top of the kiosk's proposal
        key("b")
        stroke([(8.0, 60.0), (40.0, 60.0)])  # drawn, then undone
        driver.save_screenshot(str(ARTIFACTS / "1_drawn_before_undo_zh.png"))
        key("z")
        key("a")  # accept without the pickers: refused on the page
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "label-error").text)
        assert "肤色" in driver.find_element(By.ID, "label-error").text
        Select(driver.find_element(By.ID, "skin-tone")).select_by_value("III-IV")
        Select(driver.find_element(By.ID, "nail-kind")).select_by_value("polished")
        driver.save_screenshot(str(ARTIFACTS / "2_ready_to_accept_zh.png"))
        driver.find_element(By.ID, "accept").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "saved"))
        pixels = _mask_pixels(hq, CODES[0])

        def on(x: int, y: int) -> bool:
            return pixels[y * WIDTH + x] == 255

        assert on(20, 20) and on(38, 28)  # the kiosk's proposal, kept
        assert not on(20, 11) and not on(30, 12) and on(20, 18)  # but for what the eraser took
        assert on(60, 50) and on(90, 50) and not on(90, 44)  # the brush stroke (size 8)
        assert on(85, 78) and on(72, 70) and not on(105, 78)  # the polygon, filled
        assert not on(20, 60) and not on(30, 60)  # the undone stroke
        assert not on(5, 5) and not on(110, 20)

        # The next capture: skipped. The one after: rejected, first without a reason.
        _open(driver, f"{running.url}/review/labels?lang=zh_CN")
        assert driver.find_element(By.ID, "labeller").get_attribute("data-code") == CODES[1]
        key("s")
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "saved"))
        _open(driver, f"{running.url}/review/labels?lang=en")
        assert driver.find_element(By.ID, "labeller").get_attribute("data-code") == CODES[2]
        driver.find_element(By.CSS_SELECTOR, "button.nail").click()  # jump to the first nail
        driver.save_screenshot(str(ARTIFACTS / "3_nail_zoomed_en.png"))
        driver.find_element(By.ID, "reject").click()
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "label-error").text)
        assert "reject" in driver.find_element(By.ID, "label-error").text
        Select(driver.find_element(By.ID, "reject-reason")).select_by_value("privacy")
        driver.find_element(By.ID, "reject").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "saved"))
        _open(driver, f"{running.url}/review/labels?lang=en")  # only the skipped one is left
        assert driver.find_element(By.ID, "labeller").get_attribute("data-code") == CODES[1]
        driver.save_screenshot(str(ARTIFACTS / "4_queue_en.png"))

        for name in ("zhang.review", "wu.train"):
            _sign_in(driver, running.url, name)
            driver.get(f"{running.url}/review/labels?lang=zh_CN")
            assert not driver.find_elements(By.ID, "labeller") and driver.find_elements(By.ID, "error")
            assert not driver.find_elements(By.ID, "nav-labels")
        driver.save_screenshot(str(ARTIFACTS / "5_refused_zh.png"))
    finally:
        driver.quit()
    reader = captures.Operator("test")
    decided = {c: [(v.decision, v.reason, v.labeller) for v in labels.versions(hq.engine, reader, c)] for c in CODES}
    assert decided == {CODES[0]: [("accepted", None, "li.label")], CODES[1]: [("skipped", None, "li.label")],
                       CODES[2]: [("rejected", "privacy", "li.label")]}
