"""`nailmirror-hq reviewers …`: the people who review drafts on HQ's web page."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from nailmirror_hq import db, reviewers
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("reviewers", help="people who review drafts on HQ's web page").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    for name, handler in (("add", _reviewers_add), ("passwd", _reviewers_passwd)):
        cmd = command(group, name, handler, f"{name} a reviewer (password read from stdin)")
        cmd.add_argument("name")
        cmd.add_argument("--password-stdin", action="store_true", required=True)
    command(group, "disable", _reviewers_disable, "stop a reviewer from signing in").add_argument("name")
    command(group, "list", _reviewers_list, "list reviewers")



def _password() -> str:
    line = sys.stdin.readline()
    return line.rstrip("\r\n")


def _reviewers_add(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    password = _password()
    with db.write(hq.engine) as conn:
        reviewers.add(conn, args.name, password, cli_actor())
    return {"name": args.name}


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
