"""MediaPipe's Tasks API without `mediapipe/__init__.py` (cold start, issue #13 point 10).

`import mediapipe` runs the package's `__init__`, which imports the legacy `mediapipe.python.solutions`, whose
`drawing_utils` imports `matplotlib.pyplot`: 0.2-0.4 s of imports (and a font cache built on a kiosk's first
start) before the hand model can load, for plotting code the kiosk never calls, and ~24 MB of matplotlib in the
store bundle. The kiosk needs only `mediapipe.tasks.python` (the HandLandmarker) and the Image type, which do not
import solutions. So, when nothing imported mediapipe yet, the package is registered from its import spec
*without running its `__init__`*; its submodules then import as usual. No mediapipe file is changed.

The registered package answers what its `__init__` would have exported on first use (PEP 562 `__getattr__`):
`mediapipe.solutions`, `mediapipe.tasks`, `mediapipe.Image` … still work for any other code in the process
(they import matplotlib then, as before).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType


class _MediapipePackage(ModuleType):
    """The package as its __init__ leaves it: `mediapipe.tasks` is `mediapipe.tasks.python` there (the import
    system binds the plain `mediapipe.tasks` package on the attribute when a submodule loads; ignored here)."""

    @property
    def tasks(self) -> ModuleType:
        return importlib.import_module("mediapipe.tasks.python")

    @tasks.setter
    def tasks(self, _module: ModuleType) -> None:
        pass


def _package_getattr(name: str) -> object:
    if name == "solutions":
        return importlib.import_module("mediapipe.python.solutions")
    if name == "__version__":
        from importlib.metadata import version

        return version("mediapipe")
    python = importlib.import_module("mediapipe.python")
    try:
        return getattr(python, name)
    except AttributeError:
        raise AttributeError(f"module 'mediapipe' has no attribute {name!r}") from None


def register_package() -> None:
    """Put the mediapipe package in sys.modules without executing its __init__ (no-op once it is imported)."""
    if "mediapipe" in sys.modules:
        return
    spec = importlib.util.find_spec("mediapipe")
    if spec is None or spec.submodule_search_locations is None:
        raise ModuleNotFoundError("No module named 'mediapipe'", name="mediapipe")
    package = importlib.util.module_from_spec(spec)  # __path__, __spec__, __file__ set; __init__ not run
    package.__class__ = _MediapipePackage
    package.__dict__["__getattr__"] = _package_getattr  # PEP 562: the names __init__ binds, on first use
    sys.modules["mediapipe"] = package


def tasks() -> ModuleType:
    """`mediapipe.tasks.python` (BaseOptions, vision.HandLandmarker …), without matplotlib."""
    register_package()
    return importlib.import_module("mediapipe.tasks.python")


def framework_image() -> ModuleType:
    """The module with mediapipe's `Image` and `ImageFormat` (what `mp.Image` / `mp.ImageFormat` are)."""
    register_package()
    return importlib.import_module("mediapipe.python")
