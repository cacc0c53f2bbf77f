"""The kiosk's captures waiting for HQ: rows in `capture` (migrations/0015_capture.sql) and their PNGs under
data_dir()/captures, owner-only.

Write order: the file, then the row (a crash leaves an unnamed file, collected by `collect_orphans`); delete:
the row, then the file. The disk quota (KioskConfig.capture_quota_mb) is applied after each new capture: the
oldest are dropped until the rest fit, each with a log line. A withdrawal typed in by staff deletes the capture
here at once (if this kiosk holds it) and queues the code for HQ (`capture_withdrawal`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.paths import data_dir, private_dir, write_private_file
from nailmirror_protocol import paths

log = logging.getLogger(__name__)

# The version of the consent sentence shown (customer and staff): bumped whenever its words change, so every
# capture's record says which words she agreed to.
CONSENT_TEXT_VERSION = "capture-consent-2026-12-1"
ORPHAN_AGE_S = 3_600
ConsentBy = Literal["customer", "staff"]


class NoStaffConsent(Exception):
    """Staff asked to capture their own hands before consenting once (`record_staff_consent`)."""


@dataclass(frozen=True)
class Consent:
    by: ConsentBy
    at: str  # UTC ISO 8601
    text_version: str = CONSENT_TEXT_VERSION


@dataclass(frozen=True)
class Capture:
    code: str
    image: str  # file name in captures_dir()
    image_sha256: str
    size_bytes: int
    taken_at: str
    consent: Consent
    model_version: str
    facts: dict[str, Any]
    state: str
    last_error: str | None


@dataclass(frozen=True)
class CaptureOutcome:
    """code: the capture's code (None when nothing was kept); refused: why nothing was kept (no_consent,
    no_hands, face_remains); faces_blurred: faces found and blurred in the kept image."""

    code: str | None
    refused: str | None = None
    faces_blurred: int = 0


def captures_dir() -> Path:
    return private_dir(data_dir() / "captures")


def utc_text(now_s: float) -> str:
    moment = datetime.fromtimestamp(now_s, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def new_code() -> str:
    """8 characters of paths.CAPTURE_CODE_ALPHABET (31^8 ≈ 8.5e11: a chain never repeats one by chance)."""
    return "".join(secrets.choice(paths.CAPTURE_CODE_ALPHABET) for _ in range(8))


def save(conn: sqlite3.Connection, png: bytes, consent: Consent, facts: dict[str, Any], model_version: str,
         now_s: float, quota_bytes: int) -> Capture:
    """Keep one consented capture (its PNG already cropped, faces blurred, no metadata) and apply the quota.
    Raises ValueError for an empty image or a consent record without a version."""
    if not png or not consent.text_version:
        raise ValueError("a capture needs an image and a consent record")
    code = new_code()
    name = f"{code}.png"
    target = captures_dir() / name
    partial = target.with_suffix(".part")
    write_private_file(partial, png)
    os.replace(partial, target)
    sha256 = hashlib.sha256(png).hexdigest()
    with write_transaction(conn):
        conn.execute(
            "INSERT INTO capture (code, image, image_sha256, size_bytes, taken_at, consent_by, consent_at,"
            " consent_text_version, model_version, facts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (code, name, sha256, len(png), utc_text(now_s), consent.by, consent.at, consent.text_version,
             model_version, json.dumps(facts, ensure_ascii=False, sort_keys=True)))
    apply_quota(conn, quota_bytes)
    found = get(conn, code)
    if found is None:  # the quota dropped the new one itself: it alone is larger than the quota
        raise ValueError(f"a capture of {len(png)} bytes is larger than the whole quota ({quota_bytes} bytes)")
    return found


def apply_quota(conn: sqlite3.Connection, quota_bytes: int) -> list[str]:
    """Drop the oldest captures until the rest take at most `quota_bytes`; the codes dropped (each logged)."""
    rows = conn.execute("SELECT code, size_bytes, taken_at FROM capture ORDER BY taken_at DESC, code").fetchall()
    kept = 0
    dropped = []
    for row in rows:
        kept += int(row["size_bytes"])
        if kept > quota_bytes:
            dropped.append(str(row["code"]))
    for code in dropped:
        log.warning("capture %s dropped: the captures waiting for HQ passed the disk quota (%d bytes), oldest "
                    "first", paths.show_capture_code(code), quota_bytes)
        delete(conn, code)
    return dropped


def get(conn: sqlite3.Connection, code: str) -> Capture | None:
    row = conn.execute("SELECT * FROM capture WHERE code = ?", (code,)).fetchone()
    return None if row is None else _capture(row)


def queued(conn: sqlite3.Connection) -> list[Capture]:
    return [_capture(r) for r in conn.execute("SELECT * FROM capture WHERE state = 'QUEUED' ORDER BY taken_at")]


def read_image(capture: Capture) -> bytes:
    return (captures_dir() / capture.image).read_bytes()


def delete(conn: sqlite3.Connection, code: str) -> bool:
    """Delete the capture's row, then its file; whether there was one."""
    row = conn.execute("SELECT image FROM capture WHERE code = ?", (code,)).fetchone()
    if row is None:
        return False
    with write_transaction(conn):
        conn.execute("DELETE FROM capture WHERE code = ?", (code,))
    _unlink(captures_dir() / str(row["image"]))
    return True


