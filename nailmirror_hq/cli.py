"""`nailmirror-hq`: run HQ and manage it from a shell (a chain's IT scripts use --json).

    nailmirror-hq [--data DIR] [--json] serve [--host 127.0.0.1] [--port 8780]
    nailmirror-hq stores add NAME [--channel C] | list | revoke STORE_ID [--kiosk K] | enroll-code STORE_ID
    nailmirror-hq stores move STORE_ID --channel C
    nailmirror-hq styles import FOLDER [--publish] | list | publish|off-shelf|take-down STYLE
    nailmirror-hq styles publish STYLE [--channel C ...] [--every-channel]
    nailmirror-hq categories add CODE --zh … --en … | list;  tags add CODE --zh … --en … | list
    nailmirror-hq drafts list [--status S] | approve DRAFT_ID | reject DRAFT_ID --reason R
    nailmirror-hq reviewers add NAME --password-stdin | passwd NAME --password-stdin | disable NAME | list
    nailmirror-hq credits grant STORE_ID N --reason R [--kiosk KIOSK_ID] | show [STORE_ID]
    nailmirror-hq backup DIR | restore DIR
    nailmirror-hq maintain [--retention-days 180] [--blob-grace-days 7]

--data and --json may come before or after the subcommand. Exit status: 0 done; 1 HQ refused (a one-line
reason on stderr); 2 bad command line; 4 the data directory or database is unusable; 5 internal error.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from nailmirror_hq import backup as backup_mod
from nailmirror_hq import catalog, credits, db, drafts, maintenance, reviewers, stores
from nailmirror_hq.config import load_settings
from nailmirror_hq.errors import HQError
from nailmirror_hq.service import HQ, open_hq
from nailmirror_hq.style_folder import StyleFolderError

Handler = Callable[[HQ, argparse.Namespace], Any]


def cli_actor() -> str:
    try:
        import pwd

        return f"cli:{pwd.getpwuid(os.getuid()).pw_name}"
    except (ImportError, KeyError):
        return f"cli:{getpass.getuser()}"


def _common(parser: argparse.ArgumentParser, top: bool) -> None:
    # At the top the defaults are real; on subcommands SUPPRESS, so "--data X stores list" is not reset.
    default: Any = None if top else argparse.SUPPRESS
    parser.add_argument("--data", metavar="DIR", default=default, help="HQ's data directory")
    parser.add_argument("--json", action="store_true", default=False if top else argparse.SUPPRESS,
                        help="print JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nailmirror-hq", description="NailMirror HQ: the chain's catalog service")
    _common(parser, True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(group: Any, name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        cmd: argparse.ArgumentParser = group.add_parser(name, help=help_text)
        _common(cmd, False)
        cmd.set_defaults(handler=handler)
        return cmd

    serve = command(sub, "serve", _serve, "run HQ's HTTP service")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8780)

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

    group = sub.add_parser("styles", help="the catalog HQ publishes").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    imp = command(group, "import", _styles_import, "import a style folder (the kiosk's format)")
    imp.add_argument("folder")
    imp.add_argument("--publish", action="store_true", help="publish it to every channel at once")
    imp.add_argument("--name", help="Chinese name (default: style.json's name)")
    imp.add_argument("--name-en", default="")
    imp.add_argument("--category", help="category code (add it first)")
    imp.add_argument("--tag", action="append", default=[], help="tag code (repeatable)")
    imp.add_argument("--prompt", default="")
    listing = command(group, "list", _styles_list, "list HQ's styles")
    listing.add_argument("--status", choices=["UNPUBLISHED", "PUBLISHED", "OFF_SHELF", "WITHDRAWN"])
    for name, help_text in (("publish", "publish a style to every channel"),
                            ("off-shelf", "keep it on kiosks but hide it from customers"),
                            ("take-down", "remove a style from every kiosk")):
        cmd = command(group, name, _styles_status, help_text)
        cmd.add_argument("style", help="style id or style code")
        cmd.add_argument("--reason")
        if name == "publish":
            cmd.add_argument("--channel", action="append", dest="channels",
                             help="publish only to this channel (repeatable); other channels drop it")
            cmd.add_argument("--every-channel", action="store_true",
                             help="publish to every channel again, also channels added later")

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

    group = sub.add_parser("reviewers", help="people who review drafts on HQ's web page").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    for name, handler in (("add", _reviewers_add), ("passwd", _reviewers_passwd)):
        cmd = command(group, name, handler, f"{name} a reviewer (password read from stdin)")
        cmd.add_argument("name")
        cmd.add_argument("--password-stdin", action="store_true", required=True)
    command(group, "disable", _reviewers_disable, "stop a reviewer from signing in").add_argument("name")
    command(group, "list", _reviewers_list, "list reviewers")

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

    maintain = command(sub, "maintain", _maintain,
                       "compact the feed and delete unreferenced blobs once (serve also does it daily)")
    maintain.add_argument("--retention-days", type=float, default=maintenance.RETENTION.days,
                          help="keep every feed change younger than this (default 180)")
    maintain.add_argument("--blob-grace-days", type=float, default=maintenance.BLOB_GRACE.days,
                          help="never delete a blob younger than this (default 7)")
    command(sub, "backup", _backup, "write a backup of HQ (database and blobs) to DIR").add_argument("dir")
    command(sub, "restore", _restore, "replace HQ with a backup; starts a new epoch (kiosks resync)"
            ).add_argument("dir")
    return parser


# --- handlers ------------------------------------------------------------------------------------------------

def _serve(hq: HQ, args: argparse.Namespace) -> None:
    import uvicorn

    from nailmirror_hq.api.app import create_app

    # One worker on SQLite (one writer anyway); run several processes behind a load balancer on PostgreSQL.
    print(f"nailmirror-hq: serving {hq.settings.database_url.split('@')[-1]} on http://{args.host}:{args.port}",
          file=sys.stderr)
    scheduler = maintenance.Scheduler(hq.engine, hq.blobs).start()  # compaction and blob clean-up, daily
    try:
        uvicorn.run(create_app(hq), host=args.host, port=args.port, log_level="info", access_log=True,
                    server_header=False)
    finally:
        scheduler.stop()


def _stores_add(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        found, code = stores.add_store(conn, args.name, args.channel, cli_actor())
    return {"store_id": found.id, "name": found.name, "channel": found.channel, "enrollment_code": code}


def _stores_list(hq: HQ, _args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return [{"store_id": s.id, "name": s.name, "channel": s.channel, "status": s.status,
                 "created_at": s.created_at, "kiosks": stores.kiosks(conn, s.id)} for s in stores.list_stores(conn)]


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


def _style_json(row: catalog.StyleRow) -> dict[str, Any]:
    return {"style_id": row.id, "style_code": row.style_code, "status": row.status, "version": row.version,
            "name": row.body["name"]["zh"], "name_en": row.body["name"]["en"], "category": row.body.get("category")}


def _styles_import(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    row = catalog.import_folder(hq.engine, hq.blobs, Path(args.folder), actor=cli_actor(), name=args.name,
                                name_en=args.name_en, category_code=args.category, tags=args.tag,
                                prompt=args.prompt, publish=args.publish)
    return _style_json(row)


def _styles_list(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return [_style_json(r) for r in catalog.list_styles(conn, args.status)]


def _resolve_style(conn: Any, key: str) -> str:
    if catalog.get_style(conn, key) is not None:
        return key
    for row in catalog.list_styles(conn):
        if row.style_code == key.strip().upper():
            return row.id
    raise HQError(404, "not_found", f"no style {key}")


def _styles_status(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    status = {"publish": "PUBLISHED", "off-shelf": "OFF_SHELF", "take-down": "WITHDRAWN"}[args.action]
    channels: list[str] | None = getattr(args, "channels", None)
    if getattr(args, "every_channel", False):
        if channels:
            raise HQError(400, "bad_request", "--channel and --every-channel exclude each other")
        channels = []
    with db.write(hq.engine) as conn:
        row = catalog.set_status(conn, _resolve_style(conn, args.style), status, cli_actor(), args.reason,
                                 channels)
        chosen = catalog.chosen_channels(conn, row.id)
    return {**_style_json(row), "channels": chosen, "every_channel": not chosen}


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


def _credits_grant(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        given = credits.grant(conn, args.store_id, args.amount, args.reason, cli_actor(), kiosk_id=args.kiosk)
    return {"grant_id": given.grant_id, "store_id": given.store_id, "kiosk_id": given.kiosk_id,
            "amount": given.amount, "reason": given.reason, "created_at": given.created_at}


def _credits_show(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return [b.as_json() for b in credits.books(conn, args.store_id)]


def _maintain(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    from datetime import timedelta

    if args.retention_days < 1 or args.blob_grace_days < 0:
        raise HQError(400, "bad_request", "--retention-days must be >= 1 and --blob-grace-days >= 0")
    result = maintenance.run(hq.engine, hq.blobs, retention=timedelta(days=args.retention_days),
                             grace=timedelta(days=args.blob_grace_days))
    return {"changes_dropped": result.changes_dropped, "blobs_deleted": len(result.blobs_deleted)}


def _backup(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    return backup_mod.backup(hq.engine, hq.blobs, Path(args.dir))


def _restore(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    return backup_mod.restore(hq.engine, hq.blobs, Path(args.dir), cli_actor())


# --- output ----------------------------------------------------------------------------------------------------

def _print_text(result: Any) -> None:
    if isinstance(result, list):
        for item in result:
            _print_text(item)
        if not result:
            print("(none)")
    elif isinstance(result, dict):
        print("  ".join(f"{k}={v}" for k, v in result.items() if not isinstance(v, (list, dict))))
    elif result is not None:
        print(result)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        hq = open_hq(load_settings(args.data))
    except (OSError, ValueError) as exc:
        print(f"nailmirror-hq: data directory unusable: {exc}", file=sys.stderr)
        return 4
    except Exception as exc:  # a database that cannot be opened or migrated: one line, no traceback
        print(f"nailmirror-hq: database unusable: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}",
              file=sys.stderr)
        return 4
    try:
        result = args.handler(hq, args)
    except HQError as exc:
        print(f"nailmirror-hq: {exc.code}: {exc.message}", file=sys.stderr)
        return 1
    except StyleFolderError as exc:
        print(f"nailmirror-hq: style_folder_invalid: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        first = str(exc).splitlines()[0][:200] if str(exc) else ""
        print(f"nailmirror-hq: internal error: {type(exc).__name__}: {first}", file=sys.stderr)
        return 5
    finally:
        hq.close()
    try:
        if args.json:
            print(json.dumps(result, ensure_ascii=False, indent=None))
        else:
            _print_text(result)
    except BrokenPipeError:  # `| head`: the reader left; not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
