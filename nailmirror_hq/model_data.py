"""What a model job reads: the trainer's interpreter, the base data, HQ's datasets and evaluation set as folders,
and the digests that say a rerun read the same bytes (issue #27 §3).

A photo set is the nails_eval layout: images/, masks/ (0/255, the image's size) and index.csv. HQ's labelled
datasets and its evaluation set are written in that layout by dataset_export.py (the labelling work of §1–§2).
The kiosk's tools (tools/extract_nail_rois.py, tools/score_nail_model.py) run as programs in HQ's own interpreter
(HQ never imports the kiosk); the trainer runs in NAILMIRROR_HQ_TRAIN_PYTHON, the Python 3.11 environment with
torch (`./dev train-env`).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from nailmirror_hq import dataset_export
from nailmirror_hq.errors import HQError
from nailmirror_hq.service import HQ

TRAIN_PYTHON_ENV = "NAILMIRROR_HQ_TRAIN_PYTHON"
ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tools"
BUNDLED_MODEL = ROOT / "models" / "nail_segmenter.onnx"
BUNDLED_STILL_MODEL = ROOT / "models" / "nail_segmenter_still.onnx"
# The models the chain's kiosk build ships with, one per slot that has one (the live mirror's and the stills'): a
# slot's baseline until HQ releases a model in it. The kiosk build in this checkout by default; a chain whose stores
# run another build names that build's files here.
BUNDLED_MODEL_ENV = "NAILMIRROR_HQ_BUNDLED_MODEL"
BUNDLED_STILL_MODEL_ENV = "NAILMIRROR_HQ_BUNDLED_STILL_MODEL"
LAYOUT = ("index.csv", "images", "masks")


@dataclass(frozen=True)
class ExportedSet:
    name: str
    count: int
    label_versions: tuple[int, ...]
    out_dir: Path


def bundled_model(slot: str = "live") -> Path:
    env, default = ((BUNDLED_STILL_MODEL_ENV, BUNDLED_STILL_MODEL) if slot == "still"
                    else (BUNDLED_MODEL_ENV, BUNDLED_MODEL))
    value = os.environ.get(env, "").strip()
    path = Path(value) if value else default
    if not path.is_file():
        raise HQError(400, "bundled_model_missing", f"{env}={value or path}: no model file there")
    return path


def bundled_name(slot: str = "live") -> str:
    """"bundled-<first 12 hex digits>": how a gate report names the kiosks' bundled model of `slot` as its
    baseline."""
    return f"bundled-{hashlib.sha256(bundled_model(slot).read_bytes()).hexdigest()[:12]}"


def train_python() -> Path:
    """The trainer's interpreter; HQError (exit 2 at the CLI) naming the fix when it is unset or not runnable."""
    value = os.environ.get(TRAIN_PYTHON_ENV, "").strip()
    if not value:
        raise HQError(400, "train_python_missing",
                      f"{TRAIN_PYTHON_ENV} is not set: point it at the trainer's Python 3.11 (./dev train-env makes "
                      ".venv-train/bin/python)")
    path = Path(value)
    if not path.is_file() or not os.access(path, os.X_OK):
        raise HQError(400, "train_python_missing", f"{TRAIN_PYTHON_ENV}={value} is not a runnable program")
    return path


def check_layout(folder: Path, what: str) -> None:
    """HQError naming what is missing unless `folder` is a nails_eval-layout photo set."""
    if not folder.is_dir():
        raise HQError(400, "bad_data", f"{what} {folder} is not a folder")
    missing = [part for part in LAYOUT if not (folder / part).exists()]
    if missing:
        raise HQError(400, "bad_data", f"{what} {folder} is not a photo set: no {', '.join(missing)} "
                                       "(expected index.csv, images/, masks/ as in nails_eval)")


def folder_digest(folder: Path) -> str:
    """sha256 over index.csv and every file of images/ and masks/ (relative name and content), sorted by name:
    the same photos and labels give the same digest wherever the folder is."""
    digest = hashlib.sha256()
    files = [folder / "index.csv"] + sorted(p for sub in ("images", "masks") for p in (folder / sub).iterdir()
                                            if p.is_file())
    for path in files:
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def photo_count(folder: Path) -> int:
    return sum(1 for p in (folder / "images").iterdir() if p.is_file())


def export_training_set(hq: HQ, name: str, out_dir: Path, actor: str) -> ExportedSet:
    """Dataset `name`'s frozen label versions as a photo set in `out_dir` (dataset_export.export_dataset)."""
    summary = dataset_export.export_dataset(hq.engine, hq.require_captures(), name, out_dir, actor)
    return ExportedSet(summary.name, summary.count, summary.label_versions, summary.out_dir)


def export_evaluation_set(hq: HQ, out_dir: Path, actor: str) -> ExportedSet:
    """HQ's evaluation set (kept apart by store and day, never trained on) as a photo set in `out_dir`."""
    summary = dataset_export.export_evaluation_set(hq.engine, hq.require_captures(), out_dir, actor)
    return ExportedSet(summary.name, summary.count, summary.label_versions, summary.out_dir)
