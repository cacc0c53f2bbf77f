"""nailmirror_protocol imports only the stdlib and itself: the kiosk imports it, and the kiosk gains no dependency."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "nailmirror_protocol"


def test_the_protocol_package_imports_only_the_stdlib() -> None:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "nailmirror_protocol":
                    found[f"{path.name}: {name}"] = top
    assert found == {}
    assert len(list(PACKAGE.rglob("*.py"))) >= 5
