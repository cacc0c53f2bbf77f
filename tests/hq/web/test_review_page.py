"""Issue #25.12 through the real app, on SQLite and on PostgreSQL (+ S3 where blobs are stored): a draft edited
before approval, bulk approve, a reject reason from the list reaching the store's inbox, confirmation steps
naming their reach, refusals shown on the page, search and paging, and the kiosk's sample render beside the
style's images (stored with the draft, never published)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from nailmirror_hq import catalog, db, drafts, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.schema import audit_log, catalog_change, store_event
from nailmirror_hq.service import HQ
from nailmirror_hq.web import flash
from tests.hq.web.test_routes import PASSWORD, _csrf, sign_in
from tests.support.hq_fixtures import add_store, draft_body, new_draft_id, new_kiosk, png, sha, style_folder, upload


def _reviewer(hq: HQ, name: str = "li.wang") -> TestClient:
    with db.write(hq.engine) as conn:
        reviewers.add(conn, name, PASSWORD, "test", role="ops_admin")
    browser = TestClient(create_app(hq))
    assert sign_in(browser, name) == 303
    browser.cookies.set("nm_hq_lang", "en", path="/review")
    return browser


def _drafts(hq: HQ, api: TestClient, count: int, store: str = "SH-0012") -> tuple[list[str], dict[str, str]]:
    _, headers = new_kiosk(hq, api, store)
    ids = []
    for n in range(count):
        draft_id = new_draft_id()
        body = draft_body(api, headers, salt=n + 10 * len(store), name=f"叶子猫眼 {store} {n}")
        assert api.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=body).status_code == 201
        ids.append(draft_id)
    return ids, headers


def _published(hq: HQ, style_id: str) -> dict[str, Any]:
    with db.read(hq.engine) as conn:
        row = catalog.get_style(conn, style_id)
    assert row is not None
    return dict(row.body)


def test_a_reviewer_edits_the_published_fields_before_approving(hq: HQ) -> None:
    api = TestClient(create_app(hq))
    (draft_id,), _ = _drafts(hq, api, 1)
    browser = _reviewer(hq)
    csrf = _csrf(browser.get("/review/").text)
    form = {"csrf": csrf, "rev": "1", "name_zh": "叶子猫眼", "name_en": "Leaf cat-eye", "category": "cat_eye",
            "tags": "leaf, green，autumn", "price": "128.5", "channels": "*"}
    for bad, words in (({"price": "12.345"}, "amount in yuan"), ({"name_zh": " "}, "Chinese name is required"),
                       ({"tags": "Bad Tag!"}, "codes are a-z")):
        refused = browser.post(f"/review/drafts/{draft_id}/approve", data={**form, **bad},
                               headers={"HX-Request": "true"})
        assert refused.status_code == 400 and words in refused.text and 'data-status="PENDING_REVIEW"' in refused.text
    approved = browser.post(f"/review/drafts/{draft_id}/approve", data=form, headers={"HX-Request": "true"})
    assert approved.status_code == 200 and 'data-status="APPROVED"' in approved.text
    assert "Published as 叶子猫眼" in approved.text and "叶子猫眼 SH-0012 0" in approved.text  # both names
    assert "Published as 叶子猫眼" in browser.get("/review/?status=APPROVED").text
    body = _published(hq, draft_id)
    assert body["name"] == {"zh": "叶子猫眼", "en": "Leaf cat-eye"} and body["category"] == "cat_eye"
    assert body["tags"] == ["leaf", "green", "autumn"] and body.get("price_guidance_minor") == 12850
    with db.read(hq.engine) as conn:
        detail = json.loads(conn.execute(audit_log.select().where(audit_log.c.action == "DRAFT_APPROVE")).one().detail)
        revision = drafts.get_revision(conn, draft_id, 1)
    assert detail["edited"]["name"]["en"] == "Leaf cat-eye"
    assert revision is not None and revision.body["name"]["zh"] != "叶子猫眼"  # the store's revision stays as sent


def test_bulk_approve_goes_on_past_a_draft_another_reviewer_decided(hq: HQ) -> None:
    api = TestClient(create_app(hq))
    ids, _ = _drafts(hq, api, 3)
    browser = _reviewer(hq)
    csrf = _csrf(browser.get("/review/").text)
    with db.write(hq.engine) as conn:
        drafts.reject(conn, ids[1], "hq:zhang.min", "先驳回")
    posted = browser.post("/review/drafts/bulk-approve", data={"csrf": csrf, "draft": [f"{i}:1" for i in ids[:2]]},
                          follow_redirects=False)
    assert posted.status_code == 303 and posted.headers["location"] == "/review/"  # POST-redirect-GET
    answer = browser.get("/review/")
    assert "Approved 1 draft(s)." in answer.text and "Not approved: 1." in answer.text
    assert f"{ids[1][:8]}… draft {ids[1]} rev 1 is already decided" in answer.text  # the per-draft refusal
    with db.read(hq.engine) as conn:
        states = {d["draft_id"]: d["status"] for d in drafts.list_drafts(conn)}
    assert states == {ids[0]: "APPROVED", ids[1]: "REJECTED", ids[2]: "PENDING_REVIEW"}
    assert "Approved 1 draft(s)." not in browser.get("/review/").text  # a reload: the page, no notice, no post
    other = _reviewer(hq, "zhang.min")  # another session cannot read (nor forge) this one's notice
    other.cookies.set(flash.COOKIE, posted.cookies[flash.COOKIE], path="/review")
    assert "Approved 1 draft(s)." not in other.get("/review/").text
    nothing = browser.post("/review/drafts/bulk-approve", data={"csrf": csrf})
    assert nothing.status_code == 200 and "Tick the drafts" in nothing.text


def test_a_reject_reason_picked_from_the_list_reaches_the_stores_inbox(hq: HQ) -> None:
    api = TestClient(create_app(hq))
    (draft_id,), _ = _drafts(hq, api, 1)
    browser = _reviewer(hq)
    page = browser.get("/review/")
    assert 'value="brand_colours"' in page.text
    answer = browser.post(f"/review/drafts/{draft_id}/reject", headers={"HX-Request": "true"},
                          data={"csrf": _csrf(page.text), "rev": "1", "reason_code": "brand_colours",
                                "reason": "  偏荧光  "})
    assert answer.status_code == 200 and 'data-status="REJECTED"' in answer.text
    with db.read(hq.engine) as conn:
        events = [json.loads(b) for b in conn.execute(store_event.select().with_only_columns(store_event.c.body)
                                                      .where(store_event.c.type == "draft.decision")).scalars()]
    assert [e["reason"] for e in events] == ["颜色与品牌色不符：偏荧光"]


def test_take_down_and_revoke_ask_first_naming_their_reach(hq: HQ, tmp_path: Path) -> None:
    api = TestClient(create_app(hq))
    _drafts(hq, api, 1)
    add_store(hq, "N-1", "north")
    add_store(hq, "N-2", "north")
    row = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, name="叶子猫眼"), actor="test",
                                publish=True)
    browser = _reviewer(hq)
    csrf = _csrf(browser.get("/review/catalog").text)
    ask = browser.post(f"/review/styles/{row.id}/take-down", data={"csrf": csrf})
    assert ask.status_code == 200 and 'id="confirm"' in ask.text
    assert "Take down 叶子猫眼" in ask.text and "from 2 channel(s), 3 store(s)" in ask.text
    assert _published(hq, row.id)["status"] == "PUBLISHED"
    with db.read(hq.engine) as conn:
        assert catalog.get_style(conn, row.id).status == "PUBLISHED"  # type: ignore[union-attr]
    done = browser.post(f"/review/styles/{row.id}/take-down", data={"csrf": csrf, "confirm": "yes"})
    assert done.status_code == 200
    with db.read(hq.engine) as conn:
        assert catalog.get_style(conn, row.id).status == "WITHDRAWN"  # type: ignore[union-attr]
    ask = browser.post("/review/stores/st_N-1/revoke", data={"csrf": csrf})
    assert ask.status_code == 200 and "Revoke st_N-1" in ask.text and "its 0 kiosk(s) stop syncing" in ask.text
    ask = browser.post("/review/stores/st_SH-0012/revoke", data={"csrf": csrf})
    assert "its 1 kiosk(s) stop syncing" in ask.text
    assert "revoked" not in browser.get("/review/stores").text
    browser.post("/review/stores/st_SH-0012/revoke", data={"csrf": csrf, "confirm": "yes"})
    assert "(revoked)" in browser.get("/review/stores").text


def test_a_refused_action_is_shown_on_the_page(hq: HQ, tmp_path: Path) -> None:
    row = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path), actor="test")
    browser = _reviewer(hq)
    csrf = _csrf(browser.get("/review/catalog").text)
    refused = browser.post(f"/review/styles/{row.id}/publish", data={"csrf": csrf, "channels": "nowhere"})
    assert refused.status_code == 400 and 'id="page-notice"' in refused.text and "no channel nowhere" in refused.text
    never = browser.post(f"/review/styles/{row.id}/take-down", data={"csrf": csrf, "confirm": "yes"})
    assert never.status_code == 409 and "was never published" in never.text
    missing = browser.post("/review/stores/st_nowhere/enroll-code", data={"csrf": csrf})
    assert missing.status_code == 404 and "no such store" in missing.text


def test_the_queue_and_the_catalog_search_filter_and_page(hq_sqlite: HQ, tmp_path: Path) -> None:
    hq = hq_sqlite
    api = TestClient(create_app(hq))
    _drafts(hq, api, 3, "SH-0012")
    _drafts(hq, api, 2, "BJ-0001")
    browser = _reviewer(hq)
    assert browser.get("/review/?store=st_BJ-0001").text.count('class="draft"') == 2
    found = browser.get("/review/", params={"q": "sh-0012 1"})
    assert found.text.count('class="draft"') == 1 and "叶子猫眼 SH-0012 1" in found.text
    assert "No drafts match." in browser.get("/review/?q=nothing-like-this").text
    for n in range(30):
        catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, name=f"款{n:02d}", salt=n), actor="test",
                              publish=n % 2 == 0)
    first = browser.get("/review/catalog")
    assert first.text.count('class="style"') == 24 and "Page 1 of 2" in first.text and 'class="thumbnail"' in first.text
    assert browser.get("/review/catalog?page=2").text.count('class="style"') == 6
    assert browser.get("/review/catalog?status=PUBLISHED").text.count('class="style"') == 15
    one = browser.get("/review/catalog", params={"q": "款07"})
    assert one.text.count('class="style"') == 1
    thumb = one.text.split('class="thumbnail" src="')[1].split('"')[0]
    assert browser.get(thumb).status_code == 200


def test_the_sample_render_is_kept_with_the_draft_shown_and_never_published(hq: HQ) -> None:
    """Old kiosk ↔ new HQ: a revision without sample_render is accepted as before (the other tests); with one, its
    blob must be there first, the review page shows it, a replay without it is the same revision, and approving
    publishes nothing of it."""
    api = TestClient(create_app(hq))
    _, headers = new_kiosk(hq, api)
    body = draft_body(api, headers)
    render = png(40, 30, (230, 200, 190), salt=5)
    body["sample_render"] = {"type": "TRY_ON_EXAMPLE", "slot": "", "sha256": sha(render), "size": len(render),
                             "format": "PNG", "width": 40, "height": 30}
    draft_id = new_draft_id()
    missing = api.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=body)
    assert missing.status_code == 422 and sha(render) in missing.text
    upload(api, headers, render)
    assert api.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=body).status_code == 201
    without = {k: v for k, v in body.items() if k != "sample_render"}
    assert api.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=without).status_code == 200
    bad = {**body, "sample_render": {"sha256": "not a hash"}}
    assert api.put(f"/v1/drafts/{new_draft_id()}/revisions/1", headers=headers, json=bad).status_code == 400
    browser = _reviewer(hq)
    page = browser.get("/review/")
    assert f'href="#zoom-{draft_id}-sample" class="thumb sample-render"' in page.text
    assert f"/review/blobs/{sha(render)}" in page.text and "On the sample hand" in page.text
    shown = browser.get(f"/review/blobs/{sha(render)}", follow_redirects=False)
    if shown.status_code == 307:  # S3: a presigned URL, fetched from the bucket as the reviewer's browser does
        with urllib.request.urlopen(shown.headers["location"], timeout=30) as bucket:
            assert bucket.read() == render
    else:
        assert shown.status_code == 200 and shown.content == render
    approved = browser.post(f"/review/drafts/{draft_id}/approve", data={"csrf": _csrf(page.text), "rev": "1"})
    assert approved.status_code == 200
    assert sha(render) not in json.dumps(_published(hq, draft_id))
    with db.read(hq.engine) as conn:
        assert not [b for b in conn.execute(catalog_change.select().with_only_columns(catalog_change.c.body))
                    .scalars() if sha(render) in b]
