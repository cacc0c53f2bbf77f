"""The ledger's SQL on a real database file: pre-deduct, settle once, grants once by id, the balance never
negative, n variations, and the books balancing after each step."""

from __future__ import annotations

import sqlite3

import pytest

from nailmirror_desktop.core.credits import ledger
from nailmirror_desktop.core.credits.errors import CreditRefused, GrantRejected
from nailmirror_desktop.core.db import open_database
from tests.support.credit_books import assert_books_balance

NOW = 1_790_000_000_000
DAY = (NOW - 3_600_000, NOW + 3_600_000)


@pytest.fixture
def db(tmp_path):
    return tmp_path / "ledger.db"


@pytest.fixture
def conn(db):
    conn = open_database(db)
    yield conn
    conn.close()


def charge(task_no: str = "T0000000000000001", *, variations: int = 1, price: int = 1, session: str | None = None,
           daily_cap: int = 100, session_cap: int = 3) -> ledger.Charge:
    return ledger.Charge(task_no, "openai", "gpt-image-1", price, variations, session, "kiosk", daily_cap,
                         session_cap, *DAY)


def balance(conn: sqlite3.Connection) -> int | None:
    acct = ledger.find_account(conn, "local")
    return None if acct is None or not acct.enforced else acct.balance


def test_a_grant_switches_the_balance_on_and_is_applied_once_by_id(conn, db):
    assert ledger.apply_grant(conn, "local", "g-1", 5, "opening", NOW) is True
    assert ledger.apply_grant(conn, "local", "g-1", 5, "opening", NOW) is False  # the same event delivered again
    assert ledger.apply_grant(conn, "local", "g-2", 2, "top-up", NOW) is True
    assert balance(conn) == 7
    assert assert_books_balance(db).grants == 7


@pytest.mark.parametrize(("amount", "grant_id", "reason", "code"), [
    (0, "g", "r", "GRANT_AMOUNT_INVALID"), (-3, "g", "r", "GRANT_AMOUNT_INVALID"),
    (True, "g", "r", "GRANT_AMOUNT_INVALID"), (2.5, "g", "r", "GRANT_AMOUNT_INVALID"),
    (1, " ", "r", "GRANT_ID_INVALID"), (1, "g", "  ", "GRANT_REASON_REQUIRED"),
])
def test_a_bad_grant_is_rejected_and_writes_nothing(conn, amount, grant_id, reason, code):
    with pytest.raises(GrantRejected) as rejected:
        ledger.apply_grant(conn, "local", grant_id, amount, reason, NOW)
    assert rejected.value.code == code
    assert conn.execute("SELECT count(*) FROM credit_entry").fetchone()[0] == 0


def test_pre_deduct_then_confirm_keeps_the_credit_spent(conn, db):
    ledger.apply_grant(conn, "local", "g", 2, "r", NOW)
    ledger.pre_deduct(conn, "local", charge(), NOW)
    assert balance(conn) == 1 and assert_books_balance(db).pending == 1
    settled = ledger.settle(conn, "T0000000000000001", 1, None, NOW + 1)
    assert (settled.status, settled.confirmed_amount) == ("CONFIRMED", 1)
    assert balance(conn) == 1
    books = assert_books_balance(db)
    assert (books.pending, books.confirmed) == (0, 1)


def test_a_refund_gives_the_credit_back_and_a_second_settle_does_nothing(conn, db):
    ledger.apply_grant(conn, "local", "g", 1, "r", NOW)
    ledger.pre_deduct(conn, "local", charge(), NOW)
    assert ledger.settle(conn, "T0000000000000001", 0, "dead", NOW).status == "REFUNDED"
    assert ledger.settle(conn, "T0000000000000001", 1, "again", NOW) is None  # never settled twice
    assert balance(conn) == 1
    assert assert_books_balance(db).confirmed == 0


def test_n_variations_pre_deduct_n_confirm_what_arrived_and_refund_the_rest(conn, db):
    ledger.apply_grant(conn, "local", "g", 10, "r", NOW)
    ledger.pre_deduct(conn, "local", charge(variations=3, price=2), NOW)
    assert balance(conn) == 4
    settled = ledger.settle(conn, "T0000000000000001", 2, "2 of 3", NOW)
    assert (settled.amount, settled.confirmed_amount, settled.refunded_amount) == (6, 4, 2)
    assert balance(conn) == 6
    assert_books_balance(db)


