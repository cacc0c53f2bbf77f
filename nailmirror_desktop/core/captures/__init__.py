"""Consented nail captures on the kiosk (issue #26, ARCHITECTURE.md §3, §16, §19).

A capture is a copy of a still, made only at the consent tap (a customer after her snapshot, or staff for their
own hands once they consented), cropped to the hands with faces blurred (vision/privacy/), kept with its consent
record in `capture` (migration 0015) and sent to HQ by a CAPTURE_UPLOAD task; deleted here once HQ holds it.
`store.py` keeps the rows and files (and the disk quota), `upload.py` is the task and the withdrawals' way up.
"""
