-- Consented nail captures (issue #26): a copy of the customer's (or staff's own) still, cropped to the hands,
-- faces blurred, made only at the consent tap and sent to HQ with the next sync (a CAPTURE_UPLOAD task per row);
-- deleted here once HQ confirms it holds it, when she withdraws it, or dropped oldest first past the disk quota
-- (core/captures/). `image` names the PNG under data_dir()/captures. The consent record is part of the row:
-- a row without one cannot exist (CHECKs). Times are UTC ISO 8601 text.
CREATE TABLE capture (
    code TEXT PRIMARY KEY CHECK (length(code) = 8),
    image TEXT NOT NULL,
    image_sha256 TEXT NOT NULL CHECK (length(image_sha256) = 64),
    size_bytes INTEGER NOT NULL CHECK (size_bytes > 0),
    taken_at TEXT NOT NULL,
    consent_by TEXT NOT NULL CHECK (consent_by IN ('customer', 'staff')),
    consent_at TEXT NOT NULL,
    consent_text_version TEXT NOT NULL CHECK (length(consent_text_version) > 0),
    model_version TEXT NOT NULL,
    facts TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'QUEUED' CHECK (state IN ('QUEUED', 'SENT')),
    last_error TEXT
);
CREATE INDEX capture_by_age ON capture (taken_at);
-- Codes staff typed in to withdraw (a customer's request): sent to HQ at the next sync (or at once when online),
-- kept until HQ recorded it. The capture itself, if this kiosk held it, is already gone.
CREATE TABLE capture_withdrawal (
    code TEXT PRIMARY KEY CHECK (length(code) = 8),
    requested_at TEXT NOT NULL,
    sent_at TEXT
);
-- Staff consent once to their own hands being captured from staff mode: the record every staff capture cites.
CREATE TABLE capture_staff_consent (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    consent_at TEXT NOT NULL,
    text_version TEXT NOT NULL
);
