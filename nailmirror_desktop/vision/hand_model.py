"""Moved to `nailmirror_desktop.vision.tracking.hand_model`; the old path stays importable for scripts outside the
repository, as the same module object (private names and monkeypatching included)."""

import sys

from nailmirror_desktop.vision.tracking import hand_model as _moved

sys.modules[__name__] = _moved
