"""`nailmirror generate "PROMPT" [--provider P] [--wait] [--json]`: queue a STYLE_GENERATION task.

Without --wait the task is queued for the kiosk's workers and its task number printed. With --wait this
process runs the engine until that task ends (retries and polling included) and prints the final task as
`tasks show --json` does (`Task.to_json()`); a successful task's result names the new style's code.

Exit status: 0 queued, or finished SUCCESS; 1 the task ended DEAD or CANCELED, or the request was refused
(unknown provider, backlog full), with the code on stderr; 3 still unfinished when --timeout ran out;
2 bad command line (argparse).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nailmirror_desktop.core.tasks import Task, TaskEngine


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("generate", help="generate a new AI style from a description")
    parser.add_argument("prompt", help='what the customer asked for, e.g. "奶白色底胶、贝壳碎片、无名指跳色"')
    parser.add_argument("--provider", choices=["offline", "openai", "dashscope"],
                        help="defaults to NAILMIRROR_PROVIDER or config.json, else offline")
    parser.add_argument("--seed", type=int, help="fixes the offline renderer's randomness (default: from the prompt)")
    parser.add_argument("--wait", action="store_true", help="run the task here until it ends")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds --wait may take (default 900)")
    parser.add_argument("--json", action="store_true", help="print the task as JSON")
    parser.set_defaults(handler=_generate)


def _generate(args: argparse.Namespace) -> int:
    from nailmirror_desktop.app.services import open_task_engine
    from nailmirror_desktop.core.generation.flow import submit_generation
    from nailmirror_desktop.core.generation.provider_config import ConfigError, load_provider_config
    from nailmirror_desktop.core.tasks import TaskError

    try:
        config = load_provider_config()
        provider = args.provider or config.default_provider
        with open_task_engine(config) as engine:
            task = submit_generation(engine, args.prompt, provider, seed=args.seed, request_source="cli")
            if args.wait:
                task = _run_until_finished(engine, task.task_no, args.timeout)
    except (ConfigError, TaskError) as exc:
        print(f"error: {exc.code}", file=sys.stderr)
        return 1
    _print_task(task, as_json=args.json)
    if not args.wait:
        return 0
    if not task.status.is_terminal:
        print(f"error: TIMEOUT (task {task.task_no} is {task.status.value})", file=sys.stderr)
        return 3
    return 0 if task.status.value == "SUCCESS" else 1


def _run_until_finished(engine: TaskEngine, task_no: str, timeout_s: float) -> Task:
    """Run due work on this thread until `task_no` is finished (or the timeout), sleeping between retries."""
    deadline = time.monotonic() + timeout_s
    while True:
        engine.run_due()
        task = engine.get(task_no)
        if task is None:
            raise LookupError(task_no)  # the row was ours a moment ago: only a deleted database loses it
        remaining = deadline - time.monotonic()
        if task.status.is_terminal or remaining <= 0:
            return task
        engine.clock.sleep(min(engine.seconds_until_next_work(), remaining))


def _print_task(task: Task, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(task.to_json(), ensure_ascii=False, indent=2))
        return
    line = f"{task.task_no} {task.status.value}"
    if task.result and task.result.get("style_code"):
        line += f" style {task.result['style_code']}"
    elif task.last_error_code:
        line += f" {task.last_error_class}/{task.last_error_code}"
    print(line)
