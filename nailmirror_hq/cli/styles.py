"""`nailmirror-hq styles …`: the catalog HQ publishes."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from nailmirror_hq import catalog, db, rollout_actions
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.errors import HQError
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
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
    command(group, "rollback", _styles_rollback, "make the previous published version current again for every "
                                                 "store").add_argument("style", help="style id or style code")



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


# permission: publish_rollouts
def _styles_rollback(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        row, undone = rollout_actions.rollback(conn, _resolve_style(conn, args.style), cli_actor())
    return {**_style_json(row), "rolled_back_rollout": undone.id, "restored_version": undone.previous_version}
