"""The nail model this kiosk runs, named for HQ (`sync status --json` `model_version`, the sync report, every
capture's record): the bundled segmenter's version until a release replaces it (issue #26 part 2).

The bundled model's sha256 lives here, stdlib only, so the CLI and core name it without loading numpy; the
segmenter (vision/nails/nail_segmenter.py) checks the file against the same constant before it opens it."""

from __future__ import annotations

SEGMENTER_NAME = "nail_segmenter"
SEGMENTER_SHA256 = "2ae635817291d3d9fd8b2a06e0f9b9e463dca7ee9c31586844293ba7fbab8b21"


def bundled_model_version() -> str:
    """"nail_segmenter-<first 12 hex digits of its sha256>": one model file, one name, on every kiosk."""
    return f"{SEGMENTER_NAME}-{SEGMENTER_SHA256[:12]}"


def model_version() -> str:
    """The model the kiosk runs now: the bundled one (no release mechanism replaces it yet)."""
    return bundled_model_version()
