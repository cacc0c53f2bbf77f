-- The name HQ shows this kiosk under (hello's kiosk_name: given at enrollment with `sync enroll --name`, or
-- `<store>-<n>` for a kiosk enrolled before names, renamable from HQ's fleet page). The sync cycle records it
-- here so staff and `sync status` see the same name the operator sees.
ALTER TABLE sync_state ADD COLUMN kiosk_name TEXT;
