"""A worker process for the crash and concurrency tests (run as `python tests/task_worker_proc.py DB …`).

It registers one handler, WORK, that follows the engine's idempotent-write pattern:
  1. log the start in `execution` (append-only: shows every time a handler really ran),
  2. insert the business row keyed by task_no with ON CONFLICT DO NOTHING (the side effect),
  3. return the business row's id as the result.
With --crash-prob P it SIGKILLs itself with probability P right after the claim (before the side effect) and
again with probability P after the side effect (before the engine records completion).
Prints "ready" and, with --wait-for FILE, waits for FILE to exist before draining (so two processes start
together). Exits 0 after the queue is drained.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine  # noqa: E402

BUSINESS_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS execution (id INTEGER PRIMARY KEY, task_no TEXT NOT NULL, pid INTEGER NOT NULL,"
    " attempt INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS biz_row (id INTEGER PRIMARY KEY, task_no TEXT NOT NULL UNIQUE, value TEXT NOT NULL)",
)


def ensure_business_tables(conn) -> None:
    for statement in BUSINESS_SCHEMA:
        conn.execute(statement)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("db", type=Path)
    parser.add_argument("--crash-prob", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sleep-ms", type=float, default=0.0)
    parser.add_argument("--wait-for", type=Path, default=None)
    parser.add_argument("--timeout-s", type=float, default=60.0)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    engine = TaskEngine(args.db, config=EngineConfig(pending_limit_per_source=None, lease_s=60.0, idle_poll_s=0.02))
    ensure_business_tables(engine.connection())

    def crash_maybe() -> None:
        if args.crash_prob and rng.random() < args.crash_prob:
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGKILL)

    def work(ctx):
        with ctx.write_transaction() as conn:
            conn.execute("INSERT INTO execution (task_no, pid, attempt) VALUES (?, ?, ?)",
                         (ctx.task_no, os.getpid(), ctx.task.attempt_count))
        crash_maybe()  # between claim and complete, before the side effect
        if args.sleep_ms:
            time.sleep(args.sleep_ms / 1000)
        with ctx.write_transaction() as conn:
            conn.execute("INSERT INTO biz_row (task_no, value) VALUES (?, ?) ON CONFLICT (task_no) DO NOTHING",
                         (ctx.task_no, ctx.payload.get("value", "")))
        crash_maybe()  # after the side effect, before the engine records completion
        row = ctx.connection.execute("SELECT id FROM biz_row WHERE task_no = ?", (ctx.task_no,)).fetchone()
        return {"biz_row_id": row[0]}

    engine.register_handler("WORK", work, concurrency=1)
    print("ready", flush=True)
    if args.wait_for is not None:
        deadline = time.monotonic() + args.timeout_s
        while not args.wait_for.exists() and time.monotonic() < deadline:
            time.sleep(0.005)
    ran = engine.run_until_idle(timeout_s=args.timeout_s)
    print(f"ran {ran}", flush=True)
    engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
