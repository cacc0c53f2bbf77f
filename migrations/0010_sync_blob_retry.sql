-- Failed downloads come back (issue #20 §14). A blob whose fetch failed for good (a wrong hash twice, a 404, an
-- answer past its declared size) is FAILED until `retry_at` (epoch seconds, the engine's clock); the cycle after
-- that queues it again, the wait doubling with each failed round up to a day. A new version of a style naming it
-- brings it back at once, as does `sync now`. `attempts` counts its failed fetches (sync status, the report to
-- HQ). Blobs FAILED before this migration have no retry_at: the next cycle tries them again.
ALTER TABLE sync_blob ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sync_blob ADD COLUMN retry_at REAL;
-- sha256 of the last sync report sent to HQ (PUT /v1/kiosks/me/sync-report): sent again only when it changes.
ALTER TABLE sync_state ADD COLUMN report_sha256 TEXT;
