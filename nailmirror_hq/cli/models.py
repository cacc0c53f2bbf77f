"""`nailmirror-hq model …`: train, evaluate and release nail models (issue #27 §3–§4).

    model train --dataset NAME --base-data DIR [--slot live] [--epochs N] [--seed S] [--inner 32] [--queue-only]
    model evaluate MODEL [--baseline MODEL] [--eval-data DIR] [--queue-only]
    model worker [--once] | jobs [--limit N]
    model list [--slot S] | show MODEL | publish MODEL --channel C | withdraw MODEL [--channel C ...]

train and evaluate put a job on HQ's queue (model_jobs.py) and, unless --queue-only, run it here at once and print
its outcome; `model worker` runs queued ones. A command line HQ cannot run (no trainer interpreter, base data that
is not a photo set, a model the gate has not let out) is one line and exit 2.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from nailmirror_hq import db, model_data, model_jobs, model_publishing, model_registry, model_work
from nailmirror_hq.cli.common import Command, CommandLineError, cli_actor
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.model_evaluation import evaluate_args
from nailmirror_hq.model_training import DEFAULT_EPOCHS, DEFAULT_SEED, train_args
from nailmirror_hq.service import HQ
from nailmirror_protocol.model_release import SLOTS

WORKER_POLL_S = 5.0


def register(sub: Any, command: Command) -> None:
    group = sub.add_parser("model", help="nail models: train, evaluate (the gate), list, publish, withdraw"
                           ).add_subparsers(dest="action", metavar="ACTION", required=True)
    train = command(group, "train", _train, "train a candidate on a dataset plus base data (a job)")
    train.add_argument("--dataset", required=True, help="a labelled dataset's name")
    train.add_argument("--base-data", required=True, type=Path, metavar="DIR",
                       help="photos trained on as well (images/, masks/, index.csv, as nails_eval)")
    train.add_argument("--slot", choices=SLOTS, default="live")
    train.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS)
    train.add_argument("--seed", type=int, default=DEFAULT_SEED)
    train.add_argument("--inner", type=int, choices=(16, 32, 64), default=32)
    train.add_argument("--queue-only", action="store_true", help="only queue it for `model worker`")
    evaluate = command(group, "evaluate", _evaluate, "score a model against the current one; the gate's report")
    evaluate.add_argument("model")
    evaluate.add_argument("--baseline", metavar="MODEL", help="judge against this model, not the slot's current")
    evaluate.add_argument("--eval-data", type=Path, metavar="DIR",
                          help="score on this photo folder instead of HQ's evaluation set (publish ignores it)")
    evaluate.add_argument("--queue-only", action="store_true", help="only queue it for `model worker`")
    worker = command(group, "worker", _worker, "run queued model jobs (first requeues those of a dead worker)")
    worker.add_argument("--once", action="store_true", help="run what is queued now, then stop")
    command(group, "jobs", _jobs, "model jobs, newest first").add_argument("--limit", type=int, default=20)
    command(group, "list", _list, "models, newest first").add_argument("--slot", choices=SLOTS)
    command(group, "show", _show, "one model, its recipe and its latest gate report").add_argument("model")
    publish = command(group, "publish", _publish, "release a model that passed the gate to a channel")
    publish.add_argument("model")
    publish.add_argument("--channel", required=True)
    withdraw = command(group, "withdraw", _withdraw, "take a model's release back (kiosks go back to bundled)")
    withdraw.add_argument("model")
    withdraw.add_argument("--channel", action="append", help="only this channel (default: every one it is in)")


def _train(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    try:
        model_data.train_python()
        model_data.check_layout(args.base_data, "--base-data")
    except HQError as exc:
        raise CommandLineError(exc.code, exc.message) from exc
    if args.epochs < 1:
        raise CommandLineError("bad_request", "--epochs must be at least 1")
    return _submit(hq, "train", train_args(dataset=args.dataset, base_data=args.base_data, slot=args.slot,
                                           epochs=args.epochs, seed=args.seed, inner=args.inner), args.queue_only)


def _evaluate(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    try:
        model_data.bundled_model()  # the baseline while the slot has no release: a missing file is the setup's
        if args.eval_data is not None:
            model_data.check_layout(args.eval_data, "--eval-data")
    except HQError as exc:
        raise CommandLineError(exc.code, exc.message) from exc
    with db.read(hq.engine) as conn:
        for wanted in (args.model, args.baseline):
            if wanted and model_registry.find(conn, wanted) is None:
                raise not_found(f"model {wanted}")
    return _submit(hq, "evaluate", evaluate_args(model=args.model, baseline=args.baseline, eval_data=args.eval_data),
                   args.queue_only)


def _submit(hq: HQ, kind: str, job_args: dict[str, Any], queue_only: bool) -> dict[str, Any]:
    with db.write(hq.engine) as conn:
        job_id = model_jobs.enqueue(conn, kind, job_args, cli_actor())
    if queue_only:
        return {"job": job_id, "kind": kind, "state": "queued"}
    job = model_work.run_next(hq, model_jobs.worker_token(), job_id)
    if job is None:  # a worker took it first: it runs there
        return {"job": job_id, "kind": kind, "state": "claimed by a worker"}
    if job.state != "done":
        raise HQError(500, "job_failed", f"job {job.id} ({kind}) failed: {job.error}")
    return {"job": job.id, "kind": kind, "state": job.state, **(job.result or {})}


def _worker(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    worker = model_jobs.worker_token()
    done = [{"job": job_id, "recovered_to": state} for job_id, state in model_work.recover(hq)]
    while True:
        job = model_work.run_next(hq, worker)
        if job is not None:
            done.append(job.summary())
            continue
        if args.once:
            return done
        time.sleep(WORKER_POLL_S)


def _jobs(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        return [job.summary() for job in model_jobs.list_jobs(conn, max(1, min(args.limit, 1000)))]


def _list(hq: HQ, args: argparse.Namespace) -> list[dict[str, Any]]:
    with db.read(hq.engine) as conn:
        rows = model_registry.list_models(conn, args.slot)
        return [{**row.summary(), "gate": _verdict(model_registry.latest_gate_report(conn, row.id))}
                for row in rows]


def _verdict(report: model_registry.GateReport | None) -> str:
    return "none" if report is None else f"{report.verdict} ({report.id})"


def _show(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    with db.read(hq.engine) as conn:
        row = model_registry.find(conn, args.model)
        if row is None:
            raise not_found(f"model {args.model}")
        report = model_registry.latest_gate_report(conn, row.id)
    answer: dict[str, Any] = {**row.summary(), "recipe": row.recipe, "dataset_digest": row.dataset_digest,
                              "base_data_digest": row.base_data_digest, "command": row.command, "job": row.job_id,
                              "inputs": row.inputs, "outputs": row.outputs, "threshold": row.threshold,
                              "gate_report": None if report is None else report.as_json()}
    if not args.json and report is not None:  # the text form: the verdict and its figures on lines of their own
        answer["gate"] = (f"{report.verdict} ({report.id}) vs {report.baseline}; "
                          f"{'; '.join(report.reasons) or 'beats it beyond the noise in every bucket'}")
        answer["gate_iou"] = (f"candidate {report.metrics['candidate']['all']['mean_iou']} baseline "
                              f"{report.metrics['baseline']['all']['mean_iou']} noise ±{report.noise['half_width']} "
                              f"on {report.evaluation_set.get('photos')} photos ({report.evaluation_set['source']})")
    return answer


# permission: publish_rollouts
def _publish(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    try:
        model_data.bundled_model()
        return model_publishing.publish(hq, args.model, args.channel, cli_actor()).as_json()
    except model_publishing.NotPublishable as exc:
        raise CommandLineError("gate_refused", str(exc)) from exc
    except HQError as exc:
        if exc.code != "bundled_model_missing":
            raise
        raise CommandLineError(exc.code, exc.message) from exc


# permission: publish_rollouts
def _withdraw(hq: HQ, args: argparse.Namespace) -> dict[str, Any]:
    return model_publishing.withdraw(hq, args.model, args.channel, cli_actor())
