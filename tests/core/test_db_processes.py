"""Two processes on one database file: opening a connection in one never costs the other a committed write.

POSIX record locks belong to the process, and closing any descriptor of a file drops them all. A process that
opened and closed the database file itself while its connections were live left another process believing it
was the last connection: that one checkpointed and deleted the -wal the first was still writing into, and the
first's later commits were lost (sqlite.org/howtocorrupt.html §2.2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nailmirror_desktop.core.db import connect, open_database
from nailmirror_desktop.core.paths import database_path

ROOT = Path(__file__).resolve().parents[2]
HOLDER = ROOT / "tests" / "support" / "engine_holder_proc.py"
CLI = [sys.executable, "-c", "import sys; from nailmirror_desktop.cli import main; sys.exit(main())"]

# Another process opens the database, reads, and closes: the last connection out checkpoints and deletes the -wal.
VISIT = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]);"
         " c.execute('SELECT count(*) FROM sqlite_master'); c.close()")
COUNT = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]);"
         " print(c.execute('SELECT count(*) FROM probe').fetchone()[0]); c.close()")


def run_python(code: str, *args: str) -> str:
    return subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True,
                          timeout=60).stdout.strip()


def test_a_second_open_in_this_process_keeps_the_first_connections_locks(tmp_path):
    path = tmp_path / "locks.db"
    wal = path.with_name(path.name + "-wal")
    held = open_database(path)
    held.execute("CREATE TABLE probe (x INTEGER)")
    held.execute("INSERT INTO probe VALUES (1)")
    second = open_database(path)  # the kiosk opens one connection per thread, all the time
    try:
        run_python(VISIT, str(path))  # a CLI command comes and goes
        assert wal.exists(), "another process deleted the -wal under this process's live connection"
        held.execute("INSERT INTO probe VALUES (2)")  # committed (autocommit)
        assert run_python(COUNT, str(path)) == "2", "a committed row is invisible to a fresh process"
    finally:
        second.close()
        held.close()
    assert run_python(COUNT, str(path)) == "2"


def test_a_new_database_file_is_private_whatever_the_umask(tmp_path):
    old = os.umask(0o277)  # would leave the owner read-only: SQLite could not write its own file
    try:
        conn = open_database(tmp_path / "umask.db")
    finally:
        os.umask(old)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    assert (tmp_path / "umask.db").stat().st_mode & 0o777 == 0o600


def test_an_existing_database_is_made_private_without_being_opened_by_hand(tmp_path):
    path = tmp_path / "loose.db"
    connect(path).close()
    path.chmod(0o644)
    conn = open_database(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.with_name("loose.db-wal").stat().st_mode & 0o777 == 0o600
    conn.close()


@pytest.mark.slow
def test_cli_commands_beside_a_busy_engine_lose_none_of_its_writes(tmp_path):
    """A kiosk-like process submits from fresh threads without pause while CLI commands (queue a generation,
    list the tasks) come and go: every task either side saw committed is in the database afterwards, the -wal
    is never removed under the holder's connections, and the file passes integrity_check."""
    db = database_path()
    stop = tmp_path / "stop"
    holder = subprocess.Popen([sys.executable, str(HOLDER), str(db), str(stop)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready"
        cli_tasks = []
        for i in range(4):
            queued = subprocess.run([*CLI, "generate", f"奶白 {i}",
                                     "--provider", "offline", "--json"],
                                    capture_output=True, text=True, timeout=120, cwd=ROOT)
            assert queued.returncode == 0, queued.stderr[-2000:]
            cli_tasks.append(json.loads(queued.stdout)["task_no"])
            listed = subprocess.run([*CLI, "tasks", "list", "--json"],
                                    capture_output=True, text=True, timeout=120, cwd=ROOT)
            assert listed.returncode == 0, listed.stderr[-2000:]
        stop.touch()
        out, err = holder.communicate(timeout=60)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    assert holder.returncode == 0, err[-2000:]
    lines = out.splitlines()
    summary = json.loads(lines[-1])
    assert summary["wal_problems"] == []
    holder_tasks = [line.split()[1] for line in lines if line.startswith("submitted ")]
    # A submit that raised in the holder prints no line but is counted: its stderr says why.
    assert len(holder_tasks) == summary["submitted"] >= 20, err[-3000:]

    conn = connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = {row[0] for row in conn.execute("SELECT 'T' || printf('%016x', id) FROM task")}
    finally:
        conn.close()
    missing = [t for t in holder_tasks + cli_tasks if t not in stored]
    assert not missing, f"{len(missing)} committed tasks lost, e.g. {missing[:3]}"
