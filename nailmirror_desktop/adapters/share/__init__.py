"""Take a snapshot home without a cloud (issue #13, point 6): the kiosk itself serves one photo, once.

- `offers.py`: one-time offers (token → file), their expiry, and the per-client rate limit; no I/O.
- `server.py`: `ShareServer`, a stdlib HTTP server on a worker thread answering `/s/<token>`.
- `network.py`: the address a phone on the store network would use to reach this kiosk.

Off by default (`KioskConfig.share_to_phone`): nothing leaves the kiosk unless the store turns it on.
"""
