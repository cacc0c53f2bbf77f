-- Style domain (ARCHITECTURE.md §8): what a style is, which assets it has, who may see it.
-- No task state lives here (no generate_status); an AI style only remembers which task made it.
-- Times are UTC text 'YYYY-MM-DDTHH:MM:SS.fffZ' (sortable, unambiguous).

CREATE TABLE category (
    id          INTEGER PRIMARY KEY,
    code        TEXT    NOT NULL UNIQUE,          -- stable key, e.g. 'french'; also the style_code prefix source
    name_zh     TEXT    NOT NULL,
    name_en     TEXT    NOT NULL,
    sort_order  INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE style (
    id              INTEGER PRIMARY KEY,
    -- Readable business number shown to staff and customers; random, so it never reveals how many styles exist.
    style_code      TEXT    NOT NULL UNIQUE,
    name            TEXT    NOT NULL,             -- display name in the store's language (zh)
    name_en         TEXT    NOT NULL DEFAULT '',
    category_id     INTEGER REFERENCES category(id) ON DELETE SET NULL,
    -- Denormalised copy of category.name_zh for list pages.
    -- Sync rule: written only by StyleRepository, in the same transaction that sets category_id, and rewritten
    -- for every style of a category in the same transaction that renames the category. Never edited by hand.
    category_name   TEXT,
    status          TEXT    NOT NULL DEFAULT 'DRAFT'
                    CHECK (status IN ('DRAFT', 'PENDING_REVIEW', 'PUBLISHED', 'REJECTED', 'OFF_SHELF')),
    -- A flag, not a state: the style has everything try-on needs (its NAIL_TEXTURE assets are present).
    is_previewable  INTEGER NOT NULL DEFAULT 0 CHECK (is_previewable IN (0, 1)),
    -- Denormalised from style_asset.is_primary for list pages.
    -- Sync rule: set only in the same transaction that marks a style_asset row is_primary = 1 (and cleared when
    -- that row stops being primary); NULL while the style has no primary asset.
    cover_asset_id  INTEGER REFERENCES style_asset(id) ON DELETE SET NULL,
    source          TEXT    NOT NULL CHECK (source IN ('MANUAL', 'AI', 'CATALOG')),
    -- Current content version; the style's current assets are the style_asset rows with this version.
    content_version INTEGER NOT NULL DEFAULT 1 CHECK (content_version >= 1),
    accent_fingers  TEXT    NOT NULL DEFAULT '',  -- comma-separated: thumb,index,middle,ring,pinky
    prompt          TEXT    NOT NULL DEFAULT '',  -- the words the style was made from (AI / catalog)
    design_json     TEXT,                         -- the parsed design, opaque to this domain
    -- Idempotency of AI creation: a retried STYLE_GENERATION task finds its style instead of making another.
    origin_task_no  TEXT,
    -- Sync (kept for the catalog sync, not yet used): the id this kiosk made (drafts are pushed with PUT /v1/drafts/{id}),
    -- the central catalog's id and version (published styles are pulled), and the draft this one was edited from.
    client_uid      TEXT    NOT NULL UNIQUE,
    remote_id       TEXT,
    remote_version  INTEGER,
    parent_style_id INTEGER REFERENCES style(id) ON DELETE SET NULL,
    deleted         INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
    created_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE UNIQUE INDEX style_origin_task_no ON style (origin_task_no) WHERE origin_task_no IS NOT NULL;
CREATE UNIQUE INDEX style_remote_id ON style (remote_id) WHERE remote_id IS NOT NULL;
-- List pages: status (+ category) newest first, deleted rows off the index.
CREATE INDEX style_list_by_category ON style (status, category_id, created_at) WHERE deleted = 0;
CREATE INDEX style_list_by_status ON style (status, created_at) WHERE deleted = 0;

CREATE TABLE style_asset (
    id            INTEGER PRIMARY KEY,
    style_id      INTEGER NOT NULL REFERENCES style(id) ON DELETE CASCADE,
    asset_type    TEXT    NOT NULL
                  CHECK (asset_type IN ('THUMBNAIL', 'COVER', 'TRY_ON_EXAMPLE', 'NAIL_TEXTURE', 'AI_DRAFT')),
    -- Which file of the style folder a NAIL_TEXTURE is: 'nail' (every finger without its own), 'accent' (the
    -- style's accent fingers), or a per-finger override: thumb, index, middle, ring, pinky.
    -- '' for other asset types.
    slot          TEXT    NOT NULL DEFAULT '',
    storage_path  TEXT    NOT NULL,               -- relative to the asset store root, content-addressed (sha256)
    file_sha256   TEXT    NOT NULL,
    file_md5      TEXT    NOT NULL,               -- dedupe key named by the design; also what OSS/S3 ETags carry
    file_size     INTEGER NOT NULL,
    width         INTEGER NOT NULL,
    height        INTEGER NOT NULL,
    format        TEXT    NOT NULL CHECK (format IN ('PNG', 'JPEG', 'WEBP')),
    is_primary    INTEGER NOT NULL DEFAULT 0 CHECK (is_primary IN (0, 1)),
    version       INTEGER NOT NULL DEFAULT 1,
    created_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    -- The same image in the same role of the same version is recorded once, whichever entry point sent it.
    UNIQUE (style_id, version, asset_type, slot, file_md5)
);

CREATE INDEX style_asset_by_style ON style_asset (style_id, version, asset_type);
CREATE INDEX style_asset_by_md5 ON style_asset (file_md5);
-- At most one primary asset per style.
CREATE UNIQUE INDEX style_asset_one_primary ON style_asset (style_id) WHERE is_primary = 1;

CREATE TABLE tag (
    id          INTEGER PRIMARY KEY,
    code        TEXT    NOT NULL UNIQUE,
    name_zh     TEXT    NOT NULL,
    name_en     TEXT    NOT NULL DEFAULT '',
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE style_tag_relation (
    style_id  INTEGER NOT NULL REFERENCES style(id) ON DELETE CASCADE,
    tag_id    INTEGER NOT NULL REFERENCES tag(id) ON DELETE CASCADE,
    PRIMARY KEY (style_id, tag_id)
) WITHOUT ROWID;

-- The other direction: styles carrying a tag.
CREATE INDEX style_tag_relation_by_tag ON style_tag_relation (tag_id, style_id);

-- Review decisions and other changes, append-only.
CREATE TABLE audit_log (
    id           INTEGER PRIMARY KEY,
    entity_type  TEXT    NOT NULL,                -- 'STYLE'
    entity_id    INTEGER NOT NULL,
    action       TEXT    NOT NULL,                -- CREATE, SUBMIT, APPROVE, REJECT, PUBLISH, OFF_SHELF, REVISE, EDIT_CONTENT, DELETE
    from_status  TEXT,
    to_status    TEXT,
    reason       TEXT,
    actor        TEXT    NOT NULL,
    detail_json  TEXT,
    created_at   TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE INDEX audit_log_by_entity ON audit_log (entity_type, entity_id, id);

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only');
END;

CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'audit_log is append-only');
END;
