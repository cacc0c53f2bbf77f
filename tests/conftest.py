"""Shared test setup: a private data directory per test, offscreen Qt, and the real photos in ../shared/data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
NAILS_EVAL = SHARED_DATA / "nails_eval"

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MPLCONFIGDIR", str(ROOT / ".cache" / "matplotlib"))
os.environ.setdefault("NAILMIRROR_RETRY_BASE_S", "0.01")

# PySide6 6.12.0 leaks a reference to None on every void call under CPython 3.11 (see ui/shell/qt_runtime.py);
# without this a Qt test that paints or sets text a few thousand times aborts with none_dealloc.
from nailmirror_desktop.ui.shell.qt_runtime import protect_none_refcount  # noqa: E402  (no Qt import inside)

protect_none_refcount()


@pytest.fixture(autouse=True)
def nailmirror_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "nailmirror-home"
    home.mkdir()
    monkeypatch.setenv("NAILMIRROR_HOME", str(home))
    return home


@pytest.fixture(scope="session")
def nails_eval_dir() -> Path:
    if not (NAILS_EVAL / "images").is_dir():
        pytest.fail(f"the evaluation photos are missing: {NAILS_EVAL} (../shared/data must sit beside the checkout)")
    return NAILS_EVAL
