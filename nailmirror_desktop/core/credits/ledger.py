"""The credit ledger's SQL (migrations/0003_credits.sql, ARCHITECTURE.md §14): one function per verb.

Every write runs in `write_transaction` (it nests), and the writes that pay for a task run inside the task's
own transactions: `pre_deduct` in its insert (TaskEngine.submit's on_insert), `settle` in the one that ends it
(TaskHooks.task_did_finish). Between two commits the books therefore always balance:
    balance + pending = grants - confirmed        (over funded entries)
Entries are never deleted; a settled entry is never settled again (every settle is `WHERE status = 'PENDING'`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from nailmirror_desktop.core.credits.caps import Usage, check
from nailmirror_desktop.core.credits.errors import GrantRejected
from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.tasks.store import task_id_from_no

TASK_BIZ_TYPE = "TASK"
MAX_GRANT = 1_000_000
MAX_TEXT = 500
ALL_DELIVERED = 1_000_000  # settle(delivered=…) for "everything asked for" (capped at the charge's amount)


@dataclass(frozen=True)
class Account:
    id: int
    store_id: str
    balance: int
    first_grant_at: int | None

    @property
    def enforced(self) -> bool:
        """From the first grant on, the balance is enforced; before it the store pays its provider itself."""
        return self.first_grant_at is not None


@dataclass(frozen=True)
class Charge:
    """One paid generation's terms, to be pre-deducted in its task's insert transaction."""

    task_no: str
    provider: str
    model: str | None
    unit_price: int  # credits per image
    variations: int  # images asked for: amount = unit_price × variations
    session_id: str | None  # the customer session (None: the command line, no session cap)
    request_source: str
    daily_cap: int
    session_cap: int
    day_start_ms: int  # the store's calendar day [start, end) at the time of the request
    day_end_ms: int
    note: str | None = None

    @property
    def amount(self) -> int:
        return self.unit_price * self.variations


@dataclass(frozen=True)
class Entry:
    """A ledger row as staff and `credits ledger` see it."""

    id: int
    kind: str
    status: str
    amount: int
    confirmed_amount: int
    funded: bool
    grant_id: str | None
    task_no: str | None
    provider: str | None
    model: str | None
    unit_price: int | None
    variations: int | None
    session_id: str | None
    request_source: str | None
    reason: str | None
    note: str | None
    created_at: int
    settled_at: int | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Entry:
        return cls(row["id"], row["kind"], row["status"], row["amount"], row["confirmed_amount"], bool(row["funded"]),
                   row["grant_id"], row["biz_id"] if row["biz_type"] == TASK_BIZ_TYPE else None, row["provider"],
                   row["model"], row["unit_price"], row["variations"], row["session_id"], row["request_source"],
                   row["reason"], row["note"], row["created_at"], row["settled_at"])

    @property
    def refunded_amount(self) -> int:
        return 0 if self.status == "PENDING" or self.kind == "GRANT" else self.amount - self.confirmed_amount


@dataclass(frozen=True)
class Summary:
    """`credits show`: balance None while the store never received a grant. pending: credits held by charges
    not settled yet; confirmed_today / generations_today: the store's calendar day (generations: paid ones
    not refunded, what the daily cap counts)."""

    store_id: str
    balance: int | None
    pending: int
    granted: int
    confirmed: int
    confirmed_today: int
    generations_today: int


# --- the account --------------------------------------------------------------------------------------------


def account(conn: sqlite3.Connection, store_id: str, now_ms: int) -> Account:
    """The store's account, created (empty, not enforced) on first use."""
    conn.execute("""INSERT INTO credit_account (store_id, created_at, updated_at) VALUES (?, ?, ?)
                    ON CONFLICT (store_id) DO NOTHING""", (store_id, now_ms, now_ms))
    row = conn.execute("SELECT id, store_id, balance, first_grant_at FROM credit_account WHERE store_id = ?",
                       (store_id,)).fetchone()
    return Account(row[0], row[1], row[2], row[3])


def find_account(conn: sqlite3.Connection, store_id: str) -> Account | None:
    row = conn.execute("SELECT id, store_id, balance, first_grant_at FROM credit_account WHERE store_id = ?",
                       (store_id,)).fetchone()
    return None if row is None else Account(row[0], row[1], row[2], row[3])


def _move_balance(conn: sqlite3.Connection, account_id: int, delta: int, now_ms: int) -> None:
    if delta:
        conn.execute("UPDATE credit_account SET balance = balance + ?, updated_at = ? WHERE id = ?",
                     (delta, now_ms, account_id))


# --- charges ------------------------------------------------------------------------------------------------

