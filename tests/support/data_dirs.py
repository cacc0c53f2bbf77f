"""A kiosk data directory with the starter catalog loaded, built once per test session and copied into a test's
own (empty) data directory. Loading the catalog writes every style's images into the asset store: seconds on a
loaded 2-core machine, which dozens of kiosk tests used to spend in their set-up. The copy is what the kiosk's
first start leaves behind (the database and assets/); the kiosk then finds the catalog loaded, as on any later
start. Tests of the first start itself (the import, its progress) keep an empty data directory."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from unittest import mock

from nailmirror_desktop.core.paths import HOME_ENV

_template: Path | None = None


def starter_template() -> Path:
    """The session's data directory with the starter catalog loaded (built on first use, deleted at exit)."""
    global _template
    if _template is None:
        from nailmirror_desktop.app.services import load_starter_catalog_in_own_connection

        root = Path(tempfile.mkdtemp(prefix="nm-starter-home-"))
        atexit.register(shutil.rmtree, root, True)
        with mock.patch.dict(os.environ, {HOME_ENV: str(root)}):
            load_starter_catalog_in_own_connection()
        _template = root
    return _template


def copy_starter_data(home: Path) -> Path:
    """Give `home`, a data directory without a database yet, the starter catalog's database and assets."""
    template = starter_template()
    home.mkdir(parents=True, exist_ok=True)
    for item in template.iterdir():
        target = home / item.name
        assert not target.exists(), f"{target} exists: copy the starter data into a fresh data directory only"
        if item.is_dir():
            shutil.copytree(item, target)
        else:
            shutil.copy2(item, target)
    return home
