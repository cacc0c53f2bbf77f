"""The train job (issue #27 §3): a labelled dataset plus base data → a candidate nail model, reproducibly.

Steps, each a program in the job's work folder (model_work.py):
  1. the dataset's frozen label versions exported as a photo set (model_data.export_training_set);
  2. ROIs of it and of the base data, each by `tools/extract_nail_rois.py extract` (HQ's interpreter), merged into
     one file by its `merge`;
  3. `tools/train_nail_model.py final` under NAILMIRROR_HQ_TRAIN_PYTHON with the recipe's epochs, seed and inner
     size on ONE thread (torch's deterministic algorithms; the trainer seeds everything): the same data and recipe
     give the same ONNX bytes, so the model's id (its sha256) is a fact of its inputs;
  4. the ONNX into the catalog's blob store under its sha256 and a `nail_model` row (candidate) recording the
     recipe, both inputs' digests and the trainer's command line, with an audit row.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nailmirror_hq import audit, clock, db, model_data, model_registry, model_releases
from nailmirror_hq.model_work import JobContext, JobFailed, python
from nailmirror_protocol.model_release import TensorSpec

DEFAULT_EPOCHS = 200  # the trainer's own default, chosen by its 5-fold CV (models/NAIL_SEGMENTER_CARD.md)
DEFAULT_SEED = 20261201
# The trainer's export (train_nail_model.py export_onnx): the ROI batch in, the nail logits out.
INPUTS: list[TensorSpec] = [{"name": "roi", "shape": [-1, 3, 64, 64], "dtype": "float32"}]
OUTPUTS: list[TensorSpec] = [{"name": "logits", "shape": [-1, 1, 64, 64], "dtype": "float32"}]
# One thread, no hash randomisation: what makes two runs of one recipe give byte-identical files.
TRAIN_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}


def train_args(*, dataset: str, base_data: Path, slot: str, epochs: int, seed: int, inner: int) -> dict[str, Any]:
    return {"dataset": dataset, "base_data": str(base_data.resolve()), "slot": slot, "epochs": epochs,
            "seed": seed, "inner": inner}


def trainer_argv(args: dict[str, Any]) -> list[str]:
    """The trainer's command line, paths relative to the job's work folder (so it is the same on every run)."""
    return ["tools/train_nail_model.py", "final", "--rois", "rois.npz", "--out", "model.onnx",
            "--epochs", str(args["epochs"]), "--seed", str(args["seed"]), "--inner", str(args["inner"]),
            "--threads", "1"]


@dataclass(frozen=True)
class Trained:
    onnx: Path
    photos: int
    rois: int
    exported: model_data.ExportedSet
    dataset_digest: str
    base_data_digest: str


def train_once(ctx: JobContext, args: dict[str, Any], folder: Path) -> Trained:
    """Export, extract, merge and train in `folder` (inside the job's work folder) with `args`' recipe."""
    trainer = model_data.train_python()
    base = Path(args["base_data"])
    model_data.check_layout(base, "base data")
    folder.mkdir(parents=True, exist_ok=True)
    exported = model_data.export_training_set(ctx.hq, args["dataset"], folder / "dataset", ctx.job.created_by)
    parts = []
    for name, data in (("dataset", exported.out_dir), ("base", base)):
        if model_data.photo_count(data) == 0:
            continue  # a dataset with no labels yet adds nothing (and the extractor needs a photo)
        ctx.program([python(), model_data.TOOLS / "extract_nail_rois.py", "extract", "--data", data,
                     "--out", f"{name}.npz"], cwd=folder, what=f"extract_nail_rois extract ({name})")
        parts.append(f"{name}.npz")
    if not parts:
        raise JobFailed("no photos: the dataset and the base data are both empty")
    merged = json.loads(ctx.program([python(), model_data.TOOLS / "extract_nail_rois.py", "merge", "--rois", *parts,
                                     "--out", "rois.npz"], cwd=folder, what="extract_nail_rois merge"
                                    ).splitlines()[-1])
    argv = trainer_argv(args)
    ctx.program([trainer, model_data.ROOT / argv[0], *argv[1:]], cwd=folder, env=TRAIN_ENV,
                what="train_nail_model final")
    return Trained(folder / "model.onnx", int(merged["photos"]), int(merged["rois"]), exported,
                   model_data.folder_digest(exported.out_dir), model_data.folder_digest(base))


def run(ctx: JobContext) -> dict[str, Any]:
    args = ctx.job.args
    trained = train_once(ctx, args, ctx.work / "run")
    exported, argv = trained.exported, trainer_argv(args)
    merged = {"photos": trained.photos, "rois": trained.rois}
    sha256, size = model_releases.store_model_file(ctx.hq.engine, ctx.hq.blobs, trained.onnx)  # where kiosks fetch it
    row = model_registry.ModelRow(
        id=model_registry.model_id_for(sha256), name=model_registry.MODEL_NAME, slot=args["slot"], sha256=sha256,
        size=size, inputs=INPUTS, outputs=OUTPUTS, threshold=None,
        recipe={"trainer": "tools/train_nail_model.py final", "epochs": args["epochs"], "seed": args["seed"],
                "inner": args["inner"], "threads": 1, "env": TRAIN_ENV, "base_data": args["base_data"],
                "photos": merged["photos"],
                "rois": merged["rois"], "label_versions": list(exported.label_versions)},
        dataset=args["dataset"], dataset_digest=trained.dataset_digest,
        base_data_digest=trained.base_data_digest, seed=int(args["seed"]),
        command=f"${model_data.TRAIN_PYTHON_ENV} {shlex.join(argv)}", job_id=ctx.job.id,
        created_at=clock.now_text(), created_by=ctx.job.created_by, state="candidate")
    with db.write(ctx.hq.engine) as conn:
        kept = model_registry.register(conn, row)
        audit.record(conn, ctx.job.created_by, "MODEL_TRAIN", "model", kept.id, dataset=args["dataset"],
                     slot=args["slot"], sha256=sha256, job=ctx.job.id, again=kept.job_id != ctx.job.id)
    return {"model": kept.id, "sha256": sha256, "size": row.size, "slot": kept.slot, "photos": merged["photos"],
            "rois": merged["rois"], "dataset_photos": exported.count, "already_registered": kept.job_id != ctx.job.id}
