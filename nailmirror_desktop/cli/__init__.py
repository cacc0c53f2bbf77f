"""The `nailmirror` command: one entry point, one module per subcommand.

Each subcommand module exposes `register(subparsers)`, which adds its parser and sets `handler` to a function
taking the parsed arguments and returning an exit status. Subcommand modules import their heavy dependencies
(cv2, mediapipe, Qt) inside the handler so that `nailmirror tasks …` never pays for them.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMAND_MODULES = ("kiosk", "tryon", "evaluate", "tasks", "styles", "generate", "staff")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nailmirror", description="NailMirror nail try-on kiosk")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(f"nailmirror_desktop.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"nailmirror_desktop.cli.{name}":
                continue  # that subcommand is not built yet
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        argv = ["kiosk", *argv]  # plain `nailmirror` starts the kiosk
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    return int(handler(args) or 0)
