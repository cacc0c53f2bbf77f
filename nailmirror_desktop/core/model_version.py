"""The nail model this kiosk runs, named for HQ (`sync status --json` `model_version`, the sync report, every
capture's record): the slot's active release's version (issue #27: core/model_releases), else the slot's bundled
segmenter's. The kiosk ships two: the live mirror's (32 × 32 inside, within a frame's budget) and the stills'
(64 × 64 inside, about 4× the time: a photo has no frame budget; issue #23 point 1).

The bundled models' sha256 live here, stdlib only, so the CLI and core name it without loading numpy; the
segmenter (vision/nails/nail_segmenter.py) checks the file against the same constant before it opens it."""

from __future__ import annotations

import sqlite3

SEGMENTER_NAME = "nail_segmenter"
SEGMENTER_SHA256 = "2ae635817291d3d9fd8b2a06e0f9b9e463dca7ee9c31586844293ba7fbab8b21"
STILL_SEGMENTER_NAME = "nail_segmenter_still"
STILL_SEGMENTER_SHA256 = "b32bff45aff8e5bc6b77d6bc869ec7d6bb83806b8887ee750ff8ad6592fad0d8"


def bundled_model_version(slot: str = "live") -> str:
    """"nail_segmenter-<first 12 hex digits of its sha256>" for the live slot, "nail_segmenter_still-…" for the
    still one: one model file, one name, on every kiosk."""
    if slot == "still":
        return f"{STILL_SEGMENTER_NAME}-{STILL_SEGMENTER_SHA256[:12]}"
    return f"{SEGMENTER_NAME}-{SEGMENTER_SHA256[:12]}"


def model_version(conn: sqlite3.Connection | None = None, slot: str = "live") -> str:
    """The model the kiosk runs now in `slot` ("live": the mirror, what the sync report names; "still": the
    photos, what a capture's record names): its active release (read straight from `model_release`, so this
    stays stdlib + sqlite, without the release package), else the bundled one. Without a connection, or on a
    database from before releases, the bundled one."""
    if conn is not None:
        try:
            row = conn.execute("SELECT version FROM model_release WHERE slot = ? AND state = 'active'",
                               (slot,)).fetchone()
        except sqlite3.OperationalError:  # no such table: a database not migrated yet
            row = None
        if row is not None:
            return str(row[0])
    return bundled_model_version(slot)


# The full-frame fallback (vision/nails/full_frame.py, models/nail_full_frame.onnx): its own file and pin, beside
# the segmenter's, checked before onnxruntime opens it.
FULL_FRAME_NAME = "nail_full_frame"
FULL_FRAME_SHA256 = "1fb8c02bfd87f99650e414bd2d698c31480dea132a6d123ef790aa8993c1f739"


def bundled_full_frame_version() -> str:
    """"nail_full_frame-<first 12 hex digits of its sha256>": the full-frame slot's bundled model."""
    return f"{FULL_FRAME_NAME}-{FULL_FRAME_SHA256[:12]}"
