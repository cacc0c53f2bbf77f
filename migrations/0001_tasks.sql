-- Task engine (ARCHITECTURE.md §7). All times are INTEGER milliseconds since the Unix epoch, UTC.
-- Anything the engine filters or sorts on is a column; JSON only carries what changes fast (payload, result).
--
-- States: PENDING → PROCESSING → SUCCESS | FAILED | CANCELED | DEAD.
-- FAILED means "the last attempt failed and a retry is scheduled at next_retry_time"; a due FAILED row is
-- claimed like a PENDING one. Terminal states: SUCCESS, CANCELED, DEAD (DEAD = dead letter); a row is
-- terminal exactly when finished_at is set (the CHECK at the end of the table holds the two together).
--
-- Indexes on the claim path are partial on `finished_at IS NULL`, a column a claim does not change, so finished
-- rows are in no index a claim reads and claiming a row rewrites only the row and the claim index. The
-- idempotency and dead-letter indexes below are keyed and partial on columns claims and completions never write,
-- so those statements never open them.

CREATE TABLE task (
    -- Assigned by SQLite on insert (one above the largest id, under the write lock): increasing, no extra index.
    -- Task rows are never deleted, so a task_no is never reused.
    -- The public id, task_no, is this number in hex ('T' || printf('%016x', id); store.task_no_from_id), so looking
    -- a task up by task_no is a primary-key lookup. It is computed where it is read, not kept as a generated
    -- column: SQLite evaluates a table's generated columns on every UPDATE of the row, which cost ~6k of a
    -- claim+complete's ~127k CPU instructions (callgrind).
    id                 INTEGER PRIMARY KEY,
    task_type          TEXT    NOT NULL,
    biz_type           TEXT,
    biz_id             TEXT,
    status             TEXT    NOT NULL DEFAULT 'PENDING',  -- one of six values: the CHECK at the end
    priority           INTEGER NOT NULL DEFAULT 0,
    scheduled_time     INTEGER NOT NULL,
    next_retry_time    INTEGER,
    -- When the row may be claimed next: scheduled_time at first, then each retry time. One column so the
    -- claim index can order by it.
    available_at       INTEGER NOT NULL,
    attempt_count      INTEGER NOT NULL DEFAULT 0,
    max_attempts       INTEGER NOT NULL CHECK (max_attempts >= 1),
    rate_limited_count INTEGER NOT NULL DEFAULT 0,
    heartbeat_at       INTEGER,
    worker_id          TEXT,
    version            INTEGER NOT NULL DEFAULT 0,
    request_payload    TEXT    NOT NULL,
    result_payload     TEXT,
    progress           REAL    NOT NULL DEFAULT 0,
    progress_note      TEXT,
    last_error_class   TEXT,
    last_error_code    TEXT,
    last_error_message TEXT,
    provider           TEXT,
    provider_task_id   TEXT,
    request_source     TEXT    NOT NULL DEFAULT 'kiosk',
    request_source_id  TEXT,
    cancel_requested   INTEGER NOT NULL DEFAULT 0,
    dead_letter_state  TEXT CHECK (dead_letter_state = 'OPEN' OR dead_letter_state = 'IGNORED'
                                   OR dead_letter_state = 'RESOLVED'),
    replay_count       INTEGER NOT NULL DEFAULT 0,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    started_at         INTEGER,
    finished_at        INTEGER,
    expires_at         INTEGER,
    -- The status is one of the six, a row is finished exactly when its status is terminal, and it has a
    -- dead_letter_state exactly while DEAD — in one CASE on status, the values a claim and a completion write
    -- first. SQLite re-evaluates on every UPDATE each CHECK that mentions a column the UPDATE writes, and both
    -- hot UPDATEs write status: as three OR chains this cost ~3k CPU instructions per claim+complete
    -- (callgrind), as one CASE about a third of that. (status is NOT NULL, so the CASE is never NULL — a NULL
    -- CHECK result would pass.)
    CHECK (CASE status
               WHEN 'PROCESSING' THEN finished_at IS NULL AND dead_letter_state IS NULL
               WHEN 'SUCCESS'    THEN finished_at IS NOT NULL AND dead_letter_state IS NULL
               WHEN 'PENDING'    THEN finished_at IS NULL AND dead_letter_state IS NULL
               WHEN 'FAILED'     THEN finished_at IS NULL AND dead_letter_state IS NULL
               WHEN 'CANCELED'   THEN finished_at IS NOT NULL AND dead_letter_state IS NULL
               WHEN 'DEAD'       THEN finished_at IS NOT NULL AND dead_letter_state IS NOT NULL
               ELSE 0 END)
);

-- The claim path (and the lease sweep): unfinished rows only, in claim order — priority, due time, age.
-- Finished rows are not in it, so they never slow a claim. It also carries request_source so the backpressure
-- check counts a source's unfinished rows from the index alone: a submit and a completion write this index
-- anyway, so the count costs no extra page, where a counter row kept by a trigger cost one more WAL frame on
-- every submit and every completion (3.2 frames per commit instead of huey's 2.1). finished_at is listed (always
-- NULL here) only so SQLite 3.40 counts from the index without reading each row.
CREATE INDEX task_active ON task (priority DESC, available_at, id, request_source, finished_at)
    WHERE finished_at IS NULL;

-- Idempotency: one unfinished task per (source, source id, type); a finished one may be requested again.
-- The rule is kept by the only two writes that can break it — the insert (store.submit: the look-up and the
-- insert in one write transaction) and a dead letter's replay (store.replay, same check in its transaction). The index lists every row with a key, finished or not, so no claim or completion ever
-- touches it; a key has one row per request (a replay reuses the row), so the lookup reads a handful at most.
CREATE INDEX task_idempotency ON task (request_source, request_source_id, task_type)
    WHERE request_source_id IS NOT NULL;

-- Dead letters by type, newest first (the rowid follows task_type in the index, so ORDER BY id DESC is free).
-- Partial on dead_letter_state (set exactly while a row is DEAD, a CHECK above), not on status, and without
-- finished_at: SQLite maintains an index on every write that changes one of its columns or its condition,
-- and every claim and completion changes status and finished_at; dead_letter_state only changes when a row
-- dies, is replayed, ignored or resolved.
CREATE INDEX task_dead ON task (task_type) WHERE dead_letter_state IS NOT NULL;

-- Business lookups ("the task that generated style X") and async-provider resumption.
CREATE INDEX task_biz ON task (biz_type, biz_id) WHERE biz_id IS NOT NULL;
CREATE INDEX task_provider_task ON task (provider_task_id) WHERE provider_task_id IS NOT NULL;

-- History: every failed attempt, expired lease, dead letter and operator action, with its code and message.
-- (A successful attempt is fully described by the task row itself.)
CREATE TABLE task_event (
    id            INTEGER PRIMARY KEY,
    task_id       INTEGER NOT NULL REFERENCES task (id) ON DELETE CASCADE,
    at            INTEGER NOT NULL,
    kind          TEXT    NOT NULL,
    attempt       INTEGER NOT NULL,
    error_class   TEXT,
    error_code    TEXT,
    error_message TEXT,
    worker_id     TEXT
);
CREATE INDEX task_event_task ON task_event (task_id, id);
