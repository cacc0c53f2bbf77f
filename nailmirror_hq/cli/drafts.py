"""`nailmirror-hq drafts …`: the drafts stores submitted."""

from __future__ import annotations

import argparse
from typing import Any

from nailmirror_hq import catalog, db, drafts
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("drafts", help="drafts the stores submitted").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    listing = command(group, "list", _drafts_list, "list drafts (their latest revision)")
    listing.add_argument("--status", choices=["PENDING_REVIEW", "APPROVED", "REJECTED", "WITHDRAWN"])
    approve = command(group, "approve", _drafts_approve, "approve the latest pending revision and publish it")
    approve.add_argument("draft_id")
    approve.add_argument("--rev", type=int)
    approve.add_argument("--channel", action="append", dest="channels",
                         help="publish only to this channel (repeatable; default: every channel)")
    reject = command(group, "reject", _drafts_reject, "reject the latest pending revision")
    reject.add_argument("draft_id")
    reject.add_argument("--reason", required=True)
    reject.add_argument("--rev", type=int)



def _drafts_list(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return drafts.list_drafts(conn, args.status)


def _revision_json(rev: drafts.Revision) -> dict[str, Any]:
    return {"draft_id": rev.draft_id, "rev": rev.rev, "status": rev.state, "store_id": rev.store_id,
            "reviewer": rev.reviewer, "reason": rev.reason, "decided_at": rev.decided_at}


def _drafts_approve(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        rev = drafts.approve(conn, args.draft_id, cli_actor(), args.rev, args.channels)
        row = catalog.get_style(conn, args.draft_id)
    return {**_revision_json(rev), "style_id": args.draft_id, "style_code": row.style_code if row else None}


def _drafts_reject(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        return _revision_json(drafts.reject(conn, args.draft_id, cli_actor(), args.reason, args.rev))
