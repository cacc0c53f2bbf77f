"""Nail quads shared by the warp and compositor tests: (4, 2) frame pixels in NailQuad's corner order (the texture's
top-left, top-right, bottom-right, bottom-left; top is the free edge)."""

from __future__ import annotations

import numpy as np

TILTED = np.array([[300, 200], [350, 210], [342, 290], [290, 282]], np.float32)
PARALLELOGRAM = np.array([[300.3, 200.6], [341.1, 214.2], [321.7, 272.4], [280.9, 258.8]], np.float32)
