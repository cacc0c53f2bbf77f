"""`nailmirror generate "PROMPT" [--provider P] [--variations N] [--wait] [--json]`: queue a STYLE_GENERATION task.

--variations N (1-4, default 1) asks the provider for N images in one request. A paid provider pre-deducts
N × its price per image when the task is queued (refused with INSUFFICIENT_CREDITS when the balance cannot pay
all N: nothing queued), and the task's end confirms the images that arrived and refunds the rest (§14). With
--json the task is printed with `variations` ({"requested", "delivered"}: delivered is null until it ends) and
`credit` (its ledger charge: amount, confirmed, refunded, status; null for a free generation).

Without --wait the task is queued for the kiosk's workers and its task number printed. With --wait this
process runs the engine until that task ends (retries and polling included) and prints the final task as
`tasks show --json` does (`Task.to_json()`); a successful task's result names the new style's code.

--timeout holds at any moment, mid-request included: when it runs out the task is canceled — queued, it is
CANCELED at once; running, its provider request is cut there and then (a paid request is not sent again) and the
task ends CANCELED with last_error_code WAIT_TIMEOUT and the reason in last_error_message.

Exit status: 0 queued, or finished SUCCESS; 1 the task ended DEAD or CANCELED (by someone else), or the request
was refused (unknown provider, backlog full), with the code on stderr; 3 --timeout ran out and the task was
canceled (WAIT_TIMEOUT on stderr); 2 bad command line (argparse).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nailmirror_desktop.core.credits.ledger import Entry
    from nailmirror_desktop.core.tasks import Task, TaskEngine


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("generate", help="generate a new AI style from a description")
    parser.add_argument("prompt", help='what the customer asked for, e.g. "奶白色底胶、贝壳碎片、无名指跳色"')
    parser.add_argument("--provider", choices=["offline", "openai", "dashscope"],
                        help="defaults to NAILMIRROR_PROVIDER or config.json, else offline")
    parser.add_argument("--seed", type=int, help="fixes the offline renderer's randomness (default: from the prompt)")
    parser.add_argument("--variations", type=_variations, default=1,
                        help="images asked for in one request, 1 to 4 (a paid provider charges each; those that "
                             "do not arrive are refunded)")
    parser.add_argument("--wait", action="store_true", help="run the task here until it ends")
    parser.add_argument("--timeout", type=_positive_seconds, default=900.0,
                        help="seconds --wait may take, mid-request included; then the task is canceled and the exit "
                             "status is 3 (default 900)")
    parser.add_argument("--json", action="store_true", help="print the task as JSON")
    parser.set_defaults(handler=_generate)


def _generate(args: argparse.Namespace) -> int:
    from nailmirror_desktop.app.services import open_task_engine
    from nailmirror_desktop.core.credits.ledger import last_charge
    from nailmirror_desktop.core.generation.flow import submit_generation
    from nailmirror_desktop.core.generation.provider_config import ConfigError, load_provider_config
    from nailmirror_desktop.core.tasks import TaskError

    timed_out = threading.Event()
    try:
        config = load_provider_config()
        provider = args.provider or config.default_provider
        with open_task_engine(config) as engine:
            task = submit_generation(engine, args.prompt, provider, seed=args.seed, request_source="cli",
                                     variations=args.variations)
            if args.wait:
                task = _run_until_finished(engine, task.task_no, args.timeout, timed_out)
            charge = last_charge(engine.connection(), task.task_no)
    except (ConfigError, TaskError) as exc:
        print(f"error: {exc.code}", file=sys.stderr)
        return 1
    _print_task(task, as_json=args.json, variations=args.variations, charge=charge)
    if not args.wait:
        return 0
    if timed_out.is_set() and task.status.value != "SUCCESS":
        print(f"error: WAIT_TIMEOUT (task {task.task_no} is {task.status.value}: {_timeout_reason(args.timeout)})",
              file=sys.stderr)
        return 3
    return 0 if task.status.value == "SUCCESS" else 1


def _variations(text: str) -> int:
    from nailmirror_desktop.core.generation.flow import MAX_VARIATIONS

    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= MAX_VARIATIONS:
        raise argparse.ArgumentTypeError(f"variations are 1 to {MAX_VARIATIONS}, not {text}")
    return value


def _positive_seconds(text: str) -> float:
    value = float(text)
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {text}")
    return value


def _timeout_reason(timeout_s: float) -> str:
    return f"generate --wait --timeout {timeout_s:g} s ran out"


def _run_until_finished(engine: TaskEngine, task_no: str, timeout_s: float, timed_out: threading.Event) -> Task:
    """Run due work on this thread until `task_no` is finished, sleeping between retries. At the timeout a timer
    cancels the task: the cancel is committed first, then the running attempt's stop signal cuts its request."""
    from nailmirror_desktop.core.generation.provider_port import request_stop
    from nailmirror_desktop.core.tasks import InvalidTransition, TaskNotFound

    def stop_task() -> None:
        timed_out.set()
        try:
            engine.cancel(task_no)
        except (InvalidTransition, TaskNotFound):
            return  # finished meanwhile
        request_stop(task_no, "WAIT_TIMEOUT", _timeout_reason(timeout_s))

    timer = threading.Timer(timeout_s, stop_task)
    timer.daemon = True
    deadline = time.monotonic() + timeout_s
    timer.start()
    try:
        while True:
            engine.run_due()
            task = engine.get(task_no)
            if task is None:
                raise LookupError(task_no)  # the row was ours a moment ago: only a deleted database loses it
            remaining = deadline - time.monotonic()
            if task.status.is_terminal:
                return task
            if remaining <= 0:
                timer.join()  # the cancel is committed before the task is read for the last time
                return engine.get(task_no) or task
            engine.clock.sleep(min(engine.seconds_until_next_work(), remaining))
    finally:
        timer.cancel()


def _print_task(task: Task, *, as_json: bool, variations: int, charge: Entry | None) -> None:
    if as_json:
        document = task.to_json()
        delivered = None
        if task.status.value == "SUCCESS":
            got = (task.result or {}).get("delivered")
            delivered = got if isinstance(got, int) else variations  # a result without it delivered all
        elif task.status.is_terminal:
            delivered = 0
        document["variations"] = {"requested": variations, "delivered": delivered}
        document["credit"] = None if charge is None else {
            "entry_id": charge.id, "status": charge.status, "amount": charge.amount,
            "unit_price": charge.unit_price, "confirmed": charge.confirmed_amount,
            "refunded": charge.refunded_amount, "funded": charge.funded, "note": charge.note}
        print(json.dumps(document, ensure_ascii=False, indent=2))
        return
    line = f"{task.task_no} {task.status.value}"
    if task.result and task.result.get("style_code"):
        line += f" style {task.result['style_code']}"
    elif task.last_error_code:
        line += f" {task.last_error_class}/{task.last_error_code}"
    print(line)
