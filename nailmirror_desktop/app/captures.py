"""Making a consented capture on this machine (issue #26): the still path finds the hands and nails on the frozen
frame, vision/privacy/ crops, blurs faces and encodes, core/captures keeps it with its consent record, and an
enrolled kiosk queues its CAPTURE_UPLOAD at once (otherwise the next sync cycle does).

`CaptureMaker` keeps one still pipeline and one face finder between captures (loaded on the first one): the
kiosk calls `capture` on a bridge worker, `nailmirror captures take` in its own process. Nothing is kept without
a consent record: `capture(frame, None)` refuses before any pixel is looked at.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.captures import store
from nailmirror_desktop.core.captures.store import CaptureOutcome
from nailmirror_desktop.core.config import load_config
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.model_version import model_version
from nailmirror_desktop.core.paths import database_path

log = logging.getLogger(__name__)


class CaptureMaker:
    def __init__(self, *, mirrored: bool, max_hands: int = 2, db_path: Path | None = None,
                 submit_upload: Callable[[str], object] | None = None, active: Any = None) -> None:
        self.active = active  # the kiosk's ActiveSegmenters: the proposed mask is the running model's
        self.mirrored = mirrored  # the frozen frame is the mirrored one the customer saw, as for the render
        self.max_hands = max_hands
        self.db_path = db_path
        self.submit_upload = submit_upload  # queues CAPTURE_UPLOAD on the kiosk's engine (enrolled only)
        self._pipeline: Any = None
        self._finder: Any = None
        self._lock = threading.Lock()

    def capture(self, frame: Any, consent: store.Consent | None, *, camera: dict[str, Any] | None = None,
                now_s: float | None = None) -> CaptureOutcome:
        """`frame`: (H, W, 3) uint8 BGR, the still she consented to. Runs on a worker (the still path: seconds)."""
        if consent is None:
            return CaptureOutcome(None, "no_consent")
        from nailmirror_desktop.vision.privacy.capture import Refused, prepare_capture

        with self._lock:
            pipeline, finder = self._parts()
            prepared = prepare_capture(frame, pipeline.process_still(frame, want_coverage=False), finder,
                                       camera=camera)
        if isinstance(prepared, Refused):
            log.info("capture not kept: %s", prepared.reason)
            return CaptureOutcome(None, prepared.reason)
        conn = open_database(self.db_path or database_path())
        try:
            # The masks were proposed by the still path: the record names the model that ran there.
            kept = store.save(conn, prepared.png, consent, prepared.facts, model_version(conn, "still"),
                              time.time() if now_s is None else now_s, load_config().capture_quota_mb * 1024 * 1024)
            enrolled = conn.execute("SELECT 1 FROM sync_state WHERE id = 1").fetchone() is not None
            store.collect_orphans(conn, time.time())  # files a crash left between the file and its row
        finally:
            conn.close()
        if enrolled and self.submit_upload is not None:
            try:
                self.submit_upload(kept.code)
            except Exception as exc:  # noqa: BLE001 — the next sync cycle queues it anyway
                log.warning("capture %s kept; its upload waits for the next sync: %s", kept.code, exc)
        return CaptureOutcome(kept.code, None, prepared.faces_blurred)

    def close(self) -> None:
        with self._lock:
            if self._pipeline is not None:
                self._pipeline.close()
                self._pipeline = None

    def _parts(self) -> tuple[Any, Any]:
        if self._pipeline is None:
            from nailmirror_desktop.vision.paint.compositor import Compositor
            from nailmirror_desktop.vision.pipeline import TryOnPipeline
            from nailmirror_desktop.vision.privacy.faces import FaceFinder

            self._finder = FaceFinder()  # first: a missing detector refuses before the models load
            self._pipeline = TryOnPipeline(Compositor(), mirrored=self.mirrored, max_hands=self.max_hands,
                                           active=self.active)
        return self._pipeline, self._finder


def customer_consent(now_s: float | None = None) -> store.Consent:
    """The record of a customer's tap on "help us improve the mirror" (the sentence of CONSENT_TEXT_VERSION)."""
    return store.Consent("customer", store.utc_text(time.time() if now_s is None else now_s))


def capture_snapshot(maker: CaptureMaker, before: Path, consent: store.Consent | None) -> CaptureOutcome:
    """The kiosk's consent tap: the saved snapshot's unpainted frame (`before`), captured. On a worker."""
    from nailmirror_desktop.vision.sources.image_io import read_image

    if consent is None:
        return CaptureOutcome(None, "no_consent")
    return maker.capture(read_image(before), consent, camera={"source": "snapshot", "mirrored": maker.mirrored})


def staff_consent_in_own_connection(record: bool = False) -> store.Consent | None:
    """Staff's consent to captures of their own hands (None: not given); `record` gives it now (once is enough)."""
    conn = open_database(database_path())
    try:
        return store.record_staff_consent(conn, time.time()) if record else store.staff_consent(conn)
    finally:
        conn.close()


def delete_capture_in_own_connection(code: str) -> bool:
    conn = open_database(database_path())
    try:
        return store.delete(conn, code)
    finally:
        conn.close()


def withdraw_in_own_connection(code_text: str) -> tuple[str, bool]:
    """Staff typed a customer's code: (code, whether this kiosk held it); ValueError for text that is no code."""
    conn = open_database(database_path())
    try:
        return store.withdraw(conn, code_text, time.time())
    finally:
        conn.close()
