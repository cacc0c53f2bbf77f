"""`nailmirror-hq reviewers …`: HQ's people on the review page, each with a role (nailmirror_hq/roles.py).

    reviewers add NAME --password-stdin [--role ROLE] [--display-name TEXT]   (ROLE: content_reviewer when none)
    reviewers set-role NAME ROLE | set-display-name NAME TEXT | passwd NAME --password-stdin | disable NAME | list
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from nailmirror_hq import db, reviewers, roles
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("reviewers", help="HQ's people on the review page, and their roles").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    choices = ", ".join(r.value for r in roles.Role)
    for name, handler in (("add", _reviewers_add), ("passwd", _reviewers_passwd)):
        cmd = command(group, name, handler, f"{name} a reviewer (password read from stdin)")
        cmd.add_argument("name")
        cmd.add_argument("--password-stdin", action="store_true", required=True)
    add = group.choices["add"]
    add.add_argument("--role", default=roles.DEFAULT_ROLE.value, metavar="ROLE",
                     help=f"what they may do: {choices} (default {roles.DEFAULT_ROLE.value})")
    add.add_argument("--display-name", default=None, metavar="TEXT", help="how kiosks and the audit log name them")
    set_role = command(group, "set-role", _reviewers_set_role, f"change a reviewer's role ({choices})")
    set_role.add_argument("name")
    set_role.add_argument("role")
    set_name = command(group, "set-display-name", _reviewers_set_name, "change how a reviewer is named to others")
    set_name.add_argument("name")
    set_name.add_argument("display_name")
    command(group, "disable", _reviewers_disable, "stop a reviewer from signing in").add_argument("name")
    command(group, "list", _reviewers_list, "list reviewers and their roles")


def _password() -> str:
    line = sys.stdin.readline()
    return line.rstrip("\r\n")


def _reviewers_add(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    password = _password()
    with db.write(hq.engine) as conn:
        reviewers.add(conn, args.name, password, cli_actor(), args.role, args.display_name)
    return {"name": args.name, "role": roles.parse_role(args.role).value}


def _reviewers_set_role(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        reviewers.set_role(conn, args.name, args.role, cli_actor())
    return {"name": args.name, "role": roles.parse_role(args.role).value}


def _reviewers_set_name(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        reviewers.set_display_name(conn, args.name, args.display_name, cli_actor())
    return {"name": args.name, "display_name": args.display_name}


def _reviewers_passwd(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    password = _password()
    with db.write(hq.engine) as conn:
        reviewers.set_password(conn, args.name, password, cli_actor())
    return {"name": args.name}


def _reviewers_disable(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        reviewers.disable(conn, args.name, cli_actor())
    return {"name": args.name, "disabled": True}


def _reviewers_list(hq: HQ, _args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return reviewers.list_reviewers(conn)
