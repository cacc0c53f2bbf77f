"""One way to open a write transaction that also nests.

Connections from `core.db.connect` are in autocommit mode, so a write needs an explicit transaction. Repository
methods call each other (an edit writes assets and then a status transition) and a caller such as the generation
flow may wrap a repository call together with its own writes; nesting therefore uses SAVEPOINTs inside the
outermost `BEGIN IMMEDIATE`, and only the outermost level commits.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

_savepoint_ids = itertools.count(1)


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Commit everything inside on success, undo all of it on any exception."""
    if conn.in_transaction:
        name = f"sp_{next(_savepoint_ids)}"
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield conn
        except BaseException:
            conn.execute(f"ROLLBACK TO {name}")
            conn.execute(f"RELEASE {name}")
            raise
        conn.execute(f"RELEASE {name}")
        return
    # IMMEDIATE takes the write lock up front, so a later write in the block cannot fail with SQLITE_BUSY
    # after reads were made under an older snapshot.
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
