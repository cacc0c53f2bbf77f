"""A full disk for the task engine, the real way SQLite meets one: its page cap (`PRAGMA max_page_count`) makes
every write that needs a new page fail with SQLITE_FULL. The cap is per connection, and the engine opens one per
thread, so it is set on every connection the engine has and on each it opens until the disk is freed."""

from __future__ import annotations

import sqlite3

from nailmirror_desktop.core.tasks import TaskEngine

UNCAPPED = 1073741823


def _cap(conn: sqlite3.Connection) -> None:
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")


def fill_disk(engine: TaskEngine) -> None:
    engine._on_connect = _cap
    for conn in list(engine._connections):
        _cap(conn)


def free_disk(engine: TaskEngine) -> None:
    engine._on_connect = None
    for conn in list(engine._connections):
        conn.execute(f"PRAGMA max_page_count = {UNCAPPED}")
