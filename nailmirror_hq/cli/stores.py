"""`nailmirror-hq stores …`: stores, their enrollment codes, kiosks and channels."""

from __future__ import annotations

import argparse
from typing import Any

from nailmirror_hq import db, stores
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("stores", help="stores, their enrollment codes and kiosks").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    add = command(group, "add", _stores_add, "add a store; prints its id and a one-time enrollment code")
    add.add_argument("name")
    add.add_argument("--channel", default=stores.DEFAULT_CHANNEL)
    command(group, "list", _stores_list, "list stores and their kiosks")
    revoke = command(group, "revoke", _stores_revoke, "revoke a store's kiosks (or one kiosk)")
    revoke.add_argument("store_id")
    revoke.add_argument("--kiosk", help="revoke only this kiosk id")
    code = command(group, "enroll-code", _stores_enroll_code, "a new one-time code (replacement or second PC)")
    code.add_argument("store_id")
    move = command(group, "move", _stores_move, "put a store on another channel (its kiosks resync)")
    move.add_argument("store_id")
    move.add_argument("--channel", required=True)
    zone = command(group, "set-time-zone", _stores_set_time_zone,
                   "set a store's time zone (IANA, e.g. Asia/Shanghai); its kiosks adopt it at their next sync")
    zone.add_argument("store_id")
    zone.add_argument("time_zone")


def _stores_add(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        found, code = stores.add_store(conn, args.name, args.channel, cli_actor())
    return {"store_id": found.id, "name": found.name, "channel": found.channel, "enrollment_code": code}


def _stores_list(hq: HQ, _args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return [{"store_id": s.id, "name": s.name, "channel": s.channel, "status": s.status,
                 "time_zone": s.time_zone, "created_at": s.created_at, "kiosks": stores.kiosks(conn, s.id)}
                for s in stores.list_stores(conn)]


def _stores_revoke(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        count = stores.revoke(conn, args.store_id, cli_actor(), args.kiosk)
    return {"store_id": args.store_id, "kiosk_id": args.kiosk, "tokens_revoked": count}


def _stores_enroll_code(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        code = stores.new_enroll_code(conn, args.store_id, cli_actor())
    return {"store_id": args.store_id, "enrollment_code": code}


def _stores_move(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        found = stores.move_store(conn, args.store_id, args.channel, cli_actor())
    return {"store_id": found.id, "channel": found.channel}


def _stores_set_time_zone(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        found = stores.set_time_zone(conn, args.store_id, args.time_zone, cli_actor())
    return {"store_id": found.id, "time_zone": found.time_zone}
