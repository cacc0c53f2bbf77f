"""A customer's "I want this one" handed to the nail artist (issue #22 §3), without a photo of a screen.

The customer's choice becomes a row in `handoff_request` (migrations/0013_handoff_request.sql): the style as she
saw it (name, code, price) and a copy of her snapshot, under a number she is shown and says at the counter
("A012"). Staff list the open requests and mark each done. Numbers count per store day (the store's time zone):
A001…A999, then B001…; the counter survives a purge, so a number is never given twice in one day.

Retention: a request done, or made on an earlier store day, is deleted together with its photo copy by `purge`
(at start-up and after each customer's session). The photo copy lives in data_dir()/handoff, owner-only like the
snapshots it is copied from, and never leaves the kiosk. Files are the caller's (the UI copies the snapshot on a
worker, `copy_photo`); this module deletes them with their rows.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from nailmirror_desktop.core.credits.caps import time_zone
from nailmirror_desktop.core.db import write_transaction
from nailmirror_desktop.core.paths import PRIVATE_FILE_MODE, data_dir, private_dir

log = logging.getLogger(__name__)

NUMBERS_PER_LETTER = 999
PHOTO_SUFFIX = ".png"
ORPHAN_AGE_S = 3_600


@dataclass(frozen=True)
class HandoffRequest:
    """One request. price_minor: the store's price when she asked (None: none set); photo: the copy's file name
    in handoff_dir() (None: without a photo); created_at, done_at: UTC."""

    id: int
    number: str
    day: str
    style_code: str
    style_name: str
    style_name_en: str
    price_minor: int | None
    currency: str
    photo: str | None
    created_at: datetime
    done_at: datetime | None


def handoff_dir() -> Path:
    return private_dir(data_dir() / "handoff")


def request_number(seq: int) -> str:
    """The number a customer reads out: 1 → A001, 999 → A999, 1000 → B001 (Z999 and on wrap to A)."""
    if seq < 1:
        raise ValueError("seq starts at 1")
    letter = chr(ord("A") + (seq - 1) // NUMBERS_PER_LETTER % 26)
    return f"{letter}{(seq - 1) % NUMBERS_PER_LETTER + 1:03d}"


def store_day(now: datetime, zone_name: str) -> str:
    """The store's calendar day (YYYY-MM-DD) of the UTC instant `now`."""
    return now.astimezone(time_zone(zone_name)).date().isoformat()


def copy_photo(snapshot: Path) -> str:
    """Copy the customer's snapshot into handoff_dir() (owner-only); the copy's file name. Runs on a worker."""
    folder = handoff_dir()
    name = f"{uuid.uuid4().hex}{PHOTO_SUFFIX}"
    partial = folder / f"{name}.part"
    shutil.copyfile(snapshot, partial)
    os.chmod(partial, PRIVATE_FILE_MODE)
    os.replace(partial, folder / name)
    return name


