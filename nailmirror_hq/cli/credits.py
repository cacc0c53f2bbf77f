"""`nailmirror-hq credits …`: generation credits granted to stores."""

from __future__ import annotations

import argparse
from typing import Any

from nailmirror_hq import credits, db
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("credits", help="generation credits granted to stores").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    give = command(group, "grant", _credits_grant, "grant a store N credits (reaches it as a credits.grant event)")
    give.add_argument("store_id")
    give.add_argument("amount", type=int, metavar="N")
    give.add_argument("--reason", required=True)
    give.add_argument("--kiosk", default=None, metavar="KIOSK_ID",
                      help="the kiosk whose ledger gets it (required when the store has more than one active kiosk)")
    command(group, "show", _credits_show, "each store's (and each of its kiosks') granted, confirmed, refunded "
                                          "and balance as HQ knows it"
            ).add_argument("store_id", nargs="?")
    parked = command(group, "parked", _credits_parked,
                     "kiosk entries claiming an HQ grant HQ cannot verify (not counted until an operator accepts)")
    parked.add_argument("store_id", nargs="?")
    parked.add_argument("--all", action="store_true", help="also those already accepted or rejected")
    for name, handler, help_text in (
            ("accept", _credits_accept, "accept a parked entry as HQ's grant (HQ's own records show it was made)"),
            ("reject", _credits_reject, "refuse a parked entry: it is kept for the record and never counted")):
        resolve = command(group, name, handler, help_text)
        resolve.add_argument("store_id")
        resolve.add_argument("entry_id")
        resolve.add_argument("--reason", required=True)


def _credits_grant(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        given = credits.grant(conn, args.store_id, args.amount, args.reason, cli_actor(),
                              key=hq.require_signing_key(), kiosk_id=args.kiosk)
    return {"grant_id": given.grant_id, "store_id": given.store_id, "kiosk_id": given.kiosk_id,
            "amount": given.amount, "reason": given.reason, "created_at": given.created_at}


def _credits_show(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return [b.as_json() for b in credits.books(conn, args.store_id)]


def _credits_parked(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return [p.as_json() for p in credits.parked(conn, args.store_id, every_state=args.all)]


def _credits_accept(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        return credits.accept_parked(conn, args.store_id, args.entry_id, cli_actor(), args.reason,
                                     key=hq.require_signing_key()).as_json()


def _credits_reject(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        return credits.reject_parked(conn, args.store_id, args.entry_id, cli_actor(), args.reason).as_json()
