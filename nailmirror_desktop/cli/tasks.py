"""`nailmirror tasks …`: look at and act on the task queue (list, show, stats, replay, ignore, resolve, cancel).

With --json every command prints machine-readable JSON (times are ISO-8601 UTC). Exit status: 0 done,
1 not found or not allowed in the task's state (the code is printed on stderr), 2 usage, 4 the database (or data
directory) is unusable — one line naming it, the problem and the fix (see nailmirror_desktop/cli/__init__.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nailmirror_desktop.core.tasks import TaskEngine

Action = Callable[["TaskEngine", argparse.Namespace], int]

STATUSES = ("PENDING", "PROCESSING", "SUCCESS", "FAILED", "CANCELED", "DEAD")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("tasks", help="inspect and manage background tasks")
    parser.add_argument("--db", type=Path, default=None, help="database file (default: the kiosk's)")
    actions = parser.add_subparsers(dest="tasks_action", metavar="ACTION")

    listing = actions.add_parser("list", help="list tasks, newest first")
    listing.add_argument("--status", choices=STATUSES, action="append", help="repeat for several")
    listing.add_argument("--type", dest="task_type")
    listing.add_argument("--source", dest="request_source")
    listing.add_argument("--dead-letter-state", choices=("OPEN", "IGNORED", "RESOLVED"))
    listing.add_argument("--error-code", dest="last_error_code")
    listing.add_argument("--limit", type=int, default=100)
    listing.add_argument("--json", action="store_true")

    show = actions.add_parser("show", help="one task with its history")
    show.add_argument("task_no")
    show.add_argument("--json", action="store_true")

    stats = actions.add_parser("stats", help="counts per state and type, dead letters, backlog")
    stats.add_argument("--json", action="store_true")

    for name, help_text in (("replay", "run a dead letter again with a fresh attempt budget"),
                            ("ignore", "mark a dead letter as ignored"),
                            ("resolve", "mark a dead letter as resolved by hand"),
                            ("cancel", "cancel a queued task, or ask a running one to stop")):
        action = actions.add_parser(name, help=help_text)
        action.add_argument("task_no")
        action.add_argument("--json", action="store_true")
        if name == "replay":
            action.add_argument("--max-attempts", type=int, default=None)
        if name in ("ignore", "resolve"):
            action.add_argument("--note", default=None)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from nailmirror_desktop.app.services import open_task_engine
    from nailmirror_desktop.core.tasks import InvalidTransition, TaskError, TaskNotFound

    if not args.tasks_action:
        print("usage: nailmirror tasks {list,show,stats,replay,ignore,resolve,cancel} …", file=sys.stderr)
        return 2
    with open_task_engine(db_path=args.db, generation=False) as engine:
        try:
            return _ACTIONS[args.tasks_action](engine, args)
        except TaskNotFound as exc:
            print(f"TASK_NOT_FOUND {exc.args[0]}", file=sys.stderr)
            return 1
        except InvalidTransition as exc:
            print(str(exc), file=sys.stderr)
            return 1
        except TaskError as exc:  # e.g. a paid dead letter's replay the credits cannot pay (INSUFFICIENT_CREDITS)
            print(f"error: {exc.code} ({exc.message})", file=sys.stderr)
            return 1


def _list(engine: TaskEngine, args: argparse.Namespace) -> int:
    tasks = engine.list_tasks(args.status, args.task_type, limit=args.limit, request_source=args.request_source,
                        dead_letter_state=args.dead_letter_state, last_error_code=args.last_error_code)
    if args.json:
        print(json.dumps([t.to_json() for t in tasks], ensure_ascii=False, indent=2))
        return 0
    header = f"{'TASK_NO':24} {'TYPE':20} {'STATUS':10} {'PRI':>3} {'TRY':>5} {'NEXT_RETRY (UTC)':19} LAST_ERROR"
    print(header)
    for task in tasks:
        data = task.to_json()
        tries = f"{task.attempt_count}/{task.max_attempts}"
        next_retry = (data["next_retry_time"] or "")[:19]
        print(f"{task.task_no:24} {task.task_type[:20]:20} {task.status.value:10} {task.priority:>3} {tries:>5} "
              f"{next_retry:19} {task.last_error_code or ''}")
    return 0


def _show(engine: TaskEngine, args: argparse.Namespace) -> int:
    from nailmirror_desktop.core.tasks import TaskNotFound

    task = engine.get(args.task_no)
    if task is None:
        raise TaskNotFound(args.task_no)
    history = engine.history(args.task_no)
    if args.json:
        print(json.dumps({**task.to_json(), "history": [h.to_json() for h in history]}, ensure_ascii=False, indent=2))
        return 0
    for key, value in task.to_json().items():
        if key not in ("payload", "result"):
            print(f"{key:20} {value if value is not None else ''}")
    print(f"{'payload':20} {json.dumps(task.payload, ensure_ascii=False)}")
    print(f"{'result':20} {json.dumps(task.result, ensure_ascii=False)}")
    for entry in history:
        data = entry.to_json()
        print(f"  {data['at']} {entry.kind:16} attempt {entry.attempt} {entry.error_code or ''} "
              f"{entry.error_message or ''}")
    return 0


def _stats(engine: TaskEngine, args: argparse.Namespace) -> int:
    stats = engine.stats()
    if args.json:
        print(json.dumps(stats, ensure_ascii=False, indent=2))
        return 0
    print(f"total {stats['total']}, open dead letters {stats['open_dead_letters']}")
    for status, count in stats["by_status"].items():
        print(f"  {status:10} {count}")
    for task_type, counts in stats["by_type"].items():
        print(f"  {task_type}: " + ", ".join(f"{s} {n}" for s, n in counts.items()))
    return 0


def _act(method: str) -> Action:
    def action(engine: TaskEngine, args: argparse.Namespace) -> int:
        options: dict[str, Any] = {}
        if method == "replay" and args.max_attempts:
            options["max_attempts"] = args.max_attempts
        if method in ("ignore", "resolve"):
            options["note"] = args.note
        task = getattr(engine, method)(args.task_no, **options)
        if args.json:
            print(json.dumps(task.to_json(), ensure_ascii=False, indent=2))
        else:
            print(f"{task.task_no} {task.status.value}"
                  + (f" ({task.dead_letter_state})" if task.dead_letter_state else "")
                  + (" cancel requested" if task.cancel_requested and task.status.value == "PROCESSING" else ""))
        return 0

    return action


_ACTIONS: dict[str, Action] = {
    "list": _list, "show": _show, "stats": _stats,
    "replay": _act("replay"), "ignore": _act("ignore"), "resolve": _act("resolve"), "cancel": _act("cancel"),
}
