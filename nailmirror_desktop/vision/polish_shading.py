"""Moved to `nailmirror_desktop.vision.paint.polish_shading`; the old path stays importable for scripts outside the
repository, as the same module object (private names and monkeypatching included)."""

import sys

from nailmirror_desktop.vision.paint import polish_shading as _moved

sys.modules[__name__] = _moved
