"""The store build: PyInstaller onedir from build.spec, then the smoke test of the built program with no
Python environment (tools/build_store.sh does both: ~1-2 min and ~422 MB under dist/, which is gitignored; the
smoke test paints the demo hands and types pinyin on the on-screen keyboard)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.qt, pytest.mark.build]  # the frozen program is the Qt kiosk


def test_store_build_runs_without_python(tmp_path):
    pyinstaller = Path(sys.executable).parent / "pyinstaller"  # the one in the environment running the tests
    if not pyinstaller.is_file():
        pytest.fail(f"pyinstaller is missing beside {sys.executable} (requirements/dev.txt)")
    completed = subprocess.run([str(ROOT / "tools" / "build_store.sh")], cwd=ROOT, capture_output=True, text=True,
                               timeout=900, env={**os.environ, "PYINSTALLER": str(pyinstaller)})
    assert completed.returncode == 0, completed.stderr[-4000:]
    assert "smoke test passed" in completed.stdout
    assert '"frozen": true' in completed.stdout
    assert '"typed": "\\u4f60"' in completed.stdout  # the keyboard opened in the bundle and pinyin composed
