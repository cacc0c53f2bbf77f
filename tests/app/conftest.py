"""tests/app: the composition root. Five of its test modules build the kiosk's Qt services (ui/bridge, ui/tryon),
so the Qt-less run (`./dev test-noqt`, no PySide6 installed) does not collect them; the full suite runs them."""

from __future__ import annotations

import importlib.util

collect_ignore = [] if importlib.util.find_spec("PySide6") else ["test_effect_preview.py", "test_kiosk.py",
                                                                   "test_open_early.py", "test_sample_render.py",
                                                                   "test_model_switch.py"]
