"""The audit log as people read it (issue #25 point 13), through the real app on SQLite and PostgreSQL (+ S3):
localised actions, times in the store's zone, style codes instead of UUIDs, Chinese as Chinese, filters by
store, person and style, paging; one query per page at 600 styles and 3,000 rows."""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from nailmirror_hq import audit_view, catalog, clock, db, drafts, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.schema import audit_log, style
from nailmirror_hq.service import HQ
from nailmirror_hq.web.audit_page import ACTION_LABELS
from tests.support.hq_fixtures import draft_body, new_draft_id, new_kiosk

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "correct horse battery"


def signed_in(hq: HQ, name: str) -> TestClient:
    browser = TestClient(create_app(hq))
    page = browser.get("/review/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
    answer = browser.post("/review/login", data={"csrf": csrf, "name": name, "password": PASSWORD},
                          follow_redirects=False)
    assert answer.status_code == 303
    return browser


def decided_drafts(hq: HQ) -> dict[str, Any]:
    """Two stores, one draft each: SH's approved by 王丽 (li.wang), BJ's rejected by zhang.min with a Chinese
    reason."""
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin", display_name="王丽")
        reviewers.add(conn, "zhang.min", PASSWORD, "test")
    api = TestClient(create_app(hq))
    ids = {}
    for store_name in ("SH-0012", "BJ-0001"):
        _, headers = new_kiosk(hq, api, store_name)
        draft_id = new_draft_id()
        body = draft_body(api, headers, salt=len(ids), name=f"奶白贝壳猫眼 {store_name}")
        assert api.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=body).status_code == 201
        ids[store_name] = draft_id
    with db.write(hq.engine) as conn:
        drafts.approve(conn, ids["SH-0012"], "hq:li.wang")
        drafts.reject(conn, ids["BJ-0001"], "hq:zhang.min", "颜色与品牌色不符")
        code = catalog.get_style(conn, ids["SH-0012"]).style_code  # type: ignore[union-attr]
    return {"approved": ids["SH-0012"], "rejected": ids["BJ-0001"], "code": code}


def _rows(html: str) -> list[str]:
    return re.findall(r'<tr class="entry" id="audit-\d+" data-action="([A-Z_]+)"', html)


@pytest.mark.slow  # argon2 sign-ins, two stores' drafts through the API
def test_the_audit_page_reads_as_words_in_the_stores_time(hq: HQ) -> None:
    made = decided_drafts(hq)
    browser = signed_in(hq, "li.wang")
    page = browser.get("/review/audit?lang=zh_CN").text
    assert "原因: 颜色与品牌色不符" in page and "\\u" not in page  # Chinese as Chinese, never \u989c escapes
    approved = re.search(r'data-action="DRAFT_APPROVE">(.*?)</tr>', page, re.S)
    assert approved, page
    row = approved.group(1)
    assert made["code"] in row and made["approved"] not in row  # the style code, not its UUID
    assert "王丽" in row and "st_SH-0012" in row
    with db.read(hq.engine) as conn:
        at = conn.execute(audit_log.select().where(audit_log.c.action == "DRAFT_APPROVE")).one().at
    shown = re.search(r'<td class="time"[^>]*>([^<]*)</td>', row).group(1)  # type: ignore[union-attr]
    assert shown == clock.local_time(at, "Asia/Shanghai") and at[11:16] not in shown  # UTC+8, not UTC
    english = browser.get("/review/audit?lang=en").text
    assert "Approved a draft" in english and "Rejected a draft" in english and ">DRAFT_APPROVE<" not in english


