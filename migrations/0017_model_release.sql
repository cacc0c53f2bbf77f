-- Signed nail-model releases HQ offered this kiosk (issue #27 §5, §7): one row per (slot, release), release being
-- the feed version of the "model" change. `manifest` is the signed manifest as JSON text; `path` the verified file
-- under data_dir()/models once downloaded. core/model_releases/store.py is the only writer. States are
-- nailmirror_protocol.shapes.MODEL_SLOT_STATES ("bundled": offered for a slot this kiosk does not run). Times are
-- UTC ISO 8601 text.
CREATE TABLE model_release (
    slot TEXT NOT NULL CHECK (slot IN ('live', 'still', 'full_frame')),
    release INTEGER NOT NULL,
    version TEXT NOT NULL,
    sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
    size INTEGER NOT NULL CHECK (size > 0),
    manifest TEXT NOT NULL,
    path TEXT,
    state TEXT NOT NULL CHECK (state IN ('bundled', 'downloading', 'verified', 'active', 'rolled_back', 'refused')),
    detail TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL,
    PRIMARY KEY (slot, release)
);
-- At most one active release a slot: the schema says so, not only the code.
CREATE UNIQUE INDEX model_release_one_active ON model_release (slot) WHERE state = 'active';
-- HQ's public keys this kiosk pinned: the first from enrollment (or the first authenticated hello of a kiosk
-- enrolled before releases), then each reached through a rotation signed by the key before it. Exactly one is
-- `current` once any is pinned; older ones are kept so the chain can be shown.
CREATE TABLE hq_key (
    key_id TEXT PRIMARY KEY CHECK (length(key_id) = 16),
    alg TEXT NOT NULL,
    key TEXT NOT NULL,
    pinned_at TEXT NOT NULL,
    current INTEGER NOT NULL DEFAULT 0 CHECK (current IN (0, 1))
);
CREATE UNIQUE INDEX hq_key_one_current ON hq_key (current) WHERE current = 1;
-- Whether this kiosk can verify releases now (MODEL_SIGNING_STATES): "no_key" until a key is pinned,
-- "key_mismatch" while HQ's hello names a key no signed rotation leads to. Kept for the report and `sync status`.
CREATE TABLE model_signing (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    state TEXT NOT NULL CHECK (state IN ('ok', 'no_key', 'key_mismatch')),
    detail TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL
);
