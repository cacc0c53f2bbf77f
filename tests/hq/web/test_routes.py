"""The review page's rules, through the real app: sign-in, CSRF on every form, one decision per revision."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from nailmirror_hq import catalog, db, drafts, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import add_store, draft_body, new_draft_id, new_kiosk, style_folder

PASSWORD = "correct horse battery"


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html[:500]
    return found.group(1)


def sign_in(app_client: TestClient, name: str, password: str = PASSWORD) -> int:
    page = app_client.get("/review/login")
    answer = app_client.post("/review/login", data={"csrf": _csrf(page.text), "name": name, "password": password},
                             follow_redirects=False)
    return answer.status_code


def _setup(hq: HQ) -> tuple[TestClient, str]:
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
        reviewers.add(conn, "zhang.min", PASSWORD, "test")
    api = TestClient(create_app(hq))
    _, headers = new_kiosk(hq, api)
    draft_id = new_draft_id()
    answer = api.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=draft_body(api, headers))
    assert answer.status_code == 201
    return api, draft_id


def test_sign_in_needs_the_right_password_and_an_enabled_reviewer(hq: HQ) -> None:
    _setup(hq)
    browser = TestClient(create_app(hq))
    assert browser.get("/review/", follow_redirects=False).status_code == 303  # to the login page
    assert sign_in(browser, "li.wang", "wrong password!") == 401
    assert sign_in(browser, "nobody", PASSWORD) == 401
    assert sign_in(browser, "li.wang") == 303
    queue = browser.get("/review/")
    assert queue.status_code == 200 and "奶白贝壳猫眼" in queue.text and "审核队列" in queue.text
    assert "Review queue" in browser.get("/review/?lang=en").text
    cookie = browser.cookies.get("nm_hq_session")
    with db.read(hq.engine) as conn:
        assert cookie and cookie not in repr(conn.exec_driver_sql("SELECT * FROM web_session").all())
    with db.write(hq.engine) as conn:
        reviewers.disable(conn, "li.wang", "test")
    assert browser.get("/review/", follow_redirects=False).status_code == 303  # the session ends with it


def test_the_queue_shows_a_drafts_designers_choice_of_shape_and_length(hq: HQ) -> None:
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test")
    api = TestClient(create_app(hq))
    _, headers = new_kiosk(hq, api)
    for name, design in (("杏仁款", {"base": "milky_white", "shape": "almond", "length": "medium"}),
                         ("旧款", {"base": "milky_white"})):  # an older kiosk's draft names neither
        body = {**draft_body(api, headers, name=name), "design": design}
        assert api.put(f"/v1/drafts/{new_draft_id()}/revisions/1", headers=headers, json=body).status_code == 201
    browser = TestClient(create_app(hq))
    assert sign_in(browser, "li.wang") == 303
    queue = browser.get("/review/").text
    assert queue.count('class="nail-form"') == 1 and "设计师推荐: 杏仁形 · 中长" in queue
    assert "Designer's choice: Almond · Medium" in browser.get("/review/?lang=en").text.replace("&#39;", "'")


def test_every_form_needs_the_sessions_csrf_token(hq: HQ) -> None:
    _, draft_id = _setup(hq)
    browser = TestClient(create_app(hq))
    assert sign_in(browser, "li.wang") == 303
    forged = browser.post(f"/review/drafts/{draft_id}/approve", data={"csrf": "forged"})
    assert forged.status_code == 403
    login_forged = TestClient(create_app(hq)).post("/review/login", data={"csrf": "x", "name": "li.wang",
                                                                          "password": PASSWORD})
    assert login_forged.status_code == 403
    with db.read(hq.engine) as conn:
        assert drafts.list_drafts(conn)[0]["status"] == "PENDING_REVIEW"


def _review_routes(app: FastAPI, method: str) -> list[str]:
    """Every /review route of the real app for METHOD (from its route table, as OpenAPI lists it) but sign-in
    and sign-out, its path parameters filled in (nothing is looked up before the refusal, so any value does)."""
    paths = []
    for path, operations in app.openapi()["paths"].items():
        if path.startswith("/review/") and method in operations and path not in ("/review/login", "/review/logout"):
            paths.append(re.sub(r"\{(\w+)\}", lambda m: {"action": "approve"}.get(m.group(1), "x1"), path))
    return paths


def test_every_review_route_refuses_without_a_session_and_every_form_without_its_csrf(hq_sqlite: HQ) -> None:
    """One dependency does this for all routes: a route added without it fails here."""
    hq = hq_sqlite
    _setup(hq)
    posts, pages = _review_routes(create_app(hq), "post"), _review_routes(create_app(hq), "get")
    assert len(posts) >= 4 and len(pages) >= 5 and "/review/drafts/x1/approve" in posts and "/review/credits" in pages
    stranger = TestClient(create_app(hq))
    for path in posts:
        answer = stranger.post(path, data={"csrf": "x"}, follow_redirects=False)
        assert (answer.status_code, answer.headers.get("location")) == (303, "/review/login"), path
    for path in pages:
        if path.startswith("/review/blobs/"):
            assert stranger.get(path).status_code == 401  # an image, not a page: no redirect
            continue
        answer = stranger.get(path, follow_redirects=False)
        assert (answer.status_code, answer.headers.get("location")) == (303, "/review/login"), path
    browser = TestClient(create_app(hq))
    assert sign_in(browser, "li.wang") == 303
    for path in posts:
        for form in ({}, {"csrf": "forged"}):
            answer = browser.post(path, data=form, follow_redirects=False)
            assert answer.status_code == 403 and "text/html" in answer.headers["content-type"], (path, form)
    with db.read(hq.engine) as conn:
        assert drafts.list_drafts(conn)[0]["status"] == "PENDING_REVIEW"
        assert conn.exec_driver_sql("SELECT count(*) FROM audit_log WHERE actor LIKE 'hq:%'").scalar() == 0


def test_a_second_reviewer_gets_already_decided(hq: HQ) -> None:
    _, draft_id = _setup(hq)
    first, second = TestClient(create_app(hq)), TestClient(create_app(hq))
    assert sign_in(first, "li.wang") == 303 and sign_in(second, "zhang.min") == 303
    stale = _csrf(second.get("/review/").text)  # the second page was loaded before the first decision
    approved = first.post(f"/review/drafts/{draft_id}/approve", data={"csrf": _csrf(first.get("/review/").text)},
                          headers={"HX-Request": "true"})
    assert approved.status_code == 200 and 'data-status="APPROVED"' in approved.text
    late = second.post(f"/review/drafts/{draft_id}/reject", data={"csrf": stale, "reason": "不符合"},
                       headers={"HX-Request": "true"})
    assert late.status_code == 409 and "已被处理" in late.text and 'data-status="APPROVED"' in late.text
    no_reason = second.post(f"/review/drafts/{draft_id}/reject", data={"csrf": stale})
    assert no_reason.status_code == 400
    audit = first.get("/review/audit").text
    approved_row = re.search(r'data-action="DRAFT_APPROVE">(.*?)</tr>', audit, re.S)
    assert approved_row and "li.wang" in approved_row.group(1) and 'data-action="DRAFT_REJECT"' not in audit


def test_categories_and_tags_are_added_and_renamed_on_the_catalog_page(hq: HQ) -> None:
    _setup(hq)
    browser = TestClient(create_app(hq))
    assert sign_in(browser, "li.wang") == 303
    page = browser.get("/review/catalog")
    assert "分类" in page.text and "标签" in page.text
    csrf = _csrf(page.text)
    assert browser.post("/review/catalog/categories", data={"code": "french", "name_zh": "法式", "name_en": "French",
                                                           "sort_order": "3"}).status_code == 403  # no CSRF token
    form = {"csrf": csrf, "code": "french", "name_zh": "法式", "name_en": "French", "sort_order": "3"}
    assert browser.post("/review/catalog/categories", data=form, follow_redirects=False).status_code == 303
    renamed = browser.post("/review/catalog/categories", data={**form, "name_zh": "法式美甲"})
    assert 'id="categories-french"' in renamed.text and "法式美甲" in renamed.text
    refused = browser.post("/review/catalog/tags", data={"csrf": csrf, "code": "Bad Code", "name_zh": "坏"})
    assert 'id="refused-tags"' in refused.text and 'id="tags-Bad Code"' not in refused.text
    with db.read(hq.engine) as conn:
        assert [(c["code"], c["name_zh"], c["version"]) for c in catalog.list_references(conn, "category")] == [
            ("french", "法式美甲", 2)]


def test_the_catalog_page_publishes_to_chosen_channels(hq: HQ, tmp_path: Path) -> None:
    _setup(hq)
    add_store(hq, "N-1", "north")
    row = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, salt=9), actor="test")
    browser = TestClient(create_app(hq))
    assert sign_in(browser, "li.wang") == 303
    page = browser.get("/review/catalog")
    assert "全部渠道" in page.text
    answer = browser.post(f"/review/styles/{row.id}/publish", data={"csrf": _csrf(page.text), "channels": "north"})
    assert answer.status_code == 200
    with db.read(hq.engine) as conn:
        assert catalog.chosen_channels(conn, row.id) == ["north"]
        assert catalog.get_style(conn, row.id).status == "PUBLISHED"  # type: ignore[union-attr]
    again = browser.post(f"/review/styles/{row.id}/publish", data={"csrf": _csrf(page.text), "channels": "*"})
    assert again.status_code == 200
    with db.read(hq.engine) as conn:
        assert catalog.chosen_channels(conn, row.id) == []
