"""`nailmirror-hq`: run HQ and manage it from a shell (a chain's IT scripts use --json). One module per command.

    nailmirror-hq [--data DIR] [--json] serve [--host 127.0.0.1] [--port 8780]
    nailmirror-hq stores add NAME [--channel C] | list | revoke STORE_ID [--kiosk K] | enroll-code STORE_ID
    nailmirror-hq stores move STORE_ID --channel C | set-time-zone STORE_ID TZ
    nailmirror-hq kiosks list [--filter F] | rename KIOSK NAME | revoke KIOSK | replace KIOSK --code
    nailmirror-hq kiosks ask KIOSK retry_downloads|resync|replay_dead_letters
    nailmirror-hq styles import FOLDER [--publish] | list | publish|off-shelf|take-down STYLE
    nailmirror-hq styles publish STYLE [--channel C ...] [--every-channel] | rollback STYLE
    nailmirror-hq channels canary CHANNEL [--add STORE_ID | --remove STORE_ID | --list]
    nailmirror-hq rollouts list [--stage S] | show ID | widen ID | rollback ID
    nailmirror-hq categories add CODE --zh … --en … | list;  tags add CODE --zh … --en … | list
    nailmirror-hq drafts list [--status S] | approve DRAFT_ID | reject DRAFT_ID --reason R
    nailmirror-hq reviewers add NAME --password-stdin [--role ROLE] [--display-name TEXT] | list
    nailmirror-hq reviewers set-role NAME ROLE | set-display-name NAME TEXT | disable NAME
    nailmirror-hq reviewers passwd NAME --password-stdin
    nailmirror-hq credits grant STORE_ID N --reason R [--kiosk KIOSK_ID] | show [STORE_ID]
    nailmirror-hq credits parked [STORE_ID] [--all] | accept|reject STORE_ID ENTRY_ID --reason R
    nailmirror-hq backup DIR | restore DIR | signing-key
    nailmirror-hq keys show | rotate
    nailmirror-hq maintain [--retention-days 180] [--blob-grace-days 7]
    nailmirror-hq captures list [--limit N] | show CODE [--image FILE] | withdraw CODE
    nailmirror-hq labels dataset create NAME | list | show NAME;  labels export NAME --out DIR
    nailmirror-hq labels export-evaluation --out DIR
    nailmirror-hq model train --dataset NAME --base-data DIR [--slot S] [--epochs N] [--seed S] [--queue-only]
    nailmirror-hq model evaluate MODEL [--baseline MODEL] [--eval-data DIR] | worker [--once] | jobs
    nailmirror-hq model list | show MODEL | publish MODEL --channel C | withdraw MODEL [--channel C]

--data and --json may come before or after the subcommand. The schema is migrated only when it is behind this
build (a command on a current database never loads the migration machinery). Exit status, as the kiosk's CLI:
0 done; 1 HQ refused (a one-line reason on stderr); 2 bad command line (also one HQ cannot run as given: a missing
trainer, a folder of the wrong shape, a model the gate refused); 4 the data directory or database is
unusable, or the directory belongs to an HQ on another backend (one line); 5 internal error: one line on
stderr, the traceback in the error log it names (`nailmirror-hq-cli-errors.log` in the data directory, else the
temp folder). No traceback reaches the terminal.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nailmirror_hq.cli.common import CommandLineError, add_common, cli_actor, command

__all__ = ["build_parser", "cli_actor", "main"]

COMMAND_MODULES = ("admin", "stores", "kiosks", "styles", "reference", "drafts", "reviewers", "credits", "rollouts",
                   "captures", "labels", "keys", "models")
ERROR_LOG_NAME = "nailmirror-hq-cli-errors.log"
EXIT_REFUSED, EXIT_USAGE, EXIT_UNUSABLE, EXIT_INTERNAL_ERROR = 1, 2, 4, 5


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nailmirror-hq", description="NailMirror HQ: the chain's catalog service")
    add_common(parser, True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"nailmirror_hq.cli.{name}").register(sub, command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from nailmirror_hq.config import load_settings
    from nailmirror_hq.data_dir import WrongBackend
    from nailmirror_hq.errors import HQError
    from nailmirror_hq.service import open_hq
    from nailmirror_hq.style_folder import StyleFolderError

    try:
        settings = load_settings(args.data)
    except (OSError, ValueError) as exc:
        print(f"nailmirror-hq: data directory unusable: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    try:
        hq = open_hq(settings)
    except WrongBackend as exc:
        print(f"nailmirror-hq: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    except (OSError, ValueError) as exc:
        print(f"nailmirror-hq: data directory unusable: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    except Exception as exc:  # a database that cannot be opened or migrated: one line, no traceback
        print(f"nailmirror-hq: database unusable: {type(exc).__name__}: {_first_line(exc)}", file=sys.stderr)
        return EXIT_UNUSABLE
    if hq.stamped:
        print(f"nailmirror-hq: {hq.stamped}", file=sys.stderr)
    try:
        result = args.handler(hq, args)
    except (CommandLineError, HQError) as exc:
        print(f"nailmirror-hq: {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_USAGE if isinstance(exc, CommandLineError) else EXIT_REFUSED
    except StyleFolderError as exc:
        print(f"nailmirror-hq: style_folder_invalid: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last resort: the traceback to the log, one line to the user
        log = _log_internal_error(exc, settings.data_dir)
        print(f"nailmirror-hq: internal error ({type(exc).__name__}: {_first_line(exc)}); details in {log}",
              file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    finally:
        hq.close()
    try:
        if args.json:
            print(json.dumps(result, ensure_ascii=False, indent=None))
        else:
            _print_text(result)
    except BrokenPipeError:  # `| head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0][:200] if str(exc) else ""


def _log_internal_error(exc: BaseException, data_dir: Path) -> Path | str:
    """Append the traceback to the data directory's error log (the temp folder's, if that cannot be written)."""
    text = f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} {' '.join(sys.argv)}\n" + "".join(
        traceback.format_exception(exc))
    for folder in (data_dir, Path(tempfile.gettempdir())):
        path = folder / ERROR_LOG_NAME
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)  # owner-only, as HQ's data
            with os.fdopen(fd, "a", encoding="utf-8") as handle:
                handle.write(text)
            return path
        except OSError:
            continue
    return "nowhere (no writable log folder)"


def _print_text(result: Any) -> None:
    if isinstance(result, list):
        for item in result:
            _print_text(item)
        if not result:
            print("(none)")
    elif isinstance(result, dict):
        print("  ".join(f"{k}={v}" for k, v in result.items() if not isinstance(v, (list, dict))))
    elif result is not None:
        print(result)


if __name__ == "__main__":
    raise SystemExit(main())
