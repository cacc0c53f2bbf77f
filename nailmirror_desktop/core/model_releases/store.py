"""The kiosk's model releases: rows in `model_release` (migrations/0017_model_release.sql), one per (slot, release).

A release's life on the kiosk (states are nailmirror_protocol.shapes.MODEL_SLOT_STATES):
  offered → "downloading" (a slot this kiosk runs) or "bundled" (a slot it does not run: recorded, never fetched)
  downloading → "verified" (file fetched, size and sha256 checked) or "refused" (signature, shapes, bytes)
  verified → "active" (switched at an idle moment; the slot's previous active goes back to "verified")
  active → "rolled_back" (live quality regressed or it failed to load; never waited for again)
A newer offer drops the slot's older rows not yet fetched, refused or never to be fetched (superseded).
A delete of the slot from HQ removes its rows: the bundled model serves again.

The sync side (core/sync) offers, verifies and refuses; the running side (issue #27 §7) activates and rolls back.
Every write is one transaction, so the two processes never see half a switch.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.model_version import bundled_full_frame_version, bundled_model_version
from nailmirror_protocol.model_release import SLOTS, ModelManifest
from nailmirror_protocol.shapes import ModelSlotReport

# The slots this kiosk runs a model in; a release of any other slot is recorded but not downloaded.
RUN_SLOTS = ("live", "still")
DETAIL_MAX = 300  # = the sync report's model_slots detail
NOT_RUN = "slot not run on this kiosk"
NO_BUNDLED_MODEL = "none"  # the version reported for a slot with neither a release nor a bundled model


@dataclass(frozen=True)
class ModelReleaseRow:
    slot: str
    release: int  # the feed version of HQ's "model" change
    version: str  # the manifest's version: what the kiosk reports as its model_version
    sha256: str
    size: int
    manifest: dict[str, Any]
    path: str | None  # the verified file, once downloaded
    state: str
    detail: str
    updated_at: str


def utc_text(now_s: float | None = None) -> str:
    moment = datetime.fromtimestamp(time.time() if now_s is None else now_s, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def one_line(detail: str) -> str:
    return " ".join(detail.split())[:DETAIL_MAX]


def _row(row: sqlite3.Row) -> ModelReleaseRow:
    return ModelReleaseRow(row["slot"], row["release"], row["version"], row["sha256"], row["size"],
                           json.loads(row["manifest"]), row["path"], row["state"], row["detail"], row["updated_at"])


_COLUMNS = "slot, release, version, sha256, size, manifest, path, state, detail, updated_at"


def get(conn: sqlite3.Connection, slot: str, release: int) -> ModelReleaseRow | None:
    row = conn.execute(f"SELECT {_COLUMNS} FROM model_release WHERE slot = ? AND release = ?",
                       (slot, release)).fetchone()
    return _row(row) if row else None


def rows(conn: sqlite3.Connection, slot: str | None = None) -> list[ModelReleaseRow]:
    """Newest release first."""
    if slot is None:
        found = conn.execute(f"SELECT {_COLUMNS} FROM model_release ORDER BY slot, release DESC").fetchall()
    else:
        found = conn.execute(f"SELECT {_COLUMNS} FROM model_release WHERE slot = ? ORDER BY release DESC",
                             (slot,)).fetchall()
    return [_row(r) for r in found]


def record_offered(conn: sqlite3.Connection, slot: str, release: int, manifest: ModelManifest | dict[str, Any]
                   ) -> None:
    """HQ offers `release` for `slot` (its signature already verified). The same bytes offered again (a snapshot
    resync, a replayed page) keep whatever state they reached; other bytes under the same number start over."""
    text = json.dumps(manifest, sort_keys=True, separators=(",", ":"))
    state, detail = ("downloading", "") if slot in RUN_SLOTS else ("bundled", NOT_RUN)
    path: str | None = None
    with write_transaction(conn):
        known = get(conn, slot, release)
        if known is not None and known.sha256 == manifest["sha256"] and known.manifest == json.loads(text):
            return
        if slot in RUN_SLOTS:
            # The same bytes under a new number (HQ re-signs its live releases after a key rotation): what this
            # kiosk learnt of them holds. A verified file needs no download; bytes that regressed here stay
            # rolled back.
            same = conn.execute("SELECT state, detail, path FROM model_release WHERE slot = ? AND sha256 = ?"
                                " AND state IN ('verified', 'active', 'rolled_back') ORDER BY state = 'rolled_back'"
                                " DESC, release DESC LIMIT 1", (slot, manifest["sha256"])).fetchone()
            if same is not None:
                state = "rolled_back" if same["state"] == "rolled_back" else "verified"
                detail, path = (same["detail"] if state == "rolled_back" else ""), same["path"]
        conn.execute(
            "INSERT OR REPLACE INTO model_release (slot, release, version, sha256, size, manifest, path, state,"
            " detail, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (slot, release, manifest["version"], manifest["sha256"], manifest["size"], text, path, state, detail,
             utc_text()))
        # An older release not fetched yet (or refused, or never to be fetched) is superseded: its download is
        # not worth the bandwidth. Verified, active and rolled-back ones stay: the switch rolls back to them, and
        # a rolled-back one must never wait again.
        conn.execute("DELETE FROM model_release WHERE slot = ? AND release < ?"
                     " AND state IN ('downloading', 'bundled', 'refused')", (slot, release))


def _set(conn: sqlite3.Connection, slot: str, release: int, state: str, detail: str) -> None:
    conn.execute("UPDATE model_release SET state = ?, detail = ?, updated_at = ? WHERE slot = ? AND release = ?",
                 (state, one_line(detail), utc_text(), slot, release))


def mark_verified(conn: sqlite3.Connection, slot: str, release: int, path: str) -> None:
    with write_transaction(conn):
        conn.execute("UPDATE model_release SET path = ? WHERE slot = ? AND release = ?", (path, slot, release))
        _set(conn, slot, release, "verified", "")


def note_waiting(conn: sqlite3.Connection, slot: str, release: int, detail: str) -> None:
    """A download that will be tried again (a full disk, HQ unreachable): still "downloading", with why."""
    with write_transaction(conn):
        conn.execute("UPDATE model_release SET detail = ?, updated_at = ? WHERE slot = ? AND release = ?"
                     " AND state = 'downloading'", (one_line(detail), utc_text(), slot, release))


def mark_refused(conn: sqlite3.Connection, slot: str, release: int, detail: str) -> None:
    with write_transaction(conn):
        conn.execute("UPDATE model_release SET path = NULL WHERE slot = ? AND release = ?", (slot, release))
        _set(conn, slot, release, "refused", detail)


def mark_active(conn: sqlite3.Connection, slot: str, release: int) -> None:
    """`release` runs in `slot` now; the one that ran before goes back to "verified" (a rollback target)."""
    with write_transaction(conn):
        conn.execute("UPDATE model_release SET state = 'verified', detail = '', updated_at = ?"
                     " WHERE slot = ? AND state = 'active' AND release != ?", (utc_text(), slot, release))
        _set(conn, slot, release, "active", "")


def mark_rolled_back(conn: sqlite3.Connection, slot: str, release: int, detail: str) -> None:
    with write_transaction(conn):
        _set(conn, slot, release, "rolled_back", detail)


def withdraw_slot(conn: sqlite3.Connection, slot: str) -> None:
    """HQ withdrew the slot's release: every row of the slot goes, the bundled model serves again. The files are
    left to `referenced_paths`' caller (a running session may still hold one open)."""
    with write_transaction(conn):
        conn.execute("DELETE FROM model_release WHERE slot = ?", (slot,))


