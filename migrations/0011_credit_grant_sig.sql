-- HQ's signature of a grant (issue 25 §1): kept with the GRANT entry the credits.grant event made, and sent back
-- with its upload, so that an HQ restored from a backup that lost the grant can prove it issued it. NULL for
-- staff's local grants and for HQ grants received before HQ signed them.
ALTER TABLE credit_entry ADD COLUMN grant_sig TEXT;
