"""HTTP to HQ for the kiosk's sync (core/sync's HqPort): client.py the JSON routes, blobs.py blob GETs with
Range resume."""
