"""Wires the style domain to this machine: the database, the asset store with the Pillow image probe, and the
starter catalog loaded on first start. The kiosk, the CLI and the generation flow open styles through here.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from nailmirror_desktop.adapters.pillow_probe import PillowImageProbe
from nailmirror_desktop.core.catalog import codes
from nailmirror_desktop.core.catalog.assets import AssetStore
from nailmirror_desktop.core.catalog.repository import StyleRepository
from nailmirror_desktop.core.catalog.starter import CATALOG_FILE, default_catalog_folder, load_starter_catalog
from nailmirror_desktop.core.catalog.try_on_assets import export_style_folder
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.paths import database_path


def open_style_repository(conn: sqlite3.Connection | None = None, *, load_catalog: bool = True,
                          catalog_folder: Path | None = None) -> StyleRepository:
    """A repository over the kiosk's database and asset store; imports the starter catalog if not done yet."""
    conn = conn or open_database(database_path())
    repo = StyleRepository(conn, AssetStore(PillowImageProbe()))
    folder = catalog_folder or default_catalog_folder()
    if load_catalog and (folder / CATALOG_FILE).is_file():
        load_starter_catalog(repo, folder)
    return repo


def resolve_style_argument(value: str, repo: StyleRepository | None = None) -> Path:
    """`--style` for try-on: an existing style folder as given, else a style code exported to a style folder.

    Raises StyleNotFound / StyleError(NO_NAIL_TEXTURE) for a code that cannot be tried on.
    """
    path = Path(value)
    if path.is_dir() or not codes.is_style_code(value):
        return path
    repo = repo or open_style_repository()
    return export_style_folder(repo, value.strip().upper())
