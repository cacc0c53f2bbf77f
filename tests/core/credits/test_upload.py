"""The ledger entries waiting to go up to HQ, on a real kiosk database: only settled entries, each once, with a
random upload id of its own (also for entries written before migration 0005), marked only when HQ stored it."""

from __future__ import annotations

import pytest

from nailmirror_desktop.core.credits import ledger
from nailmirror_desktop.core.credits.upload import mark_uploaded, pending_uploads, utc_text
from nailmirror_desktop.core.db import connect, migrate, open_database

NOW = 1_790_000_000_000
HEX = set("0123456789abcdef")


def charge(task_no: str = "T0000000000000001", *, variations: int = 1) -> ledger.Charge:
    return ledger.Charge(task_no, "openai", "gpt-image-1", 1, variations, None, "kiosk", 100, 3,
                         NOW - 3_600_000, NOW + 3_600_000)


@pytest.fixture
def conn(tmp_path):
    conn = open_database(tmp_path / "kiosk.db")
    yield conn
    conn.close()


def test_only_settled_entries_are_listed_oldest_first_with_their_wire_body(conn) -> None:
    ledger.apply_grant(conn, "local", "gr_1", 5, "opening", NOW)
    ledger.pre_deduct(conn, "local", charge("T0000000000000001", variations=3), NOW + 10)
    ledger.pre_deduct(conn, "local", charge("T0000000000000002"), NOW + 20)
    ledger.pre_deduct(conn, "local", charge("T0000000000000003"), NOW + 30)
    ledger.settle(conn, "T0000000000000001", 2, "2 of 3 arrived", NOW + 1_500)
    ledger.settle(conn, "T0000000000000003", 0, "provider failed", NOW + 1_600)
    listed = pending_uploads(conn)
    assert [u.body["kind"] for u in listed] == ["GRANT", "CHARGE", "CHARGE"]  # T2 is still PENDING: not listed
    grant, partly, refunded = (u.body for u in listed)
    assert grant == {"nm": 1, "kind": "GRANT", "status": "CONFIRMED", "amount": 5, "confirmed_amount": 0,
                     "funded": True, "grant_id": "gr_1", "task_no": None, "provider": None, "model": None,
                     "unit_price": None, "variations": None, "reason": "opening", "note": None,
                     "created_at": utc_text(NOW), "settled_at": utc_text(NOW)}
    assert (partly["task_no"], partly["status"], partly["amount"], partly["confirmed_amount"], partly["note"]) == (
        "T0000000000000001", "CONFIRMED", 3, 2, "2 of 3 arrived")
    assert partly["settled_at"] == utc_text(NOW + 1_500) and partly["provider"] == "openai"
    assert (refunded["status"], refunded["confirmed_amount"]) == ("REFUNDED", 0)
    assert all(len(u.entry_id) == 32 and set(u.entry_id) <= HEX for u in listed)
    assert len({u.entry_id for u in listed}) == 3


def test_marked_entries_are_not_listed_again_and_marking_is_idempotent(conn) -> None:
    ledger.apply_grant(conn, "local", "gr_1", 5, "opening", NOW)
    ledger.apply_grant(conn, "local", "gr_2", 1, "top-up", NOW + 1)
    first, second = pending_uploads(conn)
    assert mark_uploaded(conn, [first.entry_id], NOW + 5) == 1
    assert mark_uploaded(conn, [first.entry_id], NOW + 6) == 0
    assert mark_uploaded(conn, ["not-an-entry"], NOW + 6) == 0
    assert [u.entry_id for u in pending_uploads(conn)] == [second.entry_id]
    assert pending_uploads(conn, limit=1) == pending_uploads(conn)
    assert conn.execute("SELECT uploaded_at FROM credit_entry WHERE upload_id = ?",
                        (first.entry_id,)).fetchone()[0] == NOW + 5


def test_a_pending_charge_cannot_be_marked_and_goes_up_once_it_settles(conn) -> None:
    ledger.apply_grant(conn, "local", "gr_1", 5, "opening", NOW)
    ledger.pre_deduct(conn, "local", charge(), NOW + 10)
    upload_id = conn.execute("SELECT upload_id FROM credit_entry WHERE kind = 'CHARGE'").fetchone()[0]
    assert mark_uploaded(conn, [upload_id], NOW + 20) == 0
    ledger.settle(conn, "T0000000000000001", 1, None, NOW + 30)
    assert upload_id in [u.entry_id for u in pending_uploads(conn)]


def test_other_stores_entries_are_not_listed(conn) -> None:
    ledger.apply_grant(conn, "st_OTHER", "gr_9", 5, "opening", NOW)
    assert pending_uploads(conn) == [] and len(pending_uploads(conn, "st_OTHER")) == 1
    with pytest.raises(ValueError):
        pending_uploads(conn, limit=0)


def test_entries_written_before_migration_5_get_distinct_upload_ids(tmp_path) -> None:
    conn = connect(tmp_path / "old.db")
    migrate(conn, target=3)  # a kiosk's database as it was before uploads existed
    for n in range(3):
        ledger.apply_grant(conn, "local", f"gr_{n}", 1, "before the upgrade", NOW + n)
    migrate(conn)
    ids = [r[0] for r in conn.execute("SELECT upload_id FROM credit_entry ORDER BY id")]
    assert len(set(ids)) == 3 and all(len(i) == 32 for i in ids)
    assert len(pending_uploads(conn)) == 3
    conn.close()
