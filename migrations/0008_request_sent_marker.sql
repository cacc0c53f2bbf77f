-- A paid provider request is about to leave the machine (issue 20.4): the time, ms UTC, committed before the
-- request is sent and cleared with the attempt's outcome (or an operator's replay). An attempt that finds it set
-- was cut short by a crash after it may have sent: it polls the provider task when there is an id, and otherwise
-- ends DEAD with OUTCOME_UNKNOWN (refunded; sent again only by a person's replay). Never a second billed request.
ALTER TABLE task ADD COLUMN request_sent_at INTEGER;

-- The first start after the upgrade: a paid generation that was running, or was recovered from an expired lease
-- and waits for its next attempt, may have sent its request under the old build. It counts as sent.
UPDATE task SET request_sent_at = updated_at
WHERE task_type = 'STYLE_GENERATION' AND coalesce(provider, 'offline') != 'offline' AND finished_at IS NULL
  AND (status = 'PROCESSING' OR last_error_code = 'LEASE_EXPIRED');
