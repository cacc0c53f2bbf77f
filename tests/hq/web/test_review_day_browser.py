"""A content manager's day on the review page in a real Chromium (issue #25.12): the queue with large previews and
a kiosk's sample render (click to enlarge), a draft edited then approved, bulk approve, a reject with a reason
from the list, the catalog with thumbnails from the starter catalog, and a take-down that asks first, naming its
reach. Screenshots are kept in test-artifacts/hq_review/day_*.png."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from nailmirror_desktop.core.paths import resources_dir
from nailmirror_hq import catalog, db, drafts, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.hq.conftest import make_hq
from tests.hq.web.test_review_browser import ARTIFACTS, PASSWORD, _browser
from tests.support.hq_fixtures import new_draft_id, new_kiosk, png, sha, upload
from tests.support.hq_servers import Uvicorn

NAMES = ["叶子猫眼", "奶白贝壳", "酒红法式", "樱花渐变", "星空碎钻"]


def _sample_render() -> bytes:
    """What a kiosk uploads: the demo style painted on the bundled sample hand by the still path."""
    import cv2

    from nailmirror_desktop.app.sample_render import framed_hands
    from nailmirror_desktop.vision.paint.compositor import Compositor
    from nailmirror_desktop.vision.pipeline import TryOnPipeline
    from nailmirror_desktop.vision.sources.image_io import read_image

    texture = read_image(resources_dir() / "demo" / "styles" / "rose_gloss" / "nail.png", keep_alpha=True)
    pipeline = TryOnPipeline(Compositor(texture), mirrored=False, max_hands=2)
    try:
        result = pipeline.process_still(read_image(resources_dir() / "demo" / "sample_hand.jpg"), want_coverage=False)
    finally:
        pipeline.close()
    frame = framed_hands(result)
    ok, encoded = cv2.imencode(".jpg", cv2.resize(frame, (960, 720)), [cv2.IMWRITE_JPEG_QUALITY, 88])
    assert ok
    return bytes(encoded.tobytes())


def _asset(kind: str, data: bytes, width: int, height: int, fmt: str = "PNG", slot: str = "") -> dict[str, Any]:
    return {"type": kind, "slot": slot, "sha256": sha(data), "size": len(data), "format": fmt, "width": width,
            "height": height}


@pytest.fixture
def day(tmp_path: Any) -> Iterator[tuple[HQ, Uvicorn, list[str]]]:
    hq = make_hq(tmp_path / "hq", starter=resources_dir() / "starter_catalog")
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
    api = TestClient(create_app(hq))
    render = _sample_render()
    textures = [(resources_dir() / "starter_catalog" / code / "nail.png").read_bytes()
                for code in ("NM-FES-001", "NM-FLR-001", "NM-FES-003", "NM-FLR-003", "NM-FES-005")]
    ids = []
    for n, name in enumerate(NAMES):
        _, headers = new_kiosk(hq, api, f"SH-{n:04d}")
        nail, cover = textures[n], png(120, 160, (230 - 20 * n, 180, 190 + 10 * n), salt=n)
        upload(api, headers, nail)
        upload(api, headers, cover)
        body: dict[str, Any] = {
            "nm": 1, "source": "AI", "name": {"zh": name, "en": ""}, "category": "cat_eye", "tags": ["leaf"],
            "prompt": f"{name}，无名指跳色", "assets": [_asset("NAIL_TEXTURE", nail, 0, 0, slot="nail"),
                                                       _asset("COVER", cover, 120, 160)]}
        if n == 0:
            upload(api, headers, render)
            body["sample_render"] = _asset("TRY_ON_EXAMPLE", render, 960, 720, "JPEG")
        draft_id = new_draft_id()
        assert api.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=body).status_code == 201
        ids.append(draft_id)
    running = Uvicorn(create_app(hq))
    yield hq, running, ids
    running.stop()
    hq.close()


@pytest.mark.slow  # a real Chromium, the starter catalog and a still render
def test_a_content_managers_day_in_chromium(day: tuple[HQ, Uvicorn, list[str]]) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    from selenium.webdriver.support.ui import WebDriverWait as _Wait

    def wait(driver, timeout=20):  # type: ignore[no-untyped-def]
        return _Wait(driver, timeout, ignored_exceptions=[StaleElementReferenceException])

    hq, running, ids = day
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver = _browser()
    driver.set_window_size(1440, 1000)
    shots = []

    def shot(name: str) -> None:
        driver.save_screenshot(str(ARTIFACTS / f"day_{name}.png"))
        shots.append(name)

    def status(draft_id: str) -> str:
        return str(driver.find_element(By.ID, f"draft-{draft_id}").get_attribute("data-status"))

    try:
        driver.get(f"{running.url}/review/login?lang=zh_CN")
        driver.find_element(By.ID, "name").send_keys("li.wang")
        driver.find_element(By.ID, "password").send_keys(PASSWORD)
        driver.find_element(By.ID, "sign-in").click()
        wait(driver).until(lambda d: d.find_elements(By.ID, "queue"))
        sample = driver.find_element(By.CSS_SELECTOR, f"#draft-{ids[0]} a.sample-render img")
        wait(driver).until(lambda d: d.execute_script("return arguments[0].naturalWidth", sample) == 960)
        assert sample.size["height"] >= 180  # a large preview, not a thumbnail
        shot("1_queue")
        driver.find_element(By.CSS_SELECTOR, f"#draft-{ids[0]} a.sample-render").click()
        big = driver.find_element(By.CSS_SELECTOR, f"#zoom-{ids[0]}-sample img")
        wait(driver).until(lambda d: big.is_displayed() and big.size["width"] > 900)
        shot("2_enlarged")
        driver.find_element(By.ID, f"zoom-{ids[0]}-sample").click()
        wait(driver).until(lambda d: not big.is_displayed())

        row = driver.find_element(By.ID, f"draft-{ids[0]}")
        row.find_element(By.CSS_SELECTOR, "details.edit summary").click()
        english = row.find_element(By.NAME, "name_en")
        english.clear()
        english.send_keys("Leaf cat-eye")
        row.find_element(By.NAME, "price").send_keys("abc")
        shot("3_edit_form")
        row.find_element(By.CSS_SELECTOR, "button.approve-edited").click()
        wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#draft-{ids[0]} .notice"))
        assert "128" in driver.find_element(By.CSS_SELECTOR, f"#draft-{ids[0]} .notice").text  # "… like 128 …"
        assert status(ids[0]) == "PENDING_REVIEW"
        shot("4_edit_refused")
        row = driver.find_element(By.ID, f"draft-{ids[0]}")
        price = row.find_element(By.NAME, "price")
        price.clear()
        price.send_keys("128")
        row.find_element(By.NAME, "name_en").clear()
        row.find_element(By.NAME, "name_en").send_keys("Leaf cat-eye")
        row.find_element(By.CSS_SELECTOR, "button.approve-edited").click()
        wait(driver).until(lambda d: status(ids[0]) == "APPROVED")
        wait(driver).until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#draft-{ids[0]} .published-as"))
        assert "Leaf cat-eye" in driver.find_element(By.CSS_SELECTOR, f"#draft-{ids[0]} .published-as").text

        reject = driver.find_element(By.ID, f"draft-{ids[1]}")
        Select(reject.find_element(By.NAME, "reason_code")).select_by_value("brand_colours")
        reject.find_element(By.NAME, "reason").send_keys("偏荧光")
        reject.find_element(By.CSS_SELECTOR, "button.reject").click()
        wait(driver).until(lambda d: status(ids[1]) == "REJECTED")
        assert "偏荧光" in driver.find_element(By.ID, f"draft-{ids[1]}").text
        shot("5_rejected_with_reason")

        for draft_id in ids[2:4]:
            driver.find_element(By.CSS_SELECTOR, f"#draft-{draft_id} input.tick").click()
        driver.find_element(By.CSS_SELECTOR, "button.bulk-approve").click()
        wait(driver).until(lambda d: d.find_elements(By.ID, "page-notice"))
        shot("6_bulk_approved")
        assert driver.current_url.endswith("/review/")  # POST-redirect-GET: a reload re-posts nothing
        driver.refresh()
        wait(driver).until(lambda d: d.find_elements(By.ID, "queue") and not d.find_elements(By.ID, "page-notice"))

        driver.get(f"{running.url}/review/catalog")
        thumbs = driver.find_elements(By.CSS_SELECTOR, "img.thumbnail")
        assert len(thumbs) == 24
        wait(driver).until(lambda d: all(d.execute_script("return arguments[0].naturalWidth", t) > 0
                                         for t in thumbs[:6]))
        shot("7_catalog")
        style_row = driver.find_element(By.CSS_SELECTOR, "tr.style[data-status=PUBLISHED]")
        style_row.find_element(By.CSS_SELECTOR, "button.take-down").click()
        wait(driver).until(lambda d: d.find_elements(By.ID, "reach"))
        assert "5" in driver.find_element(By.ID, "reach").text  # five stores read the one channel
        shot("8_confirm_take_down")
        driver.find_element(By.ID, "confirm").click()
        wait(driver).until(lambda d: d.find_elements(By.ID, "catalog"))
    finally:
        driver.quit()
    with db.read(hq.engine) as conn:
        states = {d["draft_id"]: d["status"] for d in drafts.list_drafts(conn)}
        edited = catalog.get_style(conn, ids[0])
    assert [states[i] for i in ids] == ["APPROVED", "REJECTED", "APPROVED", "APPROVED", "PENDING_REVIEW"]
    assert edited is not None and edited.body["name"]["en"] == "Leaf cat-eye"
    assert edited.body.get("price_guidance_minor") == 12800
    assert all((ARTIFACTS / f"day_{name}.png").stat().st_size > 10_000 for name in shots) and len(shots) == 8
