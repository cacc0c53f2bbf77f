"""HQ's public key, pinned on the kiosk (issue #27 §5): the one model releases must be signed with.

Trust starts once: the key in enrollment's answer (an operator's one-time code), or, for a kiosk enrolled before
releases existed, the key in its first authenticated hello. After that a different key in hello is taken only when
`follow_rotations` reaches it from the current one through rotations each signed by the key it replaces; the new
key becomes current and the old ones are kept. Anything else is "key_mismatch": releases are ignored (one log
line) until a signed rotation arrives. Rows: `hq_key` and `model_signing` (migrations/0017_model_release.sql).
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass

from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.model_releases.store import one_line, utc_text
from nailmirror_protocol.model_release import HQKey, KeyRotation, Verifier, follow_rotations

log = logging.getLogger(__name__)

OK, NO_KEY, KEY_MISMATCH = "ok", "no_key", "key_mismatch"  # nailmirror_protocol.shapes.MODEL_SIGNING_STATES


@dataclass(frozen=True)
class Signing:
    """Where the kiosk stands after a hello: `state` (MODEL_SIGNING_STATES), the key releases are checked
    against (None unless "ok"), and whether this hello pinned or rotated to a new key (then releases HQ sent
    while the kiosk could not check them are read again from the snapshot)."""

    state: str
    key: HQKey | None
    changed: bool = False
    detail: str = ""


def current_key(conn: sqlite3.Connection) -> HQKey | None:
    row = conn.execute("SELECT key_id, alg, key FROM hq_key WHERE current = 1").fetchone()
    return {"alg": row["alg"], "key": row["key"], "key_id": row["key_id"]} if row else None


def current_key_id(conn: sqlite3.Connection) -> str | None:
    key = current_key(conn)
    return key["key_id"] if key else None


def pinned_ids(conn: sqlite3.Connection) -> list[str]:
    """Every key this kiosk pinned, the current one first."""
    return [r[0] for r in conn.execute("SELECT key_id FROM hq_key ORDER BY current DESC, pinned_at DESC")]


def signing(conn: sqlite3.Connection) -> Signing:
    """The state as last recorded (the report, `sync status`): "no_key" while nothing is pinned."""
    key = current_key(conn)
    row = conn.execute("SELECT state, detail FROM model_signing WHERE id = 1").fetchone()
    if key is None:
        return Signing(NO_KEY, None)
    if row is not None and row["state"] == KEY_MISMATCH:
        return Signing(KEY_MISMATCH, None, detail=row["detail"])
    return Signing(OK, key)


def pin_at_enrollment(conn: sqlite3.Connection, key: HQKey | None) -> None:
    """A new enrollment trusts the key its answer carries, replacing whatever was pinned for an earlier one; an
    HQ that sends none leaves the kiosk to pin the key of its first authenticated hello."""
    with write_transaction(conn):
        conn.execute("DELETE FROM hq_key")
        conn.execute("DELETE FROM model_signing")
        if key is not None:
            _pin(conn, key)
            _record(conn, OK, "")


def adopt_from_hello(conn: sqlite3.Connection, key: HQKey | None, rotations: list[KeyRotation],
                     verify: Verifier | None) -> Signing:
    """Check hello's key against the pinned one, following signed rotations. `verify` None: this build cannot
    check signatures, so nothing is pinned or followed and releases are ignored."""
    pinned = current_key(conn)
    if key is None or verify is None:  # an HQ from before releases: what was pinned stays pinned
        return signing(conn)
    if pinned is None:
        with write_transaction(conn):
            _pin(conn, key)
            _record(conn, OK, "")
        log.info("pinned HQ's key %s from its hello", key["key_id"])
        return Signing(OK, key, changed=True)
    if key["key_id"] == pinned["key_id"] and key["key"] == pinned["key"]:
        _record_if_changed(conn, OK, "")
        return Signing(OK, pinned)
    reached = follow_rotations(pinned, rotations, verify)
    if reached["key_id"] == key["key_id"] and reached["key"] == key["key"]:
        with write_transaction(conn):
            conn.execute("UPDATE hq_key SET current = 0")
            _pin(conn, reached)
            _record(conn, OK, "")
        log.info("HQ's key rotated from %s to %s (signed rotation followed)", pinned["key_id"], key["key_id"])
        return Signing(OK, reached, changed=True)
    detail = one_line(f"HQ sent key {key['key_id']}, no signed rotation leads to it from {pinned['key_id']}")
    if _record_if_changed(conn, KEY_MISMATCH, detail):
        log.warning("model releases ignored: %s", detail)
    return Signing(KEY_MISMATCH, None, detail=detail)


def _pin(conn: sqlite3.Connection, key: HQKey) -> None:
    conn.execute("INSERT INTO hq_key (key_id, alg, key, pinned_at, current) VALUES (?, ?, ?, ?, 1)"
                 " ON CONFLICT (key_id) DO UPDATE SET current = 1",
                 (key["key_id"], key["alg"], key["key"], utc_text()))


def _record(conn: sqlite3.Connection, state: str, detail: str) -> None:
    conn.execute("INSERT INTO model_signing (id, state, detail, updated_at) VALUES (1, ?, ?, ?) ON CONFLICT (id)"
                 " DO UPDATE SET state = excluded.state, detail = excluded.detail, updated_at = excluded.updated_at",
                 (state, detail, utc_text()))


def _record_if_changed(conn: sqlite3.Connection, state: str, detail: str) -> bool:
    """Record the state unless it is already the one recorded; True when it changed (then it is logged once,
    not every poll)."""
    row = conn.execute("SELECT state, detail FROM model_signing WHERE id = 1").fetchone()
    if row is not None and (row["state"], row["detail"]) == (state, detail):
        return False
    with write_transaction(conn):
        _record(conn, state, detail)
    return True
