"""`nailmirror staff set-pin`: set the staff PIN (core/staff_pin.py), asked twice without echo.

Whoever runs the kiosk's operating-system account sets it here; the touch screen cannot. It is also the recovery
when staff forget the PIN or lock the door with wrong tries: setting a PIN clears the lockout.
"""

from __future__ import annotations

import argparse
import getpass
import sys

HELP = ("set the staff PIN (4-8 digits, asked twice, not echoed); also the recovery when staff forget it or are "
        "locked out: a new PIN clears the lockout")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("staff", help="the staff PIN", description="The staff door's PIN.")
    commands = parser.add_subparsers(dest="staff_command", metavar="COMMAND", required=True)
    set_pin = commands.add_parser(
        "set-pin", help=HELP,
        description="Set the staff PIN that opens the kiosk's staff pages (the ⋯ button). Run it on the kiosk PC "
                    "as the account the kiosk runs under. It is also the recovery when staff forget the PIN or "
                    "have locked the door with wrong tries: setting a new PIN clears the lockout.")
    set_pin.add_argument("--stdin", action="store_true",
                         help="read the PIN and its repetition as two lines from standard input (for scripts); "
                              "also used when standard input is not a terminal")
    set_pin.set_defaults(handler=run_set_pin)


def run_set_pin(args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.staff_pin import PinFormatError, StaffPin

    on_terminal = sys.stdin is not None and sys.stdin.isatty()
    read = _read_hidden if on_terminal and not args.stdin else _read_line
    try:
        first = read("New staff PIN (4-8 digits): ")
        second = read("Repeat the PIN: ")
    except (EOFError, KeyboardInterrupt):
        return _fail("no PIN given; nothing changed")
    if first != second:
        return _fail("the two PINs differ; nothing changed")
    try:
        StaffPin().set(first)
    except PinFormatError as exc:
        if exc.code == "PIN_RETIRED":
            return _fail("2468 was the published default PIN; choose another; nothing changed")
        return _fail("the PIN must be 4 to 8 digits (0-9); nothing changed")
    except OSError as exc:
        return _fail(f"cannot write the kiosk's config file: {exc.strerror or exc}; nothing changed")
    print("Staff PIN set; the staff door's lockout is cleared.")
    return 0


def _read_hidden(prompt: str) -> str:
    return getpass.getpass(prompt).strip()


def _read_line(prompt: str) -> str:
    line = sys.stdin.readline() if sys.stdin is not None else ""
    if not line:
        raise EOFError
    return line.strip()


def _fail(message: str) -> int:
    print(f"nailmirror staff set-pin: {message}", file=sys.stderr)
    return 1
