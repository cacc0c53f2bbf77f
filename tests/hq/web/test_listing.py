"""500+ styles and drafts stay fast on the review page: the number of SQL statements a queue or catalog page
costs is the same with 5 rows as with 520, on every page (counted with an SQLAlchemy event listener on HQ's
own engine), and a page of 24 is served in well under a second."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from nailmirror_hq import clock, db, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.schema import draft, draft_revision, style
from nailmirror_hq.service import HQ
from tests.hq.web.test_routes import PASSWORD, sign_in
from tests.support.hq_fixtures import add_store, sha

CATEGORIES = ("cat_eye", "french", "solid")


def _fill(hq: HQ, first: int, count: int, store_id: str) -> None:
    """Rows straight into the tables (one transaction): only the pages' reading is under test here."""
    now = clock.now_text()
    with db.write(hq.engine) as conn:
        for n in range(first, first + count):
            body = {"style_code": f"T{n:05d}", "status": "PUBLISHED", "name": {"zh": f"叶子猫眼{n}", "en": f"Leaf {n}"},
                    "category": CATEGORIES[n % 3], "tags": ["leaf"], "accent_fingers": [], "prompt": "",
                    "design": None, "origin": {"store_id": None, "draft_id": None, "rev": None}, "published_at": now,
                    "assets": [{"type": "COVER", "slot": "", "sha256": sha(str(n).encode()), "size": 1,
                                "format": "PNG", "width": 1, "height": 1}]}
            text = json.dumps(body, ensure_ascii=False)
            conn.execute(style.insert().values(id=str(uuid.uuid4()), style_code=f"T{n:05d}", version=1,
                                               status="PUBLISHED" if n % 2 else "OFF_SHELF", body=text,
                                               created_at=now, updated_at=now))
            draft_id = str(uuid.uuid4())
            conn.execute(draft.insert().values(id=draft_id, store_id=store_id, created_at=now))
            conn.execute(draft_revision.insert().values(draft_id=draft_id, rev=1, kiosk_id="k_test", body=text,
                                                        body_sha256=sha(text.encode()), state="PENDING_REVIEW",
                                                        received_at=now))


@contextmanager
def _statements(hq: HQ) -> Iterator[list[str]]:
    seen: list[str] = []

    def count(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        seen.append(statement)

    event.listen(hq.engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(hq.engine, "before_cursor_execute", count)


def _cost(hq: HQ, browser: TestClient, path: str) -> int:
    with _statements(hq) as seen:
        answer = browser.get(path)
    assert answer.status_code == 200, answer.text[:300]
    return len(seen)


@pytest.mark.slow  # 520 styles and drafts written, then a dozen pages
def test_a_page_costs_the_same_statements_with_5_rows_or_520(hq_sqlite: HQ) -> None:
    hq = hq_sqlite
    store_id, _ = add_store(hq, "SH-0012")
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
    browser = TestClient(create_app(hq))
    assert sign_in(browser, "li.wang") == 303
    pages = ("/review/", "/review/?status=ALL&q=leaf&page=2", "/review/catalog",
             "/review/catalog?status=PUBLISHED&category=french&q=leaf&page=3")
    _fill(hq, 0, 5, store_id)
    small = [_cost(hq, browser, path) for path in pages]
    _fill(hq, 5, 515, store_id)
    large = [_cost(hq, browser, path) for path in pages]
    assert large == small, (small, large)
    assert max(large) <= 12
    last = browser.get("/review/catalog?page=22")
    assert "Page 22 of 22" in last.text or "第 22 页" in last.text
    started = time.perf_counter()
    for path in pages:
        browser.get(path)
    assert (time.perf_counter() - started) / len(pages) < 1.0