def forget_after(conn: sqlite3.Connection, slot: str, release: int) -> int:
    """A snapshot replace from an HQ restored from a backup: the slot's releases numbered after the one HQ lists
    are from a history HQ no longer has, so they go (an active one too: the listed one is what HQ serves)."""
    with write_transaction(conn):
        return conn.execute("DELETE FROM model_release WHERE slot = ? AND release > ?", (slot, release)).rowcount


def active(conn: sqlite3.Connection, slot: str) -> ModelReleaseRow | None:
    row = conn.execute(f"SELECT {_COLUMNS} FROM model_release WHERE slot = ? AND state = 'active'",
                       (slot,)).fetchone()
    return _row(row) if row else None


def waiting(conn: sqlite3.Connection, slot: str) -> ModelReleaseRow | None:
    """The newest verified release newer than the active one (any, when none is active), whose bytes are not
    the active one's (switching to the same file is no switch) and never rolled back in this slot (under this
    number or another: HQ re-signs a release after a key rotation)."""
    current = active(conn, slot)
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM model_release WHERE slot = ? AND state = 'verified' AND release > ? AND sha256 != ?"
        " AND sha256 NOT IN (SELECT sha256 FROM model_release WHERE slot = ? AND state = 'rolled_back')"
        " ORDER BY release DESC LIMIT 1",
        (slot, current.release if current else -1, current.sha256 if current else "", slot)).fetchone()
    return _row(row) if row else None


def downloading(conn: sqlite3.Connection) -> list[ModelReleaseRow]:
    found = conn.execute(f"SELECT {_COLUMNS} FROM model_release WHERE state = 'downloading'"
                         " ORDER BY slot, release").fetchall()
    return [_row(r) for r in found]


def referenced_paths(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT path FROM model_release WHERE path IS NOT NULL")}


def bundled_version(slot: str) -> str:
    # The kiosk ships a live and a still segmenter, and the full-frame model (the stills' fallback where no hand is
    # found), though the full-frame slot's releases are not run yet.
    if slot == "full_frame":
        return bundled_full_frame_version()
    return bundled_model_version(slot) if slot in RUN_SLOTS else NO_BUNDLED_MODEL


def slot_reports(conn: sqlite3.Connection) -> dict[str, ModelSlotReport]:
    """Each slot HQ has offered a release for: the version running in it now (the active release's, else the
    bundled model's), and the state of its newest release with why. A slot never offered one is left out."""
    reports: dict[str, ModelSlotReport] = {}
    for slot in SLOTS:
        found = rows(conn, slot)
        if not found:
            continue
        newest = found[0]
        running = active(conn, slot)
        # The newest release re-signed over the running bytes is what runs: HQ counts it as arrived.
        state = "active" if running is not None and newest.sha256 == running.sha256 else newest.state
        report = {"version": running.version if running else bundled_version(slot), "state": state,
                  "detail": newest.detail, "at": newest.updated_at, "release": newest.release}
        reports[slot] = cast(ModelSlotReport, report)
    return reports