DAY_COUNT = """
SELECT count(*) FROM credit_entry INDEXED BY credit_charge_created
WHERE account_id = ? AND kind = 'CHARGE' AND created_at >= ? AND created_at < ? AND status <> 'REFUNDED'
"""
SESSION_COUNT = """
SELECT count(*) FROM credit_entry INDEXED BY credit_charge_session
WHERE session_id = ? AND kind = 'CHARGE' AND session_id IS NOT NULL AND status <> 'REFUNDED'
"""
INSERT_CHARGE = """
INSERT INTO credit_entry (account_id, kind, status, amount, funded, biz_type, biz_id, provider, model, unit_price,
                          variations, session_id, request_source, note, created_at)
VALUES (?, 'CHARGE', 'PENDING', ?, ?, 'TASK', ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""


def usage(conn: sqlite3.Connection, acct: Account, charge: Charge) -> Usage:
    day = int(conn.execute(DAY_COUNT, (acct.id, charge.day_start_ms, charge.day_end_ms)).fetchone()[0])
    session = None
    if charge.session_id is not None:
        session = int(conn.execute(SESSION_COUNT, (charge.session_id,)).fetchone()[0])
    return Usage(acct.balance if acct.enforced else None, day, session)


def pre_deduct(conn: sqlite3.Connection, store_id: str, charge: Charge, now_ms: int) -> int:
    """Check the charge (caps.check: balance, day, session) and write it PENDING, taking its amount from an
    enforced balance. Raises CreditRefused before writing anything. Returns the entry's id."""
    if charge.variations < 1 or charge.unit_price < 0:
        raise ValueError("a charge needs at least one image and a price of 0 or more")
    with write_transaction(conn):
        acct = account(conn, store_id, now_ms)
        check(usage(conn, acct, charge), charge.amount, charge.daily_cap, charge.session_cap)
        entry_id = conn.execute(INSERT_CHARGE, (
            acct.id, charge.amount, 1 if acct.enforced else 0, charge.task_no, charge.provider, charge.model,
            charge.unit_price, charge.variations, charge.session_id, charge.request_source,
            _text(charge.note), now_ms)).lastrowid
        if acct.enforced:
            _move_balance(conn, acct.id, -charge.amount, now_ms)
    assert entry_id is not None
    return entry_id


SETTLE = """
UPDATE credit_entry
SET status = CASE WHEN min(amount, unit_price * :delivered) > 0 THEN 'CONFIRMED' ELSE 'REFUNDED' END,
    confirmed_amount = min(amount, unit_price * :delivered),
    note = CASE WHEN :note IS NULL THEN note WHEN note IS NULL THEN :note ELSE note || '; ' || :note END,
    settled_at = :now
WHERE biz_type = 'TASK' AND biz_id = :task_no AND status = 'PENDING'
RETURNING id, account_id, amount, confirmed_amount, funded
"""


def settle(conn: sqlite3.Connection, task_no: str, delivered: int, note: str | None, now_ms: int) -> Entry | None:
    """End the task's PENDING charge: `delivered` images are paid for (at most the images asked for), the rest
    goes back to the balance; with delivered 0 the whole charge is REFUNDED. None when the task has no pending
    charge (a free generation, or one settled already: settling twice is impossible)."""
    with write_transaction(conn):
        row = conn.execute(SETTLE, {"delivered": max(0, delivered), "note": _text(note), "now": now_ms,
                                    "task_no": task_no}).fetchone()
        if row is None:
            return None
        if row["funded"]:
            _move_balance(conn, row["account_id"], row["amount"] - row["confirmed_amount"], now_ms)
        return entry(conn, row["id"])


def pending_variations(conn: sqlite3.Connection, task_no: str) -> int | None:
    """The images the task's PENDING charge asked for; None when it has none (a free task: one index probe)."""
    row = conn.execute("""SELECT variations FROM credit_entry INDEXED BY credit_charge_pending
                          WHERE biz_type = 'TASK' AND biz_id = ? AND status = 'PENDING'""", (task_no,)).fetchone()
    return None if row is None else int(row[0] or 1)


def last_charge(conn: sqlite3.Connection, task_no: str) -> Entry | None:
    row = conn.execute("""SELECT * FROM credit_entry WHERE biz_type = 'TASK' AND biz_id = ? AND kind = 'CHARGE'
                          ORDER BY id DESC LIMIT 1""", (task_no,)).fetchone()
    return None if row is None else Entry.from_row(row)


def orphans(conn: sqlite3.Connection) -> list[tuple[str, str, str | None]]:
    """Pending charges whose task has already ended: (task_no, status, last error code). Only a process that
    ended a task without the credit hooks registered (a bare TaskEngine) leaves one. Pending charges are few
    (one per unfinished paid task), read from their partial index; each task by its primary key."""
    found = []
    for (task_no,) in conn.execute("""SELECT biz_id FROM credit_entry INDEXED BY credit_charge_pending
                                      WHERE status = 'PENDING' AND biz_type = 'TASK'""").fetchall():
        task_id = task_id_from_no(task_no)
        row = None if task_id is None else conn.execute(
            "SELECT status, last_error_code FROM task WHERE id = ? AND finished_at IS NOT NULL", (task_id,)).fetchone()
        if row is not None:
            found.append((task_no, row[0], row[1]))
    return found


