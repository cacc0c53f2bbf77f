"""`nailmirror-hq keys show | rotate`: HQ's signing keys as kiosks pin them, and moving to a new one (keys.py)."""

from __future__ import annotations

import argparse
from typing import Any

from nailmirror_hq import audit, clock, db, keys
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("keys", help="HQ's signing keys (grants, model releases)").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    command(group, "show", _show, "the key HQ signs with, the older ones, and the rotations kiosks follow")
    command(group, "rotate", _rotate, "make a new key pair to sign with from now on; the old key signs the "
                                      "rotation record, and what it signed keeps verifying")


def _show(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.read(hq.engine) as conn:
        announced = keys.announced(conn)
        older = [keys.hq_key(k) for k in keys.public_keys(conn)[1:]]
    # The current key's fields at the top (what a person reads; the kiosk's HQKey fields), the rest as lists.
    return {**announced.get("hq_key", {}), "older": older, "rotations": announced.get("hq_key_rotations", []),
            "config_file": str(hq.settings.config_path)}


def _rotate(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    if hq.kek is None:
        raise RuntimeError("HQ was opened without its config file's key")
    actor = cli_actor()
    with db.write(hq.engine) as conn:
        new, rotation = keys.rotate(conn, hq.kek, clock.now_text())
        audit.record(conn, actor, "KEY_ROTATE", "hq", new.public.key_id, old_key_id=rotation["old_key_id"])
    hq.signing_key = new
    return {"key_id": new.public.key_id, "old_key_id": rotation["old_key_id"], "rotated_at": rotation["rotated_at"],
            "new_key": rotation["new_key"]}
