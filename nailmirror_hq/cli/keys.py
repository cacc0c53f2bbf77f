"""`nailmirror-hq keys show | rotate`: HQ's signing keys as kiosks pin them, and moving to a new one (keys.py)."""

from __future__ import annotations

import argparse
from typing import Any

from nailmirror_hq import db, key_rotation, keys
from nailmirror_hq.cli.common import Command, cli_actor
from nailmirror_hq.service import HQ


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("keys", help="HQ's signing keys (grants, model releases)").add_subparsers(
        dest="action", metavar="ACTION", required=True)
    command(group, "show", _show, "the key HQ signs with, the older ones, and the rotations kiosks follow")
    command(group, "rotate", _rotate, "make a new key pair to sign with from now on; the old key signs the "
                                      "rotation record, live model releases are signed again with the new one")


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
    with db.write(hq.engine) as conn:
        done = key_rotation.rotate(conn, hq.kek, cli_actor())
    hq.signing_key = done.key
    return {"key_id": done.key.public.key_id, "old_key_id": done.rotation["old_key_id"],
            "rotated_at": done.rotation["rotated_at"], "new_key": done.rotation["new_key"],
            "releases_signed_again": list(done.resigned)}
