"""The review page's Credits tab through the real app: sign-in required, each store's balance and usage from
HQ's grants and the kiosks' uploads, recent grants, in zh_CN and English."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from nailmirror_hq import credits, db, reviewers
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import new_kiosk

PASSWORD = "correct horse battery"


def _signed_in(hq: HQ) -> TestClient:
    with db.write(hq.engine) as conn:
        reviewers.add(conn, "li.wang", PASSWORD, "test", role="ops_admin")
    browser = TestClient(create_app(hq))
    page = browser.get("/review/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf
    answer = browser.post("/review/login", data={"csrf": csrf.group(1), "name": "li.wang", "password": PASSWORD},
                          follow_redirects=False)
    assert answer.status_code == 303
    return browser


def _cell(html: str, store_id: str, name: str) -> str:
    row = re.search(rf'<tr id="credits-{re.escape(store_id)}">(.*?)</tr>', html, re.S)
    assert row, html[:2000]
    found = re.search(rf'<td class="{name}">(?:<b>)?([^<]*)', row.group(1))
    assert found, row.group(1)
    return found.group(1).strip()


def test_credits_tab_shows_each_stores_balance_and_usage(hq_sqlite: HQ) -> None:
    hq = hq_sqlite
    assert TestClient(create_app(hq)).get("/review/credits", follow_redirects=False).status_code == 303
    api = TestClient(create_app(hq))
    store_id, headers = new_kiosk(hq, api)
    idle_id, _ = new_kiosk(hq, api, name="BJ-0001")
    with db.write(hq.engine) as conn:
        given = credits.grant(conn, store_id, 10, "开业赠送", "test", key=hq.require_signing_key())
    spent = {"nm": 1, "kind": "CHARGE", "status": "CONFIRMED", "amount": 3, "confirmed_amount": 2, "funded": True,
             "grant_id": None, "task_no": "T0000000000000001", "created_at": "2026-12-01T10:00:00.000Z",
             "settled_at": "2026-12-01T10:00:09.000Z"}
    assert api.put("/v1/ledger/entries/c1", headers=headers, json=spent).status_code == 201

    browser = _signed_in(hq)
    page = browser.get("/review/credits?lang=zh_CN")
    assert page.status_code == 200 and "各门店积分" in page.text and "余额" in page.text
    assert [_cell(page.text, store_id, k) for k in ("granted", "confirmed", "refunded", "balance", "generations")] == [
        "10", "2", "1", "8", "1"]
    assert _cell(page.text, idle_id, "balance") == "0"
    # under the store, its kiosk's own share (a grant goes to one kiosk's ledger)
    kiosk = given.kiosk_id
    assert kiosk is not None
    row = re.search(rf'<tr class="kiosk" id="credits-{re.escape(store_id)}-{re.escape(kiosk)}">(.*?)</tr>', page.text,
                    re.S)
    assert row and "终端" in row.group(1) and '<td class="balance">8</td>' in row.group(1)
    assert f'id="grant-{given.grant_id}"' in page.text and "开业赠送" in page.text
    english = browser.get("/review/credits?lang=en").text
    assert "Credits per store" in english and "Granted by HQ" in english and 'href="/review/credits"' in english


def test_credits_tab_without_grants(hq_sqlite: HQ) -> None:
    browser = _signed_in(hq_sqlite)
    page = browser.get("/review/credits?lang=en")
    assert page.status_code == 200 and 'id="no-grants"' in page.text