@pytest.mark.slow  # argon2 sign-ins, two stores' drafts through the API
def test_the_audit_page_filters_by_store_person_and_style(hq: HQ) -> None:
    made = decided_drafts(hq)
    browser = signed_in(hq, "li.wang")
    by_store = _rows(browser.get("/review/audit?store=st_BJ-0001").text)
    assert "DRAFT_REJECT" in by_store and "DRAFT_APPROVE" not in by_store and "STORE_ADD" in by_store
    assert _rows(browser.get("/review/audit?person=zhang.min").text) == ["DRAFT_REJECT"]
    by_display_name = _rows(browser.get("/review/audit?person=王丽").text)  # as the page names li.wang
    assert "DRAFT_APPROVE" in by_display_name and "DRAFT_REJECT" not in by_display_name
    by_style = _rows(browser.get(f"/review/audit?style={made['code']}").text)
    assert "DRAFT_APPROVE" in by_style and "STYLE_PUBLISHED" in by_style and "DRAFT_REJECT" not in by_style
    assert set(_rows(browser.get(f"/review/audit?style={made['rejected']}").text)) == {"DRAFT_REJECT"}
    assert 'id="audit-empty"' in browser.get("/review/audit?person=nobody").text


def _many(hq: HQ, styles: int, rows: int) -> None:
    now = clock.now_text()
    with db.write(hq.engine) as conn:
        ids = [str(uuid.uuid4()) for _ in range(styles)]
        conn.execute(style.insert(), [{"id": i, "style_code": f"BULK{n:05d}", "version": 1, "status": "PUBLISHED",
                                       "body": "{}", "created_at": now, "updated_at": now}
                                      for n, i in enumerate(ids)])
        conn.execute(audit_log.insert(), [{"at": now, "actor": f"hq:p{n % 7}", "action": "STYLE_EDIT",
                                           "entity_type": "style", "entity_id": ids[n % styles],
                                           "detail": '{"version": 1}'} for n in range(rows)])


def test_paging_walks_every_row_once_with_one_query_a_page(hq: HQ) -> None:
    """600 styles, 3,000 rows: each page is ONE query, quick, and the pages together are every row once."""
    _many(hq, 600, 3000)
    statements: list[str] = []
    event.listen(hq.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    seen: list[int] = []
    slowest = 0.0
    wanted = audit_view.AuditFilter()
    while True:
        statements.clear()
        started = time.perf_counter()
        with db.read(hq.engine) as conn:
            found = audit_view.page(conn, wanted)
        slowest = max(slowest, time.perf_counter() - started)
        assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 1
        seen.extend(r.id for r in found.rows)
        if found.older is None:
            break
        wanted = audit_view.AuditFilter(before=found.older)
    assert len(seen) == len(set(seen)) == 3000 and seen == sorted(seen, reverse=True)
    assert all(r.style_code and r.style_code.startswith("BULK") for r in found.rows)
    with db.read(hq.engine) as conn:
        one_style = audit_view.page(conn, audit_view.AuditFilter(style="BULK00007", actor="hq:p0"))
    assert one_style.rows and {r.style_code for r in one_style.rows} == {"BULK00007"}
    assert slowest < 0.5, slowest  # a page of a few thousand rows: milliseconds; generous for a loaded CI box


def test_every_action_hq_records_has_a_label() -> None:
    """An `audit.record(…, "ACTION", …)` without a label would show its code on the page."""
    recorded: set[str] = set()
    for path in (ROOT / "nailmirror_hq").rglob("*.py"):
        for match in re.finditer(r'audit\.record\(\s*conn,\s*[^,]+,\s*(f?)"([^"]+)"', path.read_text()):
            pattern = re.sub(r"\\\{[^}]*\\\}", ".+", re.escape(match.group(2))) if match.group(1) else None
            if pattern is None:
                recorded.add(match.group(2))
            else:
                assert any(re.fullmatch(pattern, a) for a in ACTION_LABELS), match.group(0)
    assert len(recorded) > 15 and recorded <= set(ACTION_LABELS), recorded - set(ACTION_LABELS)


@pytest.mark.parametrize(("zone", "shown"), [
    ("Asia/Shanghai", "2026-12-04 21:03"), ("Europe/Berlin", "2026-12-04 14:03"), (None, "2026-12-04 21:03"),
    ("Not/AZone", "2026-12-04 21:03")])
def test_local_time_is_the_stores_zone_else_shanghai(zone: str | None, shown: str) -> None:
    assert clock.local_time("2026-12-04T13:03:00.123Z", zone) == shown
