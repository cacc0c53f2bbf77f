"""`nailmirror credits show|ledger|grant|unpark`: the store's generation credits (ARCHITECTURE.md §14).

    credits show [--json]        balance (null until a first grant: not enforced), pending, confirmed_today,
                                 generations_today, daily_cap, session_cap, low_balance
    credits ledger [--json] [--limit N] [--task TASK_NO]   entries, newest first
    credits grant N --reason R [--grant-id ID]             staff's local grant (a store without HQ); applied once
                                                            per grant id (default: a new random one; ids
                                                            starting gr_ are HQ's and refused here)
    credits unpark ENTRY_ID [--yes] [--json]   a ledger entry HQ refused (409: it holds another body under the
                                 entry's id, e.g. this kiosk was restored from an old disk image and settled the
                                 same charge again). Offers it again as it is; if HQ still holds another body,
                                 shows both and, with --yes, re-sends this kiosk's entry under a new id that
                                 replaces the old one at HQ (HQ then counts this kiosk's version). ENTRY_ID: the
                                 ID `credits ledger` shows, or the upload id `sync status` names.

Exit status: 0 done (a grant already applied under that id prints `already applied` and is 0 too; unpark:
taken by HQ, re-sent, or both bodies shown without --yes), 1 a grant refused, an entry that is not parked, HQ
refusing the entry's body itself, or HQ unreachable (the code on stderr), 2 usage, 4 the database (or data
directory) is unusable.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3

    from nailmirror_desktop.core.credits import CreditPolicy, Entry


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("credits", help="generation credits: balance, ledger, local grants")
    parser.add_argument("--db", type=Path, default=None, help="database file (default: the kiosk's)")
    actions = parser.add_subparsers(dest="credits_action", metavar="ACTION")

    show = actions.add_parser("show", help="balance, pending, today's use and the caps")
    show.add_argument("--json", action="store_true")

    ledger = actions.add_parser("ledger", help="ledger entries, newest first")
    ledger.add_argument("--limit", type=int, default=100)
    ledger.add_argument("--task", dest="task_no", default=None, help="only this task's charges")
    ledger.add_argument("--json", action="store_true")

    grant = actions.add_parser("grant", help="grant credits to this store (staff, without HQ)")
    grant.add_argument("amount", type=int)
    grant.add_argument("--reason", required=True)
    grant.add_argument("--grant-id", default=None, help="applied once per id (default: a new one)")
    grant.add_argument("--json", action="store_true")

    unpark = actions.add_parser("unpark", help="end a ledger entry HQ refused (409): show both, re-send with --yes")
    unpark.add_argument("entry_id", metavar="ENTRY_ID")
    unpark.add_argument("--yes", action="store_true", help="re-send this kiosk's entry under a new id")
    unpark.add_argument("--json", action="store_true")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from nailmirror_desktop.app.services import credit_policy
    from nailmirror_desktop.core.clock import to_ms
    from nailmirror_desktop.core.credits import CreditHooks
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path

    if not args.credits_action:
        print("usage: nailmirror credits {show,ledger,grant,unpark} …", file=sys.stderr)
        return 2
    policy = credit_policy()
    conn = open_database(args.db or database_path())
    try:
        CreditHooks(policy).settle_orphans(conn, to_ms(time.time()))  # tasks ended by a process without hooks
        if args.credits_action == "show":
            return _show(conn, policy, args)
        if args.credits_action == "ledger":
            return _ledger(conn, policy, args)
        if args.credits_action == "unpark":
            return _unpark(conn, args)
        return _grant(conn, policy, args)
    finally:
        conn.close()


def _show(conn: sqlite3.Connection, policy: CreditPolicy, args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.credits import show

    summary = show(conn, policy)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
        return 0
    if summary["balance"] is None:
        print("balance   none (no grant received yet: not enforced)")
    else:
        alert = "  LOW (below {})".format(summary["low_balance_threshold"]) if summary["low_balance"] else ""
        print(f"balance   {summary['balance']}{alert}")
    print(f"pending   {summary['pending']}")
    print(f"today     {summary['confirmed_today']} confirmed, {summary['generations_today']} paid generation(s) of "
          f"{_cap(summary['daily_cap'])} ({summary['time_zone']})")
    print(f"session   {_cap(summary['session_cap'])} paid generation(s) per customer session")
    return 0


def _cap(cap: int) -> str:
    return str(cap) if cap else "no cap"


def _ledger(conn: sqlite3.Connection, policy: CreditPolicy, args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.credits import ledger_entries

    if args.limit < 1:
        print("error: LIMIT_INVALID (--limit must be at least 1)", file=sys.stderr)
        return 1
    entries = ledger_entries(conn, policy, limit=args.limit, task_no=args.task_no)
    if args.json:
        print(json.dumps([_entry_json(e) for e in entries], ensure_ascii=False, indent=2))
        return 0
    print(f"{'ID':>5} {'CREATED (UTC)':19} {'KIND':6} {'STATUS':9} {'AMT':>4} {'PAID':>4} {'TASK':17} NOTE")
    for e in entries:
        data = _entry_json(e)
        what = e.note or e.reason or ""
        if e.provider:
            what = f"{e.provider}/{e.model or '-'} x{e.variations or 1}" + (f"; {what}" if what else "")
        print(f"{e.id:>5} {(data['created_at'] or '')[:19]:19} {e.kind:6} {e.status:9} {e.amount:>4} "
              f"{e.confirmed_amount:>4} {e.task_no or e.grant_id or '':17} {what}")
    return 0


def _grant(conn: sqlite3.Connection, policy: CreditPolicy, args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.credits import GrantRejected, apply_grant, show

    grant_id = args.grant_id or f"local-{uuid.uuid4().hex}"
    if grant_id.startswith("gr_"):  # HQ's grant ids: HQ would take a local grant under one for its own
        print("error: GRANT_ID_INVALID (ids starting gr_ are HQ's)", file=sys.stderr)
        return 1
    try:
        applied = apply_grant(conn, grant_id, args.amount, args.reason, store_id=policy.store_id)
    except GrantRejected as exc:
        print(f"error: {exc.code} ({exc})", file=sys.stderr)
        return 1
    balance = show(conn, policy)["balance"]
    if args.json:
        print(json.dumps({"grant_id": grant_id, "applied": applied, "balance": balance}, ensure_ascii=False))
    else:
        print(f"{'granted' if applied else 'already applied'} {args.amount} ({grant_id}); balance {balance}")
    return 0


def _unpark(conn: sqlite3.Connection, args: argparse.Namespace) -> int:
    from nailmirror_desktop.adapters.sync.client import HttpHq
    from nailmirror_desktop.core.paths import data_dir, private_dir
    from nailmirror_desktop.core.sync import state
    from nailmirror_desktop.core.sync.errors import SyncError
    from nailmirror_desktop.core.sync.ledger import NotParked, unpark

    current = state.load(conn)
    if current is None:
        print("error: NOT_ENROLLED (only entries sent to HQ can be parked)", file=sys.stderr)
        return 1
    port = HttpHq(current.hq_url, current.token, kiosk_id=current.kiosk_id,
                  parts_dir=private_dir(private_dir(data_dir() / "sync") / "parts"))
    try:
        result = unpark(conn, port, args.entry_id, confirm=args.yes)
    except NotParked:
        print(f"error: ENTRY_NOT_PARKED ({args.entry_id} is no parked ledger entry: see sync status)",
              file=sys.stderr)
        return 1
    except SyncError as exc:
        print(f"error: HQ_UNREACHABLE ({exc.one_line()}); nothing changed"[:400], file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"outcome": result.outcome, "entry": result.local_id, "entry_id": result.entry_id,
                          "new_entry_id": result.new_entry_id, "kiosk_body": result.kiosk_body,
                          "hq_body": result.hq_body, "error": result.error}, ensure_ascii=False, indent=2))
    elif result.outcome == "conflict":
        print(f"entry {result.local_id} ({result.entry_id}): HQ holds another body under this id")
        print(f"this kiosk: {json.dumps(result.kiosk_body, ensure_ascii=False, sort_keys=True)}")
        print(f"HQ:         {json.dumps(result.hq_body, ensure_ascii=False, sort_keys=True)}")
        print("nothing changed; run again with --yes to re-send this kiosk's entry under a new id that replaces "
              "HQ's (HQ then counts this kiosk's version)")
    elif result.outcome == "resent":
        print(f"entry {result.local_id} re-sent as {result.new_entry_id}, replacing {result.entry_id} at HQ")
    elif result.outcome == "accepted":
        print(f"entry {result.local_id} taken by HQ as it is ({result.entry_id})")
    if result.outcome == "refused":
        print(f"error: ENTRY_REFUSED (HQ refuses this entry's body itself: {result.error}; re-sending cannot help)"
              [:400], file=sys.stderr)
        return 1
    return 0


def _entry_json(entry: Entry) -> dict[str, Any]:
    from dataclasses import asdict

    from nailmirror_desktop.core.clock import from_ms, iso_utc

    data = asdict(entry)
    data["refunded_amount"] = entry.refunded_amount
    data["created_at"] = iso_utc(from_ms(entry.created_at))
    data["settled_at"] = iso_utc(from_ms(entry.settled_at))
    return data
