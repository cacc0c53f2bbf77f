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
