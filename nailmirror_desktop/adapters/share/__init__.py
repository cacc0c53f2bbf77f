"""Take a snapshot home without a cloud (issue #13, point 6): the kiosk itself serves one photo, for a few minutes,
until the customer leaves (issue #20, point 9).

- `offers.py`: offers (token → file), their expiry, three whole deliveries one transfer at a time, and the
  per-client rate limit; no I/O.
- `server.py`: `ShareServer`, answering `/s/<token>` on the address the link advertises.
- `share_image.py`: the picture the phone gets: the painted hands close up, before and after, the style's words.
- `http_loop.py`: the bounded HTTP/1.1 loop under it: one thread, at most 8 connections per address and 64 in
  all, header and idle timeouts (issue #20, point 8).
- `network.py`: the address a phone on the store network would use to reach this kiosk.

Off by default (`KioskConfig.share_to_phone`): nothing leaves the kiosk unless the store turns it on.
"""
