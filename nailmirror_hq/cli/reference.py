"""`nailmirror-hq categories …` and `tags …`: the names HQ manages for both."""

from __future__ import annotations

import argparse
from typing import Any

from nailmirror_hq import catalog, db
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.errors import HQError
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    for kind in ("categories", "tags"):
        group = sub.add_parser(kind, help=f"{kind} HQ manages").add_subparsers(
            dest="action", metavar="ACTION", required=True)
        cmd = command(group, "add", _reference_add, f"add or rename one of the {kind}")
        cmd.add_argument("code")
        cmd.add_argument("--zh", required=True)
        cmd.add_argument("--en", default="")
        if kind == "categories":
            cmd.add_argument("--sort-order", type=int, default=0)
        cmd.set_defaults(kind=kind)
        command(group, "list", _reference_list, f"list {kind}").set_defaults(kind=kind)
        if kind == "categories":
            cmd = command(group, "rename", _reference_rename, "new names (or order) for a category")
            cmd.add_argument("code")
            cmd.add_argument("--zh")
            cmd.add_argument("--en")
            cmd.add_argument("--sort-order", type=int)
            cmd.set_defaults(kind=kind)



def _reference_add(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    kind = "category" if args.kind == "categories" else "tag"
    sort_order = getattr(args, "sort_order", 0)
    with db.write(hq.engine) as conn:
        if catalog.reference(conn, kind, args.code) is not None:  # add of an existing code renames it, as before
            return catalog.rename_reference(conn, kind, args.code, cli_actor(), args.zh, args.en,
                                            sort_order if kind == "category" else None)
        catalog.add_reference(conn, kind, args.code, args.zh, args.en, cli_actor(), sort_order)
        found = catalog.reference(conn, kind, args.code)
    assert found is not None
    return {**found[1], "version": found[0]}


def _reference_rename(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    if args.zh is None and args.en is None and args.sort_order is None:
        raise HQError(400, "bad_request", "give --zh, --en or --sort-order")
    with db.write(hq.engine) as conn:
        return catalog.rename_reference(conn, "category", args.code, cli_actor(), args.zh, args.en,
                                        args.sort_order)


def _reference_list(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return catalog.list_references(conn, "category" if args.kind == "categories" else "tag")
