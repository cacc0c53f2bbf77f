"""Moved to `nailmirror_desktop.vision.tracking.smoothing`; the old path stays importable for scripts outside the
repository, as the same module object (private names and monkeypatching included)."""

import sys

from nailmirror_desktop.vision.tracking import smoothing as _moved

sys.modules[__name__] = _moved
