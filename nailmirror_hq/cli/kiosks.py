"""`nailmirror-hq kiosks …`: the fleet (issue #25 §7, §8) from a shell, the same as the fleet page.

    kiosks list [--filter all|not_seen|failed_downloads|problems]   every kiosk, its last report and problems
    kiosks rename KIOSK NAME          KIOSK is a kiosk id, or a name only one kiosk has
    kiosks revoke KIOSK               one kiosk (a stolen PC); the store's others go on
    kiosks replace KIOSK --code       a one-time code for the new PC; enrolling with it revokes KIOSK
    kiosks ask KIOSK retry_downloads|resync|replay_dead_letters   done by the kiosk at its next sync
"""

from __future__ import annotations

import argparse
from typing import Any

from nailmirror_hq import db, fleet
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.service import HQ
from nailmirror_protocol.shapes import FLEET_REQUEST_KINDS


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("kiosks", help="the fleet: kiosks' health, names, revocation, replacement, fixes"
                           ).add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = command(group, "list", _list, "every kiosk with its last sync report and problems")
    listing.add_argument("--filter", choices=fleet.FILTERS, default="all")
    rename = command(group, "rename", _rename, "give a kiosk another name (unique in its store)")
    rename.add_argument("kiosk")
    rename.add_argument("name")
    revoke = command(group, "revoke", _revoke, "revoke one kiosk: its token stops working")
    revoke.add_argument("kiosk")
    replace = command(group, "replace", _replace, "a one-time code for a replacement PC; its use revokes KIOSK")
    replace.add_argument("kiosk")
    replace.add_argument("--code", action="store_true", required=True,
                         help="print the new PC's enrollment code (valid 24 h)")
    ask = command(group, "ask", _ask, "ask a kiosk to fix itself at its next sync")
    ask.add_argument("kiosk")
    ask.add_argument("kind", choices=FLEET_REQUEST_KINDS)


def _list(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        rows = fleet.fleet(conn)
    return [row.to_json() for row in fleet.select_rows(rows, args.filter)]


def _rename(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        kiosk_id = fleet.rename(conn, args.kiosk, args.name, cli_actor())
    return {"kiosk_id": kiosk_id, "name": " ".join(args.name.split())}


def _revoke(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        kiosk_id = fleet.revoke(conn, args.kiosk, cli_actor())
    return {"kiosk_id": kiosk_id, "revoked": True}


def _replace(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        kiosk_id, code = fleet.replacement_code(conn, args.kiosk, cli_actor())
    return {"replaces_kiosk_id": kiosk_id, "enrollment_code": code}


def _ask(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        request = fleet.ask(conn, args.kiosk, args.kind, cli_actor())
    return {"request_id": request.id, "kind": request.kind, "asked_at": request.asked_at}
