-- Generation credits (ARCHITECTURE.md §14). Times are INTEGER milliseconds since the Unix epoch, UTC; the
-- store's calendar day is computed from them with the store's time zone (core/credits/caps.py), never stored.
--
-- One account per store. `balance` is what may still be spent: a paid generation takes its price from it when
-- its task is inserted (the entry is PENDING), and a refund gives it back. So at every commit
--     balance + (sum of PENDING amounts) = (sum of grants) - (sum of confirmed amounts)
-- over the entries that count against the balance (`funded` = 1). An account that never received a grant
-- (`first_grant_at` NULL: a standalone store paying its provider with its own key) is not enforced: its
-- generations are written with funded = 0 (for the caps and the ledger) and never touch the balance.

CREATE TABLE credit_account (
    id             INTEGER PRIMARY KEY,
    store_id       TEXT    NOT NULL UNIQUE,
    balance        INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
    first_grant_at INTEGER,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);

-- kind GRANT: credits given (by HQ's credits.grant event or by staff), unique by grant_id, CONFIRMED at once.
-- kind CHARGE: one paid generation, linked to its task (biz_type 'TASK', biz_id = task_no), PENDING from the
-- task's insert until the transaction that ends the task makes it CONFIRMED (something was delivered:
-- confirmed_amount of amount; the rest refunded) or REFUNDED (nothing was). A replayed dead letter is a new
-- CHARGE for the same task (`note` says so): at most one PENDING charge per task (credit_charge_pending).
CREATE TABLE credit_entry (
    id               INTEGER PRIMARY KEY,
    account_id       INTEGER NOT NULL REFERENCES credit_account (id),
    kind             TEXT    NOT NULL CHECK (kind IN ('GRANT', 'CHARGE')),
    status           TEXT    NOT NULL CHECK (status IN ('PENDING', 'CONFIRMED', 'REFUNDED')),
    amount           INTEGER NOT NULL CHECK (amount >= 0),
    confirmed_amount INTEGER NOT NULL DEFAULT 0 CHECK (confirmed_amount >= 0 AND confirmed_amount <= amount),
    funded           INTEGER NOT NULL DEFAULT 1 CHECK (funded IN (0, 1)),
    grant_id         TEXT    UNIQUE,
    biz_type         TEXT,
    biz_id           TEXT,
    provider         TEXT,
    model            TEXT,
    unit_price       INTEGER,
    variations       INTEGER CHECK (variations IS NULL OR variations >= 1),
    session_id       TEXT,
    request_source   TEXT,
    reason           TEXT,
    note             TEXT,
    created_at       INTEGER NOT NULL,
    settled_at       INTEGER,
    CHECK ((kind = 'GRANT') = (grant_id IS NOT NULL)),
    CHECK (kind = 'CHARGE' OR status = 'CONFIRMED'),
    CHECK ((status = 'PENDING') = (settled_at IS NULL) OR kind = 'GRANT'),
    CHECK (status <> 'REFUNDED' OR confirmed_amount = 0)
);

CREATE INDEX credit_entry_biz ON credit_entry (biz_type, biz_id);
CREATE UNIQUE INDEX credit_charge_pending ON credit_entry (biz_type, biz_id) WHERE status = 'PENDING';
-- The caps count a day's (or a session's) charges that were not refunded.
CREATE INDEX credit_charge_created ON credit_entry (account_id, created_at) WHERE kind = 'CHARGE';
CREATE INDEX credit_charge_session ON credit_entry (session_id) WHERE kind = 'CHARGE' AND session_id IS NOT NULL;
