"""Reading the credit ledger straight from the database file, for tests: the books must balance after every
commit (migrations/0003_credits.sql): balance + pending = grants - confirmed, over funded entries."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Books:
    balance: int | None  # None: no account, or never granted
    pending: int
    grants: int
    confirmed: int
    entries: int
    charges: int


def read_books(db: Path | str, store_id: str = "local") -> Books:
    conn = sqlite3.connect(str(db))
    try:
        account = conn.execute("SELECT id, balance, first_grant_at FROM credit_account WHERE store_id = ?",
                               (store_id,)).fetchone()
        if account is None:
            return Books(None, 0, 0, 0, 0, 0)
        row = conn.execute(
            """SELECT coalesce(sum(CASE WHEN kind = 'CHARGE' AND status = 'PENDING' AND funded THEN amount END), 0),
                      coalesce(sum(CASE WHEN kind = 'GRANT' THEN amount END), 0),
                      coalesce(sum(CASE WHEN kind = 'CHARGE' AND funded THEN confirmed_amount END), 0),
                      count(*), coalesce(sum(kind = 'CHARGE'), 0)
               FROM credit_entry WHERE account_id = ?""", (account[0],)).fetchone()
        return Books(account[1] if account[2] is not None else None, row[0], row[1], row[2], row[3], row[4])
    finally:
        conn.close()


def assert_books_balance(db: Path | str, store_id: str = "local") -> Books:
    books = read_books(db, store_id)
    if books.balance is not None:
        assert books.balance >= 0
        assert books.balance + books.pending == books.grants - books.confirmed, books
    return books


def charges_of(db: Path | str, task_no: str) -> list[sqlite3.Row]:
    conn = sqlite3.connect(str(db))
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute("SELECT * FROM credit_entry WHERE biz_type = 'TASK' AND biz_id = ? ORDER BY id",
                            (task_no,)).fetchall()
    finally:
        conn.close()


def task_count(db: Path | str) -> int:
    conn = sqlite3.connect(str(db))
    try:
        return int(conn.execute("SELECT count(*) FROM task").fetchone()[0])
    finally:
        conn.close()
