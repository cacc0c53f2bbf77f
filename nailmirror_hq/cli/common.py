"""What every `nailmirror-hq` command module shares: the actor a command writes as, and how a command is added."""

from __future__ import annotations

import argparse
import getpass
import os
from collections.abc import Callable
from typing import Any

from nailmirror_hq.service import HQ

Handler = Callable[[HQ, argparse.Namespace], Any]
Command = Callable[[Any, str, Handler, str], argparse.ArgumentParser]


class CommandLineError(Exception):
    """A command line HQ cannot run as given (a missing program, a folder of the wrong shape, a refused gate):
    one line, exit 2, nothing written."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def cli_actor() -> str:
    try:
        import pwd

        return f"cli:{pwd.getpwuid(os.getuid()).pw_name}"
    except (ImportError, KeyError):
        return f"cli:{getpass.getuser()}"


def add_common(parser: argparse.ArgumentParser, top: bool) -> None:
    # At the top the defaults are real; on subcommands SUPPRESS, so "--data X stores list" is not reset.
    default: Any = None if top else argparse.SUPPRESS
    parser.add_argument("--data", metavar="DIR", default=default, help="HQ's data directory")
    parser.add_argument("--json", action="store_true", default=False if top else argparse.SUPPRESS,
                        help="print JSON")


def command(group: Any, name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
    """Add subcommand `name` to `group`, run by `handler(hq, args)`."""
    cmd: argparse.ArgumentParser = group.add_parser(name, help=help_text)
    add_common(cmd, False)
    cmd.set_defaults(handler=handler)
    return cmd
