"""The evaluate job (issue #27 §3–§4): a candidate and the current model scored on the evaluation set, judged by
the gate, the report kept with the candidate.

The evaluation set is HQ's own (model_data.export_evaluation_set: kept apart by store and day, never trained on)
unless the operator names a photo folder (`--eval-data`); a report on a folder says so, and `model publish` takes
only a pass on HQ's set. The current model is the slot's published one, else the kiosk's bundled model
(models/nail_segmenter.onnx); `--baseline MODEL` compares against another registered model instead. Both are
scored in one run of tools/score_nail_model.py (the product's still path, hands found once per photo), with the
candidate's twin: its recipe retrained with the next seed, whose gap to the candidate is the gate's seed noise
(model_gate.py).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from nailmirror_hq import audit, db, model_data, model_gate, model_registry, model_training
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.model_work import JobContext, JobFailed, python
from nailmirror_hq.service import HQ

HQ_SET = "hq"


def evaluate_args(*, model: str, baseline: str | None, eval_data: Path | None) -> dict[str, Any]:
    return {"model": model, "baseline": baseline, "eval_data": None if eval_data is None else str(eval_data.resolve())}


def run(ctx: JobContext) -> dict[str, Any]:
    args = ctx.job.args
    with db.read(ctx.hq.engine) as conn:
        candidate = model_registry.find(conn, args["model"])
        if candidate is None:
            raise not_found(f"model {args['model']}")
        baseline_row = (model_registry.find(conn, args["baseline"]) if args.get("baseline")
                        else model_registry.published_for_slot(conn, candidate.slot))
        if args.get("baseline") and baseline_row is None:
            raise not_found(f"model {args['baseline']}")
    if baseline_row is not None and baseline_row.id == candidate.id:
        raise HQError(400, "bad_request", f"{candidate.id} cannot be judged against itself")
    if args.get("eval_data"):
        folder = Path(args["eval_data"])
        model_data.check_layout(folder, "evaluation data")
        evaluation_set: dict[str, Any] = {"source": "folder", "path": str(folder)}
    else:
        exported = model_data.export_evaluation_set(ctx.hq, ctx.work / "evaluation", ctx.job.created_by)
        folder = exported.out_dir
        evaluation_set = {"source": HQ_SET, "name": exported.name, "label_versions": list(exported.label_versions)}
    evaluation_set.update(photos=model_data.photo_count(folder), digest=model_data.folder_digest(folder))
    candidate_file = _fetch(ctx.hq, candidate.sha256, ctx.work / "candidate.onnx")
    if baseline_row is None:
        baseline_file, baseline_name = model_data.bundled_model(candidate.slot), model_data.bundled_name(candidate.slot)
    else:
        baseline_file, baseline_name = _fetch(ctx.hq, baseline_row.sha256, ctx.work / "baseline.onnx"), baseline_row.id
    twin = _train_twin(ctx, candidate)
    threshold = [] if candidate.threshold is None else ["--threshold", str(candidate.threshold)]
    out = ctx.program([python(), model_data.TOOLS / "score_nail_model.py", "--data", folder, "--model", candidate_file,
                       "--model", baseline_file, "--model", twin.onnx, *threshold], what="score_nail_model")
    scored = json.loads(out.strip().splitlines()[-1])
    mine, theirs, twins = scored["models"]
    verdict = model_gate.judge(mine, theirs, twins)
    same_data = (twin.dataset_digest, twin.base_data_digest) == (candidate.dataset_digest, candidate.base_data_digest)
    verdict.noise["twin"] = {"seed": candidate.seed + 1, "sha256": twins["sha256"],
                             "mean_iou": twins["all"]["mean_iou"], "same_data": same_data}
    metrics = {"candidate": {"all": mine["all"], "buckets": mine["buckets"]},
               "baseline": {"all": theirs["all"], "buckets": theirs["buckets"]},
               "difference": {model_gate.METRIC: verdict.difference, "buckets": verdict.bucket_differences},
               "per_photo": [{"name": a["name"], "candidate": a["iou"], "baseline": b["iou"]}
                             for a, b in zip(mine["per_photo"], theirs["per_photo"], strict=True)]}
    with db.write(ctx.hq.engine) as conn:
        report = model_registry.save_gate_report(
            conn, model_id=candidate.id, baseline=baseline_name, evaluation_set=evaluation_set, metrics=metrics,
            noise=verdict.noise, verdict=verdict.verdict, reasons=verdict.reasons, actor=ctx.job.created_by)
        audit.record(conn, ctx.job.created_by, "MODEL_EVALUATE", "model", candidate.id, gate_report=report.id,
                     baseline=baseline_name, verdict=report.verdict, evaluation_set=evaluation_set["source"])
    return {"model": candidate.id, "gate_report": report.id, "verdict": report.verdict, "reasons": report.reasons,
            "baseline": baseline_name, "candidate_iou": mine["all"][model_gate.METRIC],
            "baseline_iou": theirs["all"][model_gate.METRIC], "difference": verdict.difference,
            "noise": verdict.noise["half_width"], "photos": evaluation_set["photos"]}


def _train_twin(ctx: JobContext, candidate: model_registry.ModelRow) -> model_training.Trained:
    """The candidate's recipe trained again with the next seed on the same data: what a rerun alone changes."""
    recipe = candidate.recipe
    if "base_data" not in recipe:
        raise JobFailed(f"{candidate.id} records no base data: its recipe cannot be rerun for the seed noise")
    args = {"dataset": candidate.dataset, "base_data": recipe["base_data"], "epochs": recipe["epochs"],
            "seed": candidate.seed + 1, "inner": recipe["inner"]}
    return model_training.train_once(ctx, args, ctx.work / "twin")


def _fetch(hq: HQ, sha256: str, target: Path) -> Path:
    """A model's ONNX from the blob store into the work folder, checked against its sha256."""
    digest = hashlib.sha256()
    with open(target, "wb") as out:
        for chunk in hq.blobs.read_chunks(sha256):
            digest.update(chunk)
            out.write(chunk)
    if digest.hexdigest() != sha256:
        raise HQError(409, "model_corrupt", f"the blob store's copy of {sha256[:12]} does not hash to it")
    return target
