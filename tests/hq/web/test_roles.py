"""Roles on the review page (issue #25 point 6), through the real app: each route checks the permission it
declares, a content reviewer cannot take a style down or revoke a store, a content editor edits but cannot
revoke, an ops admin does all; the buttons a role cannot use are not shown; a role change applies at once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.routing import Route

from nailmirror_hq import catalog, db, reviewers, roles, stores
from nailmirror_hq.api.app import create_app
from nailmirror_hq.roles import Permission, Role
from nailmirror_hq.service import HQ
from nailmirror_hq.web import routes
from tests.support.hq_fixtures import add_store, style_folder

PASSWORD = "correct horse battery"


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html[:500]
    return found.group(1)


def signed_in(hq: HQ, name: str) -> tuple[TestClient, str]:
    browser = TestClient(create_app(hq))
    page = browser.get("/review/login")
    answer = browser.post("/review/login", data={"csrf": _csrf(page.text), "name": name, "password": PASSWORD},
                          follow_redirects=False)
    assert answer.status_code == 303, answer.text[:300]
    landing = browser.get(answer.headers["location"])
    return browser, _csrf(landing.text)


def _people(hq: HQ) -> None:
    with db.write(hq.engine) as conn:
        for role in Role:
            reviewers.add(conn, role.value.replace("_", "."), PASSWORD, "test", role=role.value)


def _flat(app_routes: list[object]) -> list[object]:
    """The app's routes, those of included routers too (FastAPI 0.163 keeps an included router as one entry
    holding the router it included)."""
    out: list[object] = []
    for route in app_routes:
        included = getattr(route, "original_router", None)
        out.extend(_flat(included.routes) if included is not None else [route])
    return out


def _declared(app_routes: list[object]) -> dict[tuple[str, str], Permission]:
    """(method, path) → the permission its Allowed / AllowedForm dependency checks, for every /review route."""
    found = {}
    for route in _flat(app_routes):
        if not isinstance(route, Route) or not route.path.startswith("/review/"):
            continue
        checks = [d.call.permission for d in route.dependant.dependencies  # type: ignore[attr-defined]
                  if isinstance(d.call, routes._Allowed | routes._AllowedForm)]
        for method in route.methods or ():
            if method != "HEAD":
                found[(method, route.path)] = checks[0] if len(checks) == 1 else None
    return found  # type: ignore[return-value]


def test_every_review_route_declares_one_permission(hq_sqlite: HQ) -> None:
    declared = _declared(create_app(hq_sqlite).routes)
    unguarded = {key for key, permission in declared.items() if permission is None}
    assert unguarded == {("GET", "/review/login"), ("POST", "/review/login"), ("POST", "/review/logout")}
    assert declared[("POST", "/review/styles/{style_id}/take-down")] == Permission.TAKE_DOWN_STYLES
    assert declared[("POST", "/review/stores/{store_id}/{action}")] == Permission.MANAGE_STORES
    assert declared[("POST", "/review/styles/{style_id}/{action}")] == Permission.EDIT_CATALOG


@pytest.mark.slow  # every role against every route
def test_each_role_gets_403_exactly_where_its_permissions_end(hq_sqlite: HQ, tmp_path: Path) -> None:
    """Every role against every route of the real app: 403 iff roles.allows says no (nothing written then)."""
    hq = hq_sqlite
    _people(hq)
    add_store(hq, "SH-0012")
    style = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, salt=3), actor="test", publish=True)
    declared = {k: v for k, v in _declared(create_app(hq).routes).items() if v is not None}
    fill = {"style_id": style.id, "store_id": "st_SH-0012", "action": "off-shelf", "draft_id": "x1", "kind": "tags",
            "kiosk_id": "k-none", "channel_code": "default", "rollout_id": "999999", "code": "ABCD-EFGH",
            "sha256": "0" * 64, "version_id": "1"}
    for role in Role:
        browser, csrf = signed_in(hq, role.value.replace("_", "."))
        for (method, path), permission in sorted(declared.items()):
            url = re.sub(r"\{(\w+)\}", lambda m: fill[m.group(1)], path)
            url = url.replace("/stores/st_SH-0012/off-shelf", "/stores/st_SH-0012/revoke")
            if method == "GET":
                answer = browser.get(url, follow_redirects=False)
            else:
                answer = browser.post(url, data={"csrf": csrf, "code": "nope!", "name_zh": "", "confirm": "yes"},
                                      follow_redirects=False)
            refused = answer.status_code == 403
            assert refused == (not roles.allows(role, permission)), (role, method, url, answer.status_code)
            if refused and method == "GET" and "blobs" not in url:
                assert 'id="error"' in answer.text and role.value in answer.text or "内容" in answer.text
    with db.read(hq.engine) as conn:
        acted = conn.exec_driver_sql("SELECT action, actor FROM audit_log WHERE actor LIKE 'hq:%'").all()
    # only ops_admin reached take-down, revoke and enrollment codes; the editor and ops_admin the catalog
    assert {(a, who) for a, who in acted if a in ("STYLE_WITHDRAWN", "REVOKE", "ENROLL_CODE")} == {
        ("STYLE_WITHDRAWN", "hq:ops.admin"), ("REVOKE", "hq:ops.admin")}
    assert {who for a, who in acted if a == "STYLE_OFF_SHELF"} <= {"hq:content.editor", "hq:ops.admin"}


@pytest.mark.slow
def test_a_content_reviewer_cannot_take_down_or_revoke_and_sees_no_such_button(hq: HQ, tmp_path: Path) -> None:
    _people(hq)
    add_store(hq, "SH-0012")
    style = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, salt=4), actor="test", publish=True)
    reviewer, csrf = signed_in(hq, "content.reviewer")
    page = reviewer.get("/review/catalog").text
    assert "take-down" not in page and 'class="publish"' not in page and 'id="add-tags"' not in page
    assert f"{routes.PREFIX}/stores" not in reviewer.get("/review/").text  # no Stores tab
    assert reviewer.post(f"/review/styles/{style.id}/take-down", data={"csrf": csrf}).status_code == 403
    assert reviewer.post("/review/stores/st_SH-0012/revoke", data={"csrf": csrf}).status_code == 403
    assert reviewer.post(f"/review/styles/{style.id}/off-shelf", data={"csrf": csrf}).status_code == 403

    editor, editor_csrf = signed_in(hq, "content.editor")
    page = editor.get("/review/catalog").text
    assert 'class="off-shelf"' in page and "take-down" not in page and 'id="add-tags"' in page
    confirmed = {"csrf": editor_csrf, "confirm": "yes"}
    assert editor.post(f"/review/styles/{style.id}/off-shelf", data=confirmed).status_code == 200
    assert editor.post(f"/review/styles/{style.id}/take-down", data={"csrf": editor_csrf}).status_code == 403
    assert editor.post("/review/stores/st_SH-0012/revoke", data={"csrf": editor_csrf}).status_code == 403
    with db.read(hq.engine) as conn:
        assert catalog.get_style(conn, style.id).status == "OFF_SHELF"  # type: ignore[union-attr]
        assert stores.get_store(conn, "st_SH-0012").status == "ACTIVE"  # type: ignore[union-attr]

    admin, admin_csrf = signed_in(hq, "ops.admin")
    assert "take-down" in admin.get("/review/catalog").text and 'class="revoke"' in admin.get("/review/stores").text
    confirmed = {"csrf": admin_csrf, "confirm": "yes"}
    assert admin.post(f"/review/styles/{style.id}/take-down", data=confirmed).status_code == 200
    assert admin.post("/review/stores/st_SH-0012/revoke", data=confirmed).status_code == 200
    with db.read(hq.engine) as conn:
        assert catalog.get_style(conn, style.id).status == "WITHDRAWN"  # type: ignore[union-attr]
        assert stores.get_store(conn, "st_SH-0012").status == "REVOKED"  # type: ignore[union-attr]


def test_a_role_change_applies_to_a_session_at_once_and_a_labeller_lands_nowhere_it_may_not(hq_sqlite: HQ) -> None:
    hq = hq_sqlite
    _people(hq)
    add_store(hq, "SH-0012")
    browser, csrf = signed_in(hq, "content.reviewer")
    assert browser.get("/review/stores").status_code == 403
    with db.write(hq.engine) as conn:
        reviewers.set_role(conn, "content.reviewer", "ops_admin", "cli:root")
    assert browser.get("/review/stores").status_code == 200
    with db.write(hq.engine) as conn:
        reviewers.set_role(conn, "content.reviewer", "labeller", "cli:root")
    assert browser.get("/review/stores").status_code == 403 and browser.get("/review/").status_code == 403
    labeller, _ = signed_in(hq, "labeller")
    assert labeller.get("/review/credits").status_code == 403 and labeller.get("/review/audit").status_code == 403


@pytest.mark.parametrize("role", list(Role))
def test_the_role_table_gives_labellers_and_trainers_nothing_about_stores_or_credits(role: Role) -> None:
    business = {Permission.MANAGE_STORES, Permission.MANAGE_CREDITS, Permission.MANAGE_FLEET, Permission.READ_AUDIT}
    granted = {p for p in Permission if roles.allows(role, p)}
    if role in (Role.LABELLER, Role.TRAINER):
        assert Permission.READ_CAPTURES in granted and not granted & business
    assert roles.allows(Role.OPS_ADMIN, Permission.TAKE_DOWN_STYLES) and not roles.allows("boss", Permission.READ_AUDIT)
