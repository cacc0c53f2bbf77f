-- A ledger entry HQ refused (409 ledger_entry_conflict: HQ holds a different body under its id, or a body it
-- can never take) is parked (issue 14; core/sync/ledger.py): `upload_error` keeps HQ's one-line answer, and the
-- entry is no longer offered for upload. Sending the same body again could only get the same refusal, and a
-- blind resend loop would hide a real accounting conflict; `sync status` shows the count and the error.

ALTER TABLE credit_entry ADD COLUMN upload_error TEXT;
