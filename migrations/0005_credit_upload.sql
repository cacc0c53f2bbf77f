-- Ledger entries go up to HQ (issue 14; core/credits/upload.py). Each entry gets a random id of its own
-- (`upload_id`, 32 hex) that HQ keys it by: the local `id` is only unique in this database, and a kiosk restored
-- from an old disk image would reuse it for different entries (HQ would answer 409 for ever). A trigger gives
-- every new entry its id in the insert's own transaction, so ledger.py's writes need not know about uploads.
-- `uploaded_at` (ms, UTC) is set once HQ has stored the entry; only settled entries (CONFIRMED, REFUNDED) go up,
-- because a settled entry never changes again, which is what makes the upload idempotent by id.

ALTER TABLE credit_entry ADD COLUMN upload_id TEXT;
ALTER TABLE credit_entry ADD COLUMN uploaded_at INTEGER;

UPDATE credit_entry SET upload_id = lower(hex(randomblob(16))) WHERE upload_id IS NULL;

CREATE UNIQUE INDEX credit_entry_upload_id ON credit_entry (upload_id);
-- What is still to upload: settled, not uploaded. Small (HQ takes it every cycle), read in id order.
CREATE INDEX credit_entry_to_upload ON credit_entry (id) WHERE uploaded_at IS NULL AND status <> 'PENDING';

CREATE TRIGGER credit_entry_upload_id AFTER INSERT ON credit_entry WHEN NEW.upload_id IS NULL
BEGIN
    UPDATE credit_entry SET upload_id = lower(hex(randomblob(16))) WHERE id = NEW.id;
END;
