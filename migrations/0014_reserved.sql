-- A placeholder: migration 0014 belongs to another branch merged beside this one (the kiosk's migrations must be
-- numbered without gaps). The lead drops this file when that branch's 0014 arrives.
SELECT 1;
