-- The live-quality watch of a switched-to nail model (issue #27 §7, core/model_releases/watch.py).
-- model_session: one row per customer session with enough frames (between two idle resets), measured on the model
-- that ran it; `release` is NULL for the bundled model. The watch compares a new release's first sessions with
-- the previous model's last sessions on this kiosk, so rows are kept per version and the oldest trimmed.
CREATE TABLE model_session (
    id INTEGER PRIMARY KEY,
    slot TEXT NOT NULL,
    version TEXT NOT NULL,
    release INTEGER,
    frames INTEGER NOT NULL CHECK (frames > 0),
    painted_per_frame REAL NOT NULL,
    blink_rate REAL NOT NULL,
    segment_ms_per_hand REAL NOT NULL,
    ended_at TEXT NOT NULL
);
CREATE INDEX model_session_by_version ON model_session (slot, version, id);
-- model_watch: the switch being watched, one per slot at most: what runs now and what ran before it (the model
-- a rollback goes back to; previous_release NULL = the bundled model). Removed when the watch passes or rolls back.
CREATE TABLE model_watch (
    slot TEXT PRIMARY KEY,
    release INTEGER NOT NULL,
    version TEXT NOT NULL,
    previous_release INTEGER,
    previous_version TEXT NOT NULL,
    switched_at TEXT NOT NULL
);
