"""`nailmirror-hq captures list | show CODE | withdraw CODE`: the consented nail captures HQ holds (issue #26).

Reads go through captures.can_read_captures as the page's do, and each one is audited under the operator's name.
`show --image FILE` writes the capture's image to FILE (owner-only)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from nailmirror_hq import captures
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("captures", help="consented nail captures: list, show, withdraw").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    listing = command(group, "list", _list, "captures HQ holds (newest first), then counts per store and day")
    listing.add_argument("--limit", type=int, default=200)
    show = command(group, "show", _show, "one capture's record (consent, model, facts)")
    show.add_argument("code")
    show.add_argument("--image", metavar="FILE", help="also write its image (PNG) to FILE")
    withdraw = command(group, "withdraw", _withdraw, "delete a capture everywhere by its code (the customer's"
                                                     " request)")
    withdraw.add_argument("code")


def _reader() -> captures.Operator:
    return captures.Operator(cli_actor())


def _list(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The captures (newest first), then one row per store and day with its count (and the withdrawn ones)."""
    rows = captures.list_captures(hq.engine, _reader(), limit=max(1, min(args.limit, 10_000)))
    return [row.summary() for row in rows] + captures.counts(hq.engine, _reader())


def _show(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    row = captures.show(hq.engine, _reader(), args.code)
    answer = {**row.summary(), "facts": row.facts}
    if args.image:
        data = captures.read_image(hq.engine, hq.require_captures(), _reader(), args.code)
        target = Path(args.image)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        answer["image"] = str(target)
    return answer


def _withdraw(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    done = captures.withdraw(hq.engine, hq.require_captures(), args.code, cli_actor())
    return {"code": done.code, "held": done.held, "datasets": list(done.datasets), "already": done.already}
