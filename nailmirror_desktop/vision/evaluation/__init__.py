"""Scoring try-on against ground truth: photos.py (stills) and video.py (clips).

`nailmirror_desktop.vision.evaluation` was the photo scorer's module: its names are re-exported here."""

from nailmirror_desktop.vision.evaluation.photos import *  # noqa: F403
