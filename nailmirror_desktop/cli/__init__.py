"""The `nailmirror` command: one entry point, one module per subcommand.

Each subcommand module exposes `register(subparsers)`, which adds its parser and sets `handler` to a function
taking the parsed arguments and returning an exit status. Subcommand modules import their heavy dependencies
(cv2, mediapipe, Qt) inside the handler so that `nailmirror tasks …` never pays for them.

Exit statuses every subcommand shares (each subcommand documents its own 0–3):
    4  the data directory is unusable (not a folder, read-only, full, a database that is garbage, damaged or
       from a newer build): one line on stderr names the path, the problem and the fix;
    5  internal error: one line on stderr, the traceback in the log file it names: the data directory's
       rotating logs/cli.log (app/kiosk_logging.py `command_logging`; the kiosk's own is logs/kiosk.log), or
       `nailmirror-cli-errors.log` in the data directory or the temp folder when that log cannot be opened.
No traceback ever reaches the user's terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import sqlite3
import sys
import tempfile
import time
import traceback
from pathlib import Path

SUBCOMMAND_MODULES = ("kiosk", "tryon", "evaluate", "tasks", "styles", "generate", "staff", "credits", "sync",
                      "export", "captures")
EXIT_DATA_DIR_UNUSABLE = 4
EXIT_INTERNAL_ERROR = 5
ERROR_LOG_NAME = "nailmirror-cli-errors.log"  # only when the rotating log could not be opened
# they load MediaPipe, whose C++ lines go to the log file, not the terminal
NATIVE_COMMANDS = {"tryon", "eval", "captures"}
_STORAGE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS}


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
    if args.command == "kiosk":  # it sets up its own log (kiosk.log) and its native libraries' stderr
        return run_guarded(handler, args)
    from nailmirror_desktop.app.kiosk_logging import command_logging

    with command_logging(native=args.command in NATIVE_COMMANDS):
        return run_guarded(handler, args)


def run_guarded(handler: object, args: argparse.Namespace) -> int:
    """Run a subcommand's handler; an unusable data directory or any unexpected error becomes one line."""
    from nailmirror_desktop.core.db import database_unusable
    from nailmirror_desktop.core.paths import DataDirUnusable, reason_for_os_error

    try:
        status = int(handler(args) or 0)  # type: ignore[operator]
        sys.stdout.flush()  # here, not at exit: a reader that left is then seen below, not by the interpreter
        return status
    except BrokenPipeError:
        return _reader_left()
    except DataDirUnusable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_DATA_DIR_UNUSABLE
    except sqlite3.DatabaseError as exc:  # a database that fails after it was opened (disk full mid-write …)
        print(f"error: {database_unusable(exc, getattr(args, 'db', None) or _database_path())}", file=sys.stderr)
        return EXIT_DATA_DIR_UNUSABLE
    except OSError as exc:
        if exc.errno not in _STORAGE_ERRNOS:
            return _internal_error(exc)
        where = Path(exc.filename).parent if exc.filename else _database_path().parent
        print(f"error: {DataDirUnusable(where, reason_for_os_error(exc), exc.strerror or str(exc))}",
              file=sys.stderr)
        return EXIT_DATA_DIR_UNUSABLE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the last resort: details to the log, one line to the user
        return _internal_error(exc)


def _reader_left() -> int:
    """`nailmirror tasks list --json | head`: the reader took what it wanted and closed the pipe. Not an error of
    ours, nor of the command: exit 0 quietly, with stdout pointed at /dev/null so that the interpreter's own
    flush at exit does not fail again on the closed pipe."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return 0


def _internal_error(exc: BaseException) -> int:
    log = _log_to_rotating_file(exc) or _log_internal_error(exc)
    print(f"internal error ({type(exc).__name__}); details in {log}", file=sys.stderr)
    return EXIT_INTERNAL_ERROR


def _log_to_rotating_file(exc: BaseException) -> Path | None:
    """The traceback into this process's rotating log (logs/cli.log, or the kiosk's), if one is open; only
    its file handler gets it, so the terminal keeps the one line."""
    import logging

    from nailmirror_desktop.app.kiosk_logging import log_file

    path = log_file()
    if path is None:
        return None
    record = logging.LogRecord("nailmirror_desktop.cli", logging.CRITICAL, __file__, 0, "internal error: %s",
                               (" ".join(sys.argv),), (type(exc), exc, exc.__traceback__))
    for handler in logging.getLogger().handlers:
        if Path(getattr(handler, "baseFilename", "")) == path:
            handler.handle(record)
    return path


def _database_path() -> Path:
    from nailmirror_desktop.core.paths import DATABASE_NAME, data_dir

    try:
        return data_dir() / DATABASE_NAME
    except Exception:  # noqa: BLE001 - only for naming it in a message
        return Path(DATABASE_NAME)


def _log_internal_error(exc: BaseException) -> Path | str:
    """Append the traceback to the data directory's error log (or the temp folder's, if that is unusable)."""
    text = f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} {' '.join(sys.argv)}\n" + "".join(
        traceback.format_exception(exc))
    for folder in _log_folders():
        path = folder / ERROR_LOG_NAME
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)  # owner-only, as the data it names
            with os.fdopen(fd, "a", encoding="utf-8") as handle:
                handle.write(text)
            return path
        except OSError:
            continue
    return "nowhere (no writable log folder)"


def _log_folders() -> list[Path]:
    from nailmirror_desktop.core.paths import data_dir

    folders = [Path(tempfile.gettempdir())]
    with contextlib.suppress(Exception):  # the data directory may be the very thing that is broken
        folders.insert(0, data_dir())
    return folders
