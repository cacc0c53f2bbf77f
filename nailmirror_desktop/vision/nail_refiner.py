"""Moved to `nailmirror_desktop.vision.nails.nail_refiner`; the old path stays importable for scripts outside the
repository, as the same module object (private names and monkeypatching included)."""

import sys

from nailmirror_desktop.vision.nails import nail_refiner as _moved

sys.modules[__name__] = _moved
