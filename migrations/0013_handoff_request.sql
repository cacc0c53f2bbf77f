-- "I want this one" (issue #22 §3): a customer's chosen style handed to the nail artist as a request with a number
-- the customer shows ("A012"). Business state only; no task row. Times are UTC ISO 8601 text. `day` is the
-- store's local calendar day (KioskConfig.store_time_zone) the number belongs to: numbers start again each day and
-- never repeat within one (handoff_counter keeps the last one given, also after the row itself was purged).
-- The style is copied as the customer saw it (name, code, price), so a later edit of the style does not change
-- what she asked for. `photo` names a copy of her snapshot under data_dir()/handoff, deleted with the row:
-- done requests and those of an earlier day are purged (core/tryon/handoff.py, README "Customers' photos").
CREATE TABLE handoff_request (
    id INTEGER PRIMARY KEY,
    day TEXT NOT NULL CHECK (length(day) = 10),
    seq INTEGER NOT NULL CHECK (seq >= 1),
    number TEXT NOT NULL,
    style_code TEXT NOT NULL,
    style_name TEXT NOT NULL,
    style_name_en TEXT NOT NULL DEFAULT '',
    price_minor INTEGER CHECK (price_minor IS NULL OR (price_minor >= 0 AND price_minor <= 99999999)),
    currency TEXT NOT NULL,
    photo TEXT,
    created_at TEXT NOT NULL,
    done_at TEXT,
    UNIQUE (day, seq)
);
CREATE INDEX handoff_request_open ON handoff_request (day, done_at);
CREATE TABLE handoff_counter (
    day TEXT PRIMARY KEY,
    last_seq INTEGER NOT NULL CHECK (last_seq >= 0)
);
