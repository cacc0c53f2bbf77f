"""The store build: PyInstaller onedir from build.spec, then the smoke test of the built program with no
Python environment (tools/build_store.sh does both; ~1 min and ~450 MB under dist/, which is gitignored)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.ui_support import ROOT

pytestmark = pytest.mark.slow


def test_store_build_runs_without_python(tmp_path):
    if shutil.which("pyinstaller", path=str(ROOT / ".venv" / "bin")) is None:
        pytest.fail("pyinstaller is missing from .venv (requirements/dev.txt)")
    completed = subprocess.run([str(ROOT / "tools" / "build_store.sh")], cwd=ROOT, capture_output=True, text=True,
                               timeout=900)
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert "smoke test passed" in completed.stdout
    assert '"frozen": true' in completed.stdout
