"""A kiosk-like process for the cross-process tests: one TaskEngine, several connections, submitting all the while.

Run as `python engine_holder_proc.py DB STOP_FILE`. Until STOP_FILE exists it submits WORK tasks, each from a
fresh thread (every new thread opens its own connection through core.db.open_database, as the kiosk's worker and
GUI threads do) and one from the main thread's connection, printing `submitted TASK_NO` after each commit. It
watches the -wal file: it must exist with the same inode for as long as this process holds a connection.
At the end it prints one JSON line: {"submitted": N, "wal_problems": [...]} and exits 0.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine  # noqa: E402


def main() -> int:
    db, stop = Path(sys.argv[1]), Path(sys.argv[2])
    wal = db.with_name(db.name + "-wal")
    engine = TaskEngine(db, config=EngineConfig(pending_limit_per_source=None))
    engine.submit("WORK", {"n": -1})  # the -wal exists from the first commit on
    first_inode = os.stat(wal).st_ino
    problems: list[str] = []
    submitted = 0
    print("ready", flush=True)

    def submit_from(label: str) -> None:
        task = engine.submit("WORK", {"from": label})
        print(f"submitted {task.task_no}", flush=True)

    n = 0
    while not stop.exists():
        thread = threading.Thread(target=submit_from, args=(f"thread-{n}",))
        thread.start()
        thread.join()
        submit_from(f"main-{n}")
        submitted += 2
        n += 1
        try:
            inode = os.stat(wal).st_ino
        except FileNotFoundError:
            problems.append(f"the -wal was removed under a live connection after {submitted} submits")
        else:
            if inode != first_inode:
                problems.append(f"the -wal was replaced under a live connection after {submitted} submits")
        time.sleep(0.01)
    engine.close()
    print(json.dumps({"submitted": submitted, "wal_problems": problems[:5]}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