# --- grants -------------------------------------------------------------------------------------------------


def apply_grant(conn: sqlite3.Connection, store_id: str, grant_id: str, amount: int, reason: str, now_ms: int,
                grant_sig: str | None = None) -> bool:
    """Add `amount` credits once per `grant_id` (HQ's credits.grant event, or staff's local grant). True when
    applied now, False when that grant was applied before (nothing changes). The first grant ever switches the
    balance on. `grant_sig`: HQ's signature from the event, kept to send back with the entry's upload. Raises
    GrantRejected for an amount that is not a positive whole number or a blank reason/id."""
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= MAX_GRANT:
        raise GrantRejected("GRANT_AMOUNT_INVALID", f"a grant is a whole number of credits, 1 to {MAX_GRANT}")
    if not isinstance(grant_id, str) or not grant_id.strip() or len(grant_id) > 200:
        raise GrantRejected("GRANT_ID_INVALID", "a grant needs an id (at most 200 characters)")
    if not isinstance(reason, str) or not reason.strip():
        raise GrantRejected("GRANT_REASON_REQUIRED", "a grant needs a reason")
    with write_transaction(conn):
        acct = account(conn, store_id, now_ms)
        inserted = conn.execute(
            """INSERT INTO credit_entry (account_id, kind, status, amount, confirmed_amount, funded, grant_id, reason,
                                         created_at, settled_at)
               VALUES (?, 'GRANT', 'CONFIRMED', ?, 0, 1, ?, ?, ?, ?) ON CONFLICT (grant_id) DO NOTHING""",
            (acct.id, amount, grant_id, _text(reason.strip()), now_ms, now_ms)).rowcount
        if inserted != 1:
            return False
        if grant_sig is not None:  # HQ's grants only (migrations/0011); staff's local grants have none
            conn.execute("UPDATE credit_entry SET grant_sig = ? WHERE grant_id = ?", (grant_sig, grant_id))
        conn.execute("""UPDATE credit_account SET balance = balance + ?, first_grant_at = coalesce(first_grant_at, ?),
                        updated_at = ? WHERE id = ?""", (amount, now_ms, now_ms, acct.id))
    return True


# --- reading ------------------------------------------------------------------------------------------------


def entry(conn: sqlite3.Connection, entry_id: int) -> Entry:
    return Entry.from_row(conn.execute("SELECT * FROM credit_entry WHERE id = ?", (entry_id,)).fetchone())


def entries(conn: sqlite3.Connection, store_id: str, *, limit: int | None = 100,
            task_no: str | None = None) -> list[Entry]:
    """Newest first."""
    sql = """SELECT e.* FROM credit_entry e JOIN credit_account a ON a.id = e.account_id WHERE a.store_id = ?"""
    params: list[object] = [store_id]
    if task_no is not None:
        sql += " AND e.biz_type = 'TASK' AND e.biz_id = ?"
        params.append(task_no)
    sql += " ORDER BY e.id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [Entry.from_row(row) for row in conn.execute(sql, params)]


def summary(conn: sqlite3.Connection, store_id: str, day_start_ms: int, day_end_ms: int) -> Summary:
    acct = find_account(conn, store_id)
    if acct is None:
        return Summary(store_id, None, 0, 0, 0, 0, 0)
    row = conn.execute(
        """SELECT
             coalesce(sum(CASE WHEN kind = 'CHARGE' AND status = 'PENDING' AND (funded OR :unfunded)
                               THEN amount END), 0),
             coalesce(sum(CASE WHEN kind = 'GRANT' THEN amount END), 0),
             coalesce(sum(CASE WHEN kind = 'CHARGE' AND funded THEN confirmed_amount END), 0),
             coalesce(sum(CASE WHEN kind = 'CHARGE' AND settled_at >= :start AND settled_at < :end
                               THEN confirmed_amount END), 0),
             coalesce(sum(CASE WHEN kind = 'CHARGE' AND created_at >= :start AND created_at < :end
                               AND status <> 'REFUNDED' THEN 1 END), 0)
           FROM credit_entry WHERE account_id = :account""",
        {"unfunded": 0 if acct.enforced else 1, "start": day_start_ms, "end": day_end_ms, "account": acct.id},
    ).fetchone()
    return Summary(store_id, acct.balance if acct.enforced else None, row[0], row[1], row[2], row[3], row[4])


def _text(value: str | None) -> str | None:
    return None if value is None else value[:MAX_TEXT]


