"""Captures and withdrawals on their way to HQ (ARCHITECTURE.md §16).

CAPTURE_UPLOAD is a task type of the kiosk's engine, one task per capture keyed by its code, queued by every
sync cycle for the captures still here (and at the consent tap when the kiosk is enrolled): it PUTs the capture,
and deletes the kiosk's copy once HQ answers that it holds it. A code withdrawn meanwhile (HQ answers 410
capture_withdrawn) is deleted too. Offline it fails TRANSIENT and the engine retries with backoff; the capture
waits (bounded by the quota, store.apply_quota). Withdrawals go up inside the cycle (`send_withdrawals`).
"""

from __future__ import annotations

import base64
import logging
import sqlite3
from typing import Any

from nailmirror_desktop.core.captures import store
from nailmirror_desktop.core.sync.errors import Fault, SyncError
from nailmirror_desktop.core.sync.port import HqPort
from nailmirror_protocol import paths
from nailmirror_protocol.shapes import CaptureUpload

log = logging.getLogger(__name__)

CAPTURE_UPLOAD = "CAPTURE_UPLOAD"
WITHDRAWN = "capture_withdrawn"


def body_for(capture: store.Capture, image: bytes) -> CaptureUpload:
    return {"nm": 1, "code": capture.code, "image_png_b64": base64.b64encode(image).decode("ascii"),
            "image_sha256": capture.image_sha256, "taken_at": capture.taken_at,
            "consent": {"by": capture.consent.by, "at": capture.consent.at,
                        "text_version": capture.consent.text_version},
            "model_version": capture.model_version, "facts": capture.facts}


def upload(conn: sqlite3.Connection, port: HqPort, code: str) -> dict[str, Any]:
    """Send one capture; on HQ's receipt (or its 410 for a withdrawn code) delete it here. Raises SyncError for
    the engine to retry (offline) or give up (a conflict: the row stays, with its error, for staff to see)."""
    capture = store.get(conn, code)
    if capture is None:
        return {"code": code, "uploaded": False}
    try:
        receipt = port.put_capture(code, body_for(capture, store.read_image(capture)))
    except SyncError as exc:
        if exc.code == WITHDRAWN:
            store.delete(conn, code)
            log.info("capture %s was withdrawn at HQ; deleted here", paths.show_capture_code(code))
            return {"code": code, "uploaded": False, "withdrawn": True}
        store.note_error(conn, code, exc.one_line())
        raise
    if not receipt["held"]:
        raise SyncError(Fault.INVALID, "capture_not_held", "HQ did not confirm it holds the capture")
    store.delete(conn, code)  # HQ holds it: the kiosk's copy goes
    return {"code": code, "uploaded": True}


def send_withdrawals(conn: sqlite3.Connection, port: HqPort, now_s: float) -> int:
    """The withdrawals staff typed in, to HQ; each marked sent once HQ recorded it. A revoked token or a needed
    upgrade stops the cycle; any other fault leaves the rest for the next cycle. How many went."""
    sent = 0
    for code in store.pending_withdrawals(conn):
        try:
            port.withdraw_capture(code)
        except SyncError as exc:
            if exc.fault in (Fault.REVOKED, Fault.UPGRADE_REQUIRED):
                raise
            log.info("capture withdrawal %s postponed: %s", paths.show_capture_code(code), exc.one_line())
            break
        store.mark_withdrawal_sent(conn, code, now_s)
        sent += 1
    return sent
