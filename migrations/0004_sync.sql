-- Catalog sync with HQ (issue #11; ARCHITECTURE.md §15). Ownership is partitioned: HQ owns the styles it
-- publishes (style.owner = 'HQ', remote_id = HQ's id = the style's client_uid), the kiosk owns its drafts
-- until HQ approves them. Times are UTC text 'YYYY-MM-DDTHH:MM:SS.fffZ'.

-- One row: this kiosk's enrollment and where it is in HQ's two feeds. The token lives here because the
-- database file is owner-only (0600, core/paths.py) and is never logged; it is shown nowhere after enroll.
CREATE TABLE sync_state (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    hq_url           TEXT    NOT NULL,
    store_id         TEXT    NOT NULL,
    kiosk_id         TEXT    NOT NULL,
    channel          TEXT    NOT NULL,
    token            TEXT    NOT NULL,
    enrolled_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- OK, OFFLINE, REVOKED or UPGRADE_REQUIRED (NOT_ENROLLED is the absence of this row).
    state            TEXT    NOT NULL DEFAULT 'OK'
                     CHECK (state IN ('OK', 'OFFLINE', 'REVOKED', 'UPGRADE_REQUIRED')),
    channel_cursor   TEXT,                          -- "<epoch>.<seq>"; NULL: the first cycle takes the snapshot
    snapshot_etag    TEXT,                          -- the cursor of the last snapshot applied (If-None-Match)
    inbox_cursor     TEXT,
    last_success_at  TEXT,
    offline_since    TEXT,
    last_error       TEXT,
    not_before       TEXT,                          -- Retry-After / hello backoff_s: no cycle before this time
    resets_json      TEXT    NOT NULL DEFAULT '[]'  -- times of the last 410 resets (at most three an hour)
);

-- A catalog version HQ sent whose required blobs are not all here yet: the old version (if any) keeps
-- showing until the staged one is complete (two-phase materialise).
CREATE TABLE sync_staged_style (
    remote_id    TEXT    PRIMARY KEY,
    version      INTEGER NOT NULL,
    body_json    TEXT    NOT NULL,
    staged_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Blobs a staged style needs, fetched by BLOB_FETCH tasks; DONE once hashed, probed and in the asset store.
CREATE TABLE sync_blob (
    sha256        TEXT    PRIMARY KEY,
    size          INTEGER NOT NULL,
    format        TEXT    NOT NULL,
    state         TEXT    NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'DONE', 'FAILED')),
    hash_failures INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT,
    updated_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE INDEX sync_blob_by_state ON sync_blob (state);

-- A kiosk draft submitted to HQ: pushed by a DRAFT_PUSH task as revision `rev` of draft `draft_id`
-- (= style.client_uid), then decided at HQ (the inbox says so).
CREATE TABLE sync_draft_upload (
    style_id     INTEGER NOT NULL REFERENCES style(id) ON DELETE CASCADE,
    draft_id     TEXT    NOT NULL,
    rev          INTEGER NOT NULL CHECK (rev >= 1),
    state        TEXT    NOT NULL DEFAULT 'QUEUED'
                 CHECK (state IN ('QUEUED', 'SENT', 'APPROVED', 'REJECTED', 'FAILED')),
    last_error   TEXT,
    reason       TEXT,
    queued_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    sent_at      TEXT,
    decided_at   TEXT,
    PRIMARY KEY (draft_id, rev)
);

CREATE INDEX sync_draft_upload_by_state ON sync_draft_upload (state);

-- Who owns a style row: LOCAL (made here or shipped with the kiosk and never yet taken over by HQ) or HQ.
-- HQ-owned rows are read-only here; only sync writes them.
ALTER TABLE style ADD COLUMN owner TEXT NOT NULL DEFAULT 'LOCAL' CHECK (owner IN ('LOCAL', 'HQ'));
-- Staff hid this HQ style in their own store: not shown to customers, whatever HQ's status says.
ALTER TABLE style ADD COLUMN hidden_locally INTEGER NOT NULL DEFAULT 0 CHECK (hidden_locally IN (0, 1));
