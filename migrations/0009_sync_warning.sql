-- What the last successful sync cycle found odd but did not fail on (issue #20 §15), one line: e.g. HQ's feed
-- claiming another catalog than its snapshot gave. `sync now` prints it, `sync status` shows it; NULL when the
-- last cycle had nothing to say.
ALTER TABLE sync_state ADD COLUMN last_warning TEXT;
