"""Where the kiosk keeps its files.

The data directory holds the database, the asset store, logs and snapshots. `NAILMIRROR_HOME` overrides it so
tests and tools never touch a real kiosk's data. Bundled read-only files (models, resources, migrations) are
found next to the package in a source checkout and under `sys._MEIPASS` in a PyInstaller build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HOME_ENV = "NAILMIRROR_HOME"


def bundle_root() -> Path:
    """The folder that holds `models/`, `resources/` and `migrations/` (read-only at run time)."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        return Path(frozen_root)
    return Path(__file__).resolve().parents[2]


def data_dir() -> Path:
    """The writable data directory, created on first use."""
    override = os.environ.get(HOME_ENV)
    if override:
        root = Path(override)
    elif sys.platform == "win32":
        root = Path(os.environ.get("LOCALAPPDATA", Path.home())) / "NailMirror"
    else:
        root = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "nailmirror"
    root.mkdir(parents=True, exist_ok=True)
    return root


def models_dir() -> Path:
    return bundle_root() / "models"


def resources_dir() -> Path:
    return bundle_root() / "resources"


def migrations_dir() -> Path:
    return bundle_root() / "migrations"


def database_path() -> Path:
    return data_dir() / "nailmirror.db"
