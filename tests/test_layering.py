"""The layering rules, checked by reading every module's imports (napari's import-linter contract, by hand)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "nailmirror_desktop"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def modules_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def offenders(paths: list[Path], forbidden: str) -> list[str]:
    found = []
    for path in paths:
        for name in imported_modules(path):
            if name == forbidden or name.startswith(forbidden + "."):
                found.append(f"{path.name} imports {name}")
    return found


def test_only_ui_imports_pyside6():
    """A quick smoke check of import-linter's "Qt only in ui" contract: app (the composition root) and cli reach
    Qt only through ui modules, never by importing PySide6 themselves."""
    outside_ui = [p for p in modules_under(PACKAGE) if p.relative_to(PACKAGE).parts[0] != "ui"]
    assert any(p.relative_to(PACKAGE).parts[0] == "app" for p in outside_ui), "app must count as outside ui"
    assert offenders(outside_ui, "PySide6") == []
    assert offenders(outside_ui, "shiboken6") == []


def test_core_imports_no_cv2_and_no_qt():
    core = modules_under(PACKAGE / "core")
    assert core
    assert offenders(core, "cv2") == []
    assert offenders(core, "PySide6") == []


def test_the_check_sees_a_violation(tmp_path):
    """The walker itself must catch an import hidden in a function (a check that cannot fail proves nothing)."""
    module = tmp_path / "sneaky.py"
    module.write_text("def f():\n    from PySide6.QtCore import QTimer\n    import cv2.dnn\n")
    assert offenders([module], "PySide6") and offenders([module], "cv2")


def test_the_cli_services_are_built_without_qt(tmp_path):
    """app.services is the composition root's Qt-free half: the CLI gets its engine (handler registered) and its
    style repository without loading Qt; a read-only task engine loads no numpy either."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from nailmirror_desktop.app.services import open_repository, open_task_engine\n"
        "with open_task_engine(generation=False) as engine:\n"
        "    assert 'numpy' not in sys.modules and 'PIL' not in sys.modules, 'a read-only engine loads no numpy'\n"
        "with open_task_engine() as engine:\n"
        "    assert engine.worker_slots() >= 1\n"
        "open_repository().conn.close()\n"
        "assert not [m for m in sys.modules if m.startswith(('PySide6', 'shiboken6'))], 'Qt was loaded'\n"
    )
    env = {"NAILMIRROR_HOME": str(tmp_path), "PYTHONPATH": str(PACKAGE.parent), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
