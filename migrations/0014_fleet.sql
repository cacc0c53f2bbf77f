-- Fleet health and remote fixes (issue #25 §7, §8; core/sync/fleet.py).
-- kiosk_health: what the running kiosk (the UI process) last saw of its camera and frame rate, written at most
-- every few seconds, so a sync cycle run by the CLI or the kiosk can put it in its report to HQ.
CREATE TABLE kiosk_health (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    camera_state  TEXT    NOT NULL,
    fps           REAL,
    updated_at    TEXT    NOT NULL
);

-- An HQ operator's request to this kiosk (from hello): done once per id, its outcome reported to HQ by the
-- following sync reports (the latest twenty). outcome NULL: received, not yet done.
CREATE TABLE fleet_request (
    id           TEXT    PRIMARY KEY,
    kind         TEXT    NOT NULL,
    received_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    outcome      TEXT    CHECK (outcome IS NULL OR outcome IN ('DONE', 'FAILED')),
    detail       TEXT,
    done_at      TEXT
);
