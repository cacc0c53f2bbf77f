"""`nailmirror-hq rollouts list|show|widen|rollback` and `channels canary`: staged publishing (rollouts.py)."""

from __future__ import annotations

import argparse
from typing import Any

from nailmirror_hq import db, feed, rollout_actions, rollout_report, rollouts
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.errors import HQError
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("rollouts", help="publishes and how far they reached").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    listing = command(group, "list", _list, "rollouts, newest first, with how many kiosks show each")
    listing.add_argument("--stage", choices=rollouts.STAGES)
    command(group, "show", _show, "one rollout and each kiosk in its scope").add_argument("id", type=int)
    command(group, "widen", _widen, "send a rollout in canary to every store").add_argument("id", type=int)
    command(group, "rollback", _rollback, "give every store what it had before this rollout (its subject's newest)"
            ).add_argument("id", type=int)
    channels = sub.add_parser("channels", help="channels and their canary stores").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    canary = command(channels, "canary", _canary, "a channel's canary stores (they see a publish first)")
    canary.add_argument("channel")
    what = canary.add_mutually_exclusive_group()
    what.add_argument("--add", metavar="STORE_ID", help="put a store of the channel in its canary set")
    what.add_argument("--remove", metavar="STORE_ID", help="take a store out of the canary set")
    what.add_argument("--list", action="store_true", help="list the canary stores (the default)")


def _list(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return [rollout_report.report(conn, r).as_json(kiosks=False)
                for r in rollouts.list_rollouts(conn, stage=args.stage)]


def _show(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.read(hq.engine) as conn:
        return rollout_report.report(conn, rollouts.get(conn, args.id)).as_json()


# permission: publish_rollouts
def _widen(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        widened = rollout_actions.widen(conn, args.id, cli_actor())
        return rollout_report.report(conn, widened).as_json(kiosks=False)


# permission: publish_rollouts
def _rollback(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    """As the Rollouts page's roll back: only the newest live rollout of its style or model slot can be undone."""
    with db.write(hq.engine) as conn:
        ended = rollout_actions.roll_back(conn, args.id, hq.kek, cli_actor())
        return rollout_report.report(conn, ended).as_json(kiosks=False)


# permission: publish_rollouts
def _canary(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    if args.channel.startswith(feed.CANARY_PREFIX):
        raise HQError(400, "bad_request", f"{args.channel} is not a channel code")
    with db.write(hq.engine) as conn:
        if args.add:
            found = rollouts.add_canary(conn, args.channel, args.add, cli_actor())
        elif args.remove:
            found = rollouts.remove_canary(conn, args.channel, args.remove, cli_actor())
        else:
            if feed.head(conn, args.channel) is None:
                raise HQError(404, "not_found", f"no such channel {args.channel}")
            found = rollouts.canary_stores(conn, args.channel)
    return {"channel": args.channel, "canary_stores": found, "count": len(found)}
