"""A kiosk-like worker process for the credit crash tests (`python tests/support/credit_worker_proc.py …`).

It opens the kiosk's database (NAILMIRROR_HOME), registers STYLE_GENERATION with the credit hooks exactly as
app/services.py does (provider settings from the environment), optionally submits one generation, and runs the
engine until idle. `--kill-at` SIGKILLs the process at one of the issue's points:
  pre_deduct    right after the charge is written, inside the task's insert transaction (before its commit);
  after_answer  after the provider answered, before the style is written (in make_artwork);
mid-poll kills are sent by the test from outside while the worker polls an async provider.
Prints "submitted TASK_NO" after a submit, then "idle".
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nailmirror_desktop.app.services import credit_policy, generation_services, register_credits  # noqa: E402
from nailmirror_desktop.core.credits import ledger  # noqa: E402
from nailmirror_desktop.core.generation.flow import (  # noqa: E402
    STYLE_GENERATION,
    make_generation_handler,
    submit_generation,
)
from nailmirror_desktop.core.generation.provider_config import load_provider_config  # noqa: E402
from nailmirror_desktop.core.paths import database_path  # noqa: E402
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine  # noqa: E402


def die() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--submit", choices=("openai", "dashscope"), default=None)
    parser.add_argument("--kill-at", choices=("pre_deduct", "after_answer"), default=None)
    args = parser.parse_args()

    engine = TaskEngine(database_path(), config=EngineConfig(lease_s=60.0, retry_base_s=0.01, idle_poll_s=0.05))
    config = load_provider_config()
    services = generation_services(config, engine.clock)
    if args.kill_at == "after_answer":
        make_artwork = services.make_artwork

        def killing_artwork(result, design, seed):  # the provider has answered (and billed); nothing written yet
            die()
            return make_artwork(result, design, seed)

        services = replace(services, make_artwork=killing_artwork)
    if args.kill_at == "pre_deduct":
        pre_deduct = ledger.pre_deduct

        def killing_pre_deduct(*a, **kw):
            entry_id = pre_deduct(*a, **kw)
            die()  # the charge is written, the task row too, neither committed
            return entry_id

        ledger.pre_deduct = killing_pre_deduct
    engine.register_handler(STYLE_GENERATION, make_generation_handler(services))
    register_credits(engine, credit_policy(config))
    if args.submit:
        task = submit_generation(engine, "奶白色底胶、贝壳碎片、无名指跳色", args.submit, request_source="cli")
        print(f"submitted {task.task_no}", flush=True)
    engine.run_until_idle(timeout_s=60)
    print("idle", flush=True)
    engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