class HandoffRequests:
    """The requests over one connection (the GUI thread's). `now` returns the UTC time (tests move it)."""

    def __init__(self, conn: sqlite3.Connection, now: Callable[[], datetime] | None = None,
                 folder: Callable[[], Path] = handoff_dir) -> None:
        self._conn = conn
        self._now = now or (lambda: datetime.now(UTC))
        self._folder = folder

    def create(self, *, style_code: str, style_name: str, style_name_en: str, price_minor: int | None,
               currency: str, photo: str | None, zone: str) -> HandoffRequest:
        """A new open request with the next number of the store's day (`zone`: its IANA time zone)."""
        if not style_code:
            raise ValueError("HANDOFF_NO_STYLE")
        now = self._now()
        day = store_day(now, zone)
        with write_transaction(self._conn) as conn:
            row = conn.execute("SELECT last_seq FROM handoff_counter WHERE day = ?", (day,)).fetchone()
            seq = (row[0] if row else 0) + 1
            conn.execute("INSERT INTO handoff_counter (day, last_seq) VALUES (?, ?) "
                         "ON CONFLICT (day) DO UPDATE SET last_seq = excluded.last_seq", (day, seq))
            cursor = conn.execute(
                "INSERT INTO handoff_request (day, seq, number, style_code, style_name, style_name_en, price_minor,"
                " currency, photo, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (day, seq, request_number(seq), style_code, style_name, style_name_en, price_minor, currency, photo,
                 _iso(now)))
            request_id = int(cursor.lastrowid or 0)
        return self.get(request_id)

    def get(self, request_id: int) -> HandoffRequest:
        row = self._conn.execute(f"SELECT {_COLUMNS} FROM handoff_request WHERE id = ?", (request_id,)).fetchone()
        if row is None:
            raise LookupError("HANDOFF_NOT_FOUND")
        return _request(row)

    def open_requests(self, zone: str) -> list[HandoffRequest]:
        """Today's requests not done yet, oldest first (the order customers asked in)."""
        day = store_day(self._now(), zone)
        rows = self._conn.execute(f"SELECT {_COLUMNS} FROM handoff_request WHERE day = ? AND done_at IS NULL "
                                  "ORDER BY seq", (day,)).fetchall()
        return [_request(row) for row in rows]

    def mark_done(self, request_id: int) -> bool:
        """Staff did it (or the customer left): False when it was done already or is gone."""
        with write_transaction(self._conn) as conn:
            changed = conn.execute("UPDATE handoff_request SET done_at = ? WHERE id = ? AND done_at IS NULL",
                                   (_iso(self._now()), request_id)).rowcount
        return changed == 1

    def purge(self, zone: str) -> list[str]:
        """Delete the requests done or of an earlier store day, and their photo copies; the numbers deleted. A
        photo that cannot be deleted is logged (its row goes all the same: the next purge of the folder's
        orphans takes it)."""
        day = store_day(self._now(), zone)
        with write_transaction(self._conn) as conn:
            rows = conn.execute("SELECT number, photo FROM handoff_request WHERE done_at IS NOT NULL OR day < ?",
                                (day,)).fetchall()
            conn.execute("DELETE FROM handoff_request WHERE done_at IS NOT NULL OR day < ?", (day,))
            conn.execute("DELETE FROM handoff_counter WHERE day < ?", (day,))
            kept = {r[0] for r in conn.execute("SELECT photo FROM handoff_request WHERE photo IS NOT NULL")}
        for _number, photo in rows:
            if photo:
                self._delete_photo(photo)
        self._delete_orphans(kept)
        if rows:
            log.info("handoff: purged %d request(s)", len(rows))
        return [number for number, _photo in rows]

    def photo_path(self, request: HandoffRequest) -> Path | None:
        return self.photo_file(request.photo) if request.photo else None

    def photo_file(self, name: str) -> Path:
        """A copy's path by its file name (never outside the folder)."""
        return self._folder() / Path(name).name

    def delete_photo(self, name: str) -> None:
        """A copy no request names (a customer who left while it was copied)."""
        self._delete_photo(name)

    def _delete_photo(self, name: str) -> None:
        try:
            self.photo_file(name).unlink(missing_ok=True)
        except OSError as exc:
            log.warning("handoff: photo %s not deleted: %s", name, exc)

    def _delete_orphans(self, kept: set[str]) -> None:
        """Copies no row names (a crash between the copy and the row), once an hour old: a younger one may be
        a copy whose row is being written now."""
        oldest = self._now().timestamp() - ORPHAN_AGE_S
        try:
            names = [e.name for e in os.scandir(self._folder())
                     if e.is_file(follow_symlinks=False) and e.stat().st_mtime < oldest]
        except OSError:
            return
        for name in names:
            if (name.endswith(PHOTO_SUFFIX) or name.endswith(".part")) and name not in kept:
                self._delete_photo(name)


_COLUMNS = ("id, number, day, style_code, style_name, style_name_en, price_minor, currency, photo, created_at,"
            " done_at")


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _request(row: tuple[object, ...]) -> HandoffRequest:
    (request_id, number, day, code, name, name_en, price, currency, photo, created, done) = row
    return HandoffRequest(int(str(request_id)), str(number), str(day), str(code), str(name), str(name_en),
                          None if price is None else int(str(price)), str(currency),
                          None if photo is None else str(photo), datetime.fromisoformat(str(created)),
                          None if done is None else datetime.fromisoformat(str(done)))
