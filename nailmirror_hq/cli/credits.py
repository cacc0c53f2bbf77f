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



def _credits_grant(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        given = credits.grant(conn, args.store_id, args.amount, args.reason, cli_actor(), kiosk_id=args.kiosk)
    return {"grant_id": given.grant_id, "store_id": given.store_id, "kiosk_id": given.kiosk_id,
            "amount": given.amount, "reason": given.reason, "created_at": given.created_at}


def _credits_show(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return [b.as_json() for b in credits.books(conn, args.store_id)]
