"""The nail model switcher as the kiosk runs it (issue #27 §7): core's ModelSwitcher over the GUI thread's
connection, vision's release loader, and one holder (ActiveSegmenters) shared by the live, snapshot and capture
pipelines, so installing a release is one assignment that each of them sees from its next frame or photo."""

from __future__ import annotations

import sqlite3

from nailmirror_desktop.core.model_releases.switch import LIVE, ModelSwitcher, RunInBackground
from nailmirror_desktop.core.model_releases.watch import MIN_FRAMES
from nailmirror_desktop.core.model_version import bundled_model_version
from nailmirror_desktop.vision.nails.active_models import ActiveSegmenters
from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter
from nailmirror_desktop.vision.nails.release_model import ReleaseLoader


def build_model_switcher(conn: sqlite3.Connection, active: ActiveSegmenters,
                         run_in_background: RunInBackground, *, min_frames: int = MIN_FRAMES) -> ModelSwitcher:
    def install(model: object | None) -> None:
        active.live = model if isinstance(model, NailSegmenter) else None  # None: the bundled model again

    return ModelSwitcher(conn, ReleaseLoader(), install, run_in_background, bundled_version=bundled_model_version(),
                         slot=LIVE, min_frames=min_frames)