def note_error(conn: sqlite3.Connection, code: str, message: str) -> None:
    conn.execute("UPDATE capture SET last_error = ? WHERE code = ?", (message[:300], code))


def collect_orphans(conn: sqlite3.Connection, now_s: float) -> int:
    """Delete files under captures_dir() no row names, older than an hour (a crash between the file and the row,
    or between a row's delete and its file's); how many."""
    named = {str(r[0]) for r in conn.execute("SELECT image FROM capture")}
    removed = 0
    for path in [*captures_dir().glob("*.png"), *captures_dir().glob("*.part")]:
        if path.name in named:
            continue
        try:
            if now_s - path.stat().st_mtime > ORPHAN_AGE_S:
                path.unlink()
                removed += 1
        except FileNotFoundError:
            continue
    return removed


# ---- withdrawal ----------------------------------------------------------------------------------------------

def withdraw(conn: sqlite3.Connection, code_text: str, now_s: float) -> tuple[str, bool]:
    """Staff typed the customer's capture code: delete it here if this kiosk holds it, and queue the withdrawal
    for HQ. (code, whether this kiosk held it); ValueError (one line) for text that is no capture code."""
    code = paths.normalise_capture_code(code_text)
    held = delete(conn, code)
    with write_transaction(conn):
        conn.execute("INSERT INTO capture_withdrawal (code, requested_at) VALUES (?, ?)"
                     " ON CONFLICT (code) DO UPDATE SET sent_at = NULL", (code, utc_text(now_s)))
    return code, held


def pending_withdrawals(conn: sqlite3.Connection) -> list[str]:
    return [str(r[0]) for r in conn.execute(
        "SELECT code FROM capture_withdrawal WHERE sent_at IS NULL ORDER BY requested_at")]


def mark_withdrawal_sent(conn: sqlite3.Connection, code: str, now_s: float) -> None:
    conn.execute("UPDATE capture_withdrawal SET sent_at = ? WHERE code = ?", (utc_text(now_s), code))


# ---- staff's own hands -----------------------------------------------------------------------------------------

def record_staff_consent(conn: sqlite3.Connection, now_s: float) -> Consent:
    """Staff consent once to captures of their own hands; every staff capture cites this record."""
    with write_transaction(conn):
        conn.execute("INSERT INTO capture_staff_consent (id, consent_at, text_version) VALUES (1, ?, ?)"
                     " ON CONFLICT (id) DO UPDATE SET consent_at = excluded.consent_at,"
                     " text_version = excluded.text_version", (utc_text(now_s), CONSENT_TEXT_VERSION))
    return require_staff_consent(conn)


def staff_consent(conn: sqlite3.Connection) -> Consent | None:
    row = conn.execute("SELECT consent_at, text_version FROM capture_staff_consent WHERE id = 1").fetchone()
    return None if row is None else Consent("staff", str(row[0]), str(row[1]))


def require_staff_consent(conn: sqlite3.Connection) -> Consent:
    found = staff_consent(conn)
    if found is None:
        raise NoStaffConsent("staff have not consented to captures of their own hands")
    return found


def _capture(row: sqlite3.Row) -> Capture:
    consent = Consent(row["consent_by"], row["consent_at"], row["consent_text_version"])
    return Capture(row["code"], row["image"], row["image_sha256"], int(row["size_bytes"]), row["taken_at"], consent,
                   row["model_version"], json.loads(row["facts"]), row["state"], row["last_error"])


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
