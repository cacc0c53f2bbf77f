"""The Qt-less import smoke (`./dev smoke-noqt`, a CI step), run in .venv-noqt/ where PySide6 is not installed.

It imports every module of ours outside nailmirror_desktop.ui, except the one that starts the Qt application
(QT_ENTRY_POINTS: the composition root's kiosk), runs `--help` of every
command line's commands, and checks that `nailmirror kiosk` says in one line that the Qt binding is missing.
Together with the import contracts (`lint-imports`: no Qt outside ui) this proves in seconds what running the
whole suite without Qt used to prove in about 14 minutes: nothing outside ui/ needs Qt.

    python tools/noqt_smoke.py        exit 0, or 1 with one line per failure
"""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("nailmirror_protocol", "nailmirror_desktop", "nailmirror_hq")
QT_ONLY = ("nailmirror_desktop.ui",)
# Outside ui/ but there to start Qt: it imports ui at the top (the layers contract allows it), and is loaded only
# by `nailmirror kiosk` after its check for the Qt binding.
QT_ENTRY_POINTS = frozenset({"nailmirror_desktop.app.kiosk"})


def our_modules() -> list[str]:
    """Every module's dotted name, from the files (walking the packages would import them, ui/ too)."""
    names = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    # __main__ runs the command line; HQ's migration scripts run only inside alembic
    return sorted(n for n in names if not n.startswith(QT_ONLY) and n not in QT_ENTRY_POINTS
                  and not n.endswith("__main__") and not n.startswith("nailmirror_hq.migrations."))


def import_failures() -> list[str]:
    failures = []
    for name in our_modules():
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - every failure is reported, not just the first
            failures.append(f"import {name}: {type(exc).__name__}: {exc}")
    return failures


def command_failures() -> list[str]:
    failures = []
    checks: list[tuple[list[str], int, str]] = [
        (["-m", "nailmirror_desktop", "--help"], 0, "usage"),
        (["-m", "nailmirror_hq", "--help"], 0, "usage"),
    ]
    from nailmirror_desktop.cli import build_parser

    commands = [c for c in _subcommands(build_parser()) if c != "kiosk"]
    checks += [(["-m", "nailmirror_desktop", c, "--help"], 0, "usage") for c in commands]
    checks.append((["-m", "nailmirror_desktop", "kiosk", "--demo", "--quit-after", "1"], 2,
                   "Qt binding is not installed"))
    for args, status, says in checks:
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120, cwd=ROOT,
                              env=_offscreen())
        if done.returncode != status or says not in done.stdout + done.stderr:
            failures.append(f"{' '.join(args[1:])}: exit {done.returncode}, {(done.stderr or done.stdout)[-300:]!r}")
    return failures


def _subcommands(parser: object) -> list[str]:
    import argparse

    assert isinstance(parser, argparse.ArgumentParser)
    for action in parser._actions:  # argparse keeps its subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            return sorted(action.choices)
    return []


def _offscreen() -> dict[str, str]:
    import os

    return {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}


def main() -> int:
    if importlib.util.find_spec("PySide6") is not None:
        print("noqt_smoke: PySide6 is installed here; run it in .venv-noqt/ (./dev smoke-noqt)", file=sys.stderr)
        return 2
    failures = import_failures() + command_failures()
    for line in failures:
        print(f"noqt_smoke: {line}", file=sys.stderr)
    if not failures:
        print(f"noqt_smoke: {len(our_modules())} modules imported and every command line answered without Qt")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