def test_the_balance_is_never_negative_a_charge_it_cannot_pay_writes_nothing(conn):
    ledger.apply_grant(conn, "local", "g", 2, "r", NOW)
    with pytest.raises(CreditRefused) as refused:
        ledger.pre_deduct(conn, "local", charge(variations=3), NOW)
    assert refused.value.code == "INSUFFICIENT_CREDITS"
    assert conn.execute("SELECT count(*) FROM credit_entry WHERE kind = 'CHARGE'").fetchone()[0] == 0
    with pytest.raises(sqlite3.IntegrityError):  # and the schema itself refuses a negative balance
        conn.execute("UPDATE credit_account SET balance = -1")


def test_before_any_grant_charges_are_recorded_unfunded_and_the_balance_stays_null(conn, db):
    for i in range(3):
        ledger.pre_deduct(conn, "local", charge(f"T000000000000000{i + 1}", variations=4), NOW)
    assert balance(conn) is None
    assert conn.execute("SELECT count(*) FROM credit_entry WHERE funded = 0").fetchone()[0] == 3
    ledger.apply_grant(conn, "local", "g", 2, "first", NOW)
    ledger.settle(conn, "T0000000000000001", 0, None, NOW)  # an unfunded refund does not mint credits
    ledger.settle(conn, "T0000000000000002", 4, None, NOW)  # nor does an unfunded confirm spend the grant
    assert balance(conn) == 2
    assert_books_balance(db)


def test_the_daily_cap_counts_charges_not_refunded_and_variations_count_once(conn):
    for i in range(2):
        ledger.pre_deduct(conn, "local", charge(f"T000000000000000{i + 1}", variations=4, daily_cap=3), NOW)
    ledger.settle(conn, "T0000000000000001", 0, None, NOW)  # refunded: no longer counts
    ledger.pre_deduct(conn, "local", charge("T0000000000000003", daily_cap=3), NOW)
    ledger.pre_deduct(conn, "local", charge("T0000000000000004", daily_cap=3), NOW)
    with pytest.raises(CreditRefused) as refused:
        ledger.pre_deduct(conn, "local", charge("T0000000000000005", daily_cap=3), NOW)
    assert refused.value.code == "DAILY_CAP_REACHED"
    # yesterday's charges are not today's
    tomorrow = ledger.Charge("T0000000000000006", "openai", None, 1, 1, None, "cli", 3, 3,
                             DAY[1], DAY[1] + 86_400_000)
    ledger.pre_deduct(conn, "local", tomorrow, DAY[1] + 10)


def test_the_session_cap_counts_only_that_session(conn):
    for i in range(3):
        ledger.pre_deduct(conn, "local", charge(f"T000000000000000{i + 1}", session="s1"), NOW)
    with pytest.raises(CreditRefused) as refused:
        ledger.pre_deduct(conn, "local", charge("T0000000000000004", session="s1"), NOW)
    assert refused.value.code == "SESSION_CAP_REACHED"
    ledger.pre_deduct(conn, "local", charge("T0000000000000005", session="s2"), NOW)
    ledger.pre_deduct(conn, "local", charge("T0000000000000006", session=None), NOW)  # the command line


def test_one_task_holds_at_most_one_pending_charge(conn):
    ledger.pre_deduct(conn, "local", charge(), NOW)
    with pytest.raises(sqlite3.IntegrityError):
        ledger.pre_deduct(conn, "local", charge(), NOW)


def test_summary_and_entries(conn):
    ledger.apply_grant(conn, "local", "g", 5, "r", NOW)
    ledger.pre_deduct(conn, "local", charge("T0000000000000001"), NOW)
    ledger.pre_deduct(conn, "local", charge("T0000000000000002", variations=2), NOW)
    ledger.settle(conn, "T0000000000000001", 1, None, NOW + 5)
    summary = ledger.summary(conn, "local", *DAY)
    assert (summary.balance, summary.pending, summary.granted, summary.confirmed_today,
            summary.generations_today) == (2, 2, 5, 1, 2)
    kinds = [(e.kind, e.status, e.task_no) for e in ledger.entries(conn, "local")]
    assert kinds == [("CHARGE", "PENDING", "T0000000000000002"), ("CHARGE", "CONFIRMED", "T0000000000000001"),
                     ("GRANT", "CONFIRMED", None)]
