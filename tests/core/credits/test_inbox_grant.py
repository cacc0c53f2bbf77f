"""HQ's credits.grant inbox event on a real kiosk database: applied once by grant_id, its shape checked before
anything is written, and the grant's own rules (amount, reason) still enforced."""

from __future__ import annotations

from typing import Any

import pytest

from nailmirror_desktop.core.credits import ledger
from nailmirror_desktop.core.credits.errors import GrantRejected
from nailmirror_desktop.core.credits.inbox_grant import apply_grant_event
from nailmirror_desktop.core.db import open_database
from tests.support.credit_books import assert_books_balance, read_books

NOW = 1_790_000_000_000


@pytest.fixture
def db(tmp_path):
    return tmp_path / "kiosk.db"


@pytest.fixture
def conn(db):
    conn = open_database(db)
    yield conn
    conn.close()


def event(**change: Any) -> dict[str, Any]:
    return {"seq": 3, "type": "credits.grant", "at": "2026-12-01T09:00:00.000Z", "grant_id": "gr_0a1b2c",
            "amount": 2, "reason": "opening", **change}


def test_a_grant_event_adds_its_credits_once(conn, db) -> None:
    assert apply_grant_event(conn, event(), now_ms=NOW) is True
    assert apply_grant_event(conn, event(), now_ms=NOW + 1) is False  # the same event delivered again
    assert apply_grant_event(conn, event(grant_id="gr_ffff", amount=3), now_ms=NOW + 2) is True
    books = read_books(db)
    assert books.balance == 5 and books.grants == 5 and books.entries == 2
    assert_books_balance(db)
    (newest, older) = ledger.entries(conn, "local")
    assert (older.grant_id, older.amount, older.reason) == ("gr_0a1b2c", 2, "opening")
    assert ledger.find_account(conn, "local").enforced  # the first grant switches the balance on


def test_a_grant_event_goes_to_the_store_it_is_given(conn, db) -> None:
    assert apply_grant_event(conn, event(), store_id="st_SH-0012", now_ms=NOW)
    assert read_books(db, "st_SH-0012").balance == 2 and read_books(db).balance is None


def test_hq_s_signature_is_kept_with_the_grant_and_goes_back_with_its_upload(conn, db) -> None:
    """The signature is what lets an HQ restored from a backup that lost the grant learn it back (issue 25 §1)."""
    from nailmirror_desktop.core.credits.upload import pending_uploads

    assert apply_grant_event(conn, event(grant_sig="c2lnbmVk"), now_ms=NOW)
    assert apply_grant_event(conn, event(grant_id="gr_old"), now_ms=NOW + 1)  # from an HQ that did not sign yet
    signed, unsigned = (u.body for u in pending_uploads(conn))
    assert signed["grant_id"] == "gr_0a1b2c" and signed.get("grant_sig") == "c2lnbmVk"
    assert unsigned["grant_id"] == "gr_old" and "grant_sig" not in unsigned  # the body it always had


@pytest.mark.parametrize(("change", "code"), [
    ({"type": "draft.decision"}, "GRANT_EVENT_INVALID"),
    ({"grant_sig": 17}, "GRANT_EVENT_INVALID"),
    ({"grant_sig": "x" * 201}, "GRANT_EVENT_INVALID"),
    ({"grant_id": None}, "GRANT_EVENT_INVALID"),
    ({"grant_id": 17}, "GRANT_EVENT_INVALID"),
    ({"amount": "2"}, "GRANT_EVENT_INVALID"),
    ({"amount": 2.0}, "GRANT_EVENT_INVALID"),
    ({"amount": True}, "GRANT_EVENT_INVALID"),
    ({"reason": None}, "GRANT_EVENT_INVALID"),
    ({"amount": 0}, "GRANT_AMOUNT_INVALID"),
    ({"amount": -5}, "GRANT_AMOUNT_INVALID"),
    ({"amount": 1_000_001}, "GRANT_AMOUNT_INVALID"),
    ({"reason": "  "}, "GRANT_REASON_REQUIRED"),
    ({"grant_id": " "}, "GRANT_ID_INVALID"),
])
def test_a_malformed_grant_event_is_refused_and_writes_nothing(conn, db, change, code) -> None:
    with pytest.raises(GrantRejected) as refused:
        apply_grant_event(conn, event(**change), now_ms=NOW)
    assert refused.value.code == code
    assert read_books(db).entries == 0 and read_books(db).balance is None


def test_a_missing_field_is_refused(conn, db) -> None:
    body = event()
    del body["amount"]
    with pytest.raises(GrantRejected) as refused:
        apply_grant_event(conn, body, now_ms=NOW)
    assert refused.value.code == "GRANT_EVENT_INVALID"
    assert read_books(db).entries == 0
