"""The tools HQ's model jobs run: `extract_nail_rois.py merge` (a dataset's ROIs and the base data's as one) and
`score_nail_model.py` (several models on one photo set, per bucket, through the product's still path)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nailmirror_desktop.vision import evaluation
from nailmirror_desktop.vision.nails.nail_segmenter import STILL_MODEL
from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector
from tests.tools.test_train_nail_model import _tiny_dataset

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> dict:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=180, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_merge_numbers_the_second_files_photos_on(tmp_path: Path) -> None:
    first = _tiny_dataset(tmp_path / "a", photos=2, nails=2)
    second = _tiny_dataset(tmp_path / "b", photos=3, nails=1)
    report = _run(str(ROOT / "tools" / "extract_nail_rois.py"), "merge", "--rois", str(first), str(second),
                  "--out", str(tmp_path / "m.npz"))
    assert report == {"photos": 5, "rois": 7, "parts": 2, "out": str(tmp_path / "m.npz")}
    merged, a, b = np.load(tmp_path / "m.npz"), np.load(first), np.load(second)
    assert merged["photo"].tolist() == [0, 0, 1, 1, 2, 3, 4]
    assert list(merged["names"]) == list(a["names"]) + list(b["names"])
    assert np.array_equal(merged["context"], np.concatenate([a["context"], b["context"]]))
    assert merged["shapes"].shape == (5, 2) and int(merged["roi_size"]) == 64


@pytest.mark.slow  # hand detection on real photos in a subprocess
def test_two_models_are_scored_alike_per_bucket_as_the_product_scores_one(nails_eval_dir: Path,
                                                                          tmp_path: Path) -> None:
    with open(nails_eval_dir / "index.csv", newline="", encoding="utf-8") as index:
        rows = sorted(csv.DictReader(index), key=lambda r: r["image"])[:3]
    data = tmp_path / "set"
    (data / "images").mkdir(parents=True)
    (data / "masks").mkdir()
    with open(data / "index.csv", "w", newline="", encoding="utf-8") as handle:
        table = csv.writer(handle)
        table.writerow(["image", "mask", "skin_tone", "nail_kind"])
        for row, tone in zip(rows, ("I-II", "V-VI", "I-II"), strict=True):
            shutil.copy(nails_eval_dir / "images" / row["image"], data / "images")
            shutil.copy(nails_eval_dir / "masks" / row["mask"], data / "masks")
            table.writerow([row["image"], row["mask"], tone, "bare"])
    model = ROOT / "models" / STILL_MODEL.file  # the stills' build, at its own threshold, as the eval runs it
    copy = shutil.copy(model, tmp_path / "copy.onnx")
    report = _run(str(ROOT / "tools" / "score_nail_model.py"), "--data", str(data), "--model", str(model),
                  "--model", str(copy), "--threshold", str(STILL_MODEL.threshold))
    first, second = report["models"]
    assert report["photos"] == 3 and first["all"] == second["all"] and first["sha256"] == second["sha256"]
    assert set(first["buckets"]["skin_tone"]) == {"I-II", "V-VI"} and first["buckets"]["skin_tone"]["V-VI"][
        "images"] == 1
    assert [p["skin_tone"] for p in first["per_photo"]] == ["I-II", "V-VI", "I-II"]
    # the same figures as the product's own evaluation (`nailmirror eval`'s landmark_painter) on these photos
    with StillHandDetector() as detector:
        _, summary = evaluation.evaluate(evaluation.dataset_pairs(data),
                                         evaluation.landmark_painter(detector, masks="model"))
    assert first["all"]["mean_iou"] == pytest.approx(summary.mean_iou, abs=1e-4)
    assert first["all"]["nail_recall"] == pytest.approx(summary.nail_recall, abs=1e-4)
