"""The nail model switcher as the kiosk runs it (issue #27 §7): core's ModelSwitcher over the GUI thread's
connection, vision's release loader, and one holder (ActiveSegmenters) shared by the live, snapshot and capture
pipelines, so installing a release is one assignment that each of them sees from its next frame or photo."""

from __future__ import annotations

import sqlite3

from nailmirror_desktop.core.model_releases.switch import LIVE, STILL, ModelSwitcher, RunInBackground
from nailmirror_desktop.core.model_releases.watch import MIN_FRAMES
from nailmirror_desktop.core.model_version import bundled_model_version
from nailmirror_desktop.vision.nails.active_models import ActiveSegmenters
from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter
from nailmirror_desktop.vision.nails.release_model import ReleaseLoader


def build_model_switcher(conn: sqlite3.Connection, active: ActiveSegmenters,
                         run_in_background: RunInBackground, *, min_frames: int = MIN_FRAMES,
                         slot: str = LIVE, live: ModelSwitcher | None = None) -> ModelSwitcher:
    """The live slot's switcher (watched), or the still slot's (not: a photo has no live measure; it switches when
    `live`'s tally says nobody has been at the mirror since the last idle reset)."""
    def install(model: object | None) -> None:
        segmenter = model if isinstance(model, NailSegmenter) else None  # None: the bundled model again
        if slot == STILL:
            active.still = segmenter
        else:
            active.live = segmenter

    return ModelSwitcher(conn, ReleaseLoader(), install, run_in_background, bundled_version=bundled_model_version(slot),
                         slot=slot, min_frames=min_frames, watched=slot == LIVE,
                         customer_present=None if live is None else (lambda: live.tally.frames() > 0))
