-- The store's time zone as HQ records it (an IANA name such as 'Asia/Shanghai'), for an enrolled kiosk: the
-- settings page shows it and does not let staff change it here. HQ does not send one yet, so it stays NULL
-- and staff choose the zone on the kiosk; when HQ's hello carries it, the sync cycle writes it here
-- (core/sync/state.py save_store_time_zone).
ALTER TABLE sync_state ADD COLUMN store_time_zone TEXT;
