"""The nail segmenter's training pipeline on a tiny run, and the CV scoring that pastes ROI masks back.

The trainer needs torch, which lives only in .venv-train (Python 3.11; requirements/train.txt): the trainer tests
run it as a subprocess with that interpreter, and skip without it — except in CI (CI=true), where a missing
.venv-train is a failure.
"""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from nailmirror_desktop.vision.nails import nail_rois, nail_segmenter
from nailmirror_desktop.vision.types import Finger, NailQuad

ROOT = Path(__file__).resolve().parents[2]
TRAIN_PYTHON = ROOT / ".venv-train" / "bin" / "python"
TRAINER = ROOT / "tools" / "train_nail_model.py"
EXTRACTOR = ROOT / "tools" / "extract_nail_rois.py"


def _need_train_env() -> None:
    if TRAIN_PYTHON.exists():
        return
    reason = f"{TRAIN_PYTHON} missing (make it: see requirements/train.txt)"
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def _tiny_dataset(folder: Path, photos: int = 6, nails: int = 2) -> Path:
    """photos images/ + masks/ with elliptic 'nails', and the matching rois.npz as extract writes it."""
    (folder / "images").mkdir(parents=True)
    (folder / "masks").mkdir()
    rng = np.random.default_rng(7)
    rows: dict[str, list] = {k: [] for k in ("rois", "masks", "context", "context_masks", "photo", "finger",
                                             "hand", "quads", "to_frame")}
    names = []
    for p in range(photos):
        image = np.full((160, 200, 3), (120, 150, 200), np.uint8)
        truth = np.zeros((160, 200), np.uint8)
        for k in range(nails):
            cx, cy = 50 + 100 * k, 80
            cv2.ellipse(image, ((cx, cy), (14, 20), 0), (180, 170, 230), -1)
            cv2.ellipse(truth, ((cx, cy), (14, 20), 0), 255, -1)
            corners = np.array([[cx - 7, cy - 10], [cx + 7, cy - 10], [cx + 7, cy + 10], [cx - 7, cy + 10]],
                               np.float32) + rng.normal(0, 0.5, (4, 2)).astype(np.float32)
            quad = NailQuad(Finger.INDEX, corners, 0)
            to_frame = nail_rois.roi_to_frame(quad)
            wide = nail_rois.roi_to_frame(quad, 128, 2 * nail_rois.CONTEXT)
            rows["rois"].append(nail_rois.crop(image, to_frame))
            rows["masks"].append(nail_rois.crop(truth, to_frame))
            rows["context"].append(nail_rois.crop(image, wide, 128))
            rows["context_masks"].append(nail_rois.crop(truth, wide, 128))
            rows["photo"].append(p)
            rows["finger"].append(1)
            rows["hand"].append(0)
            rows["quads"].append(corners)
            rows["to_frame"].append(to_frame)
        name = f"p{p}.png"
        cv2.imwrite(str(folder / "images" / name), image)
        cv2.imwrite(str(folder / "masks" / name), truth)
        names.append(name)
    out = folder / "rois.npz"
    np.savez_compressed(out, names=np.array(names), shapes=np.array([[160, 200]] * photos, np.int32),
                        detected=np.ones(photos, bool), roi_size=np.int32(64),
                        **{k: np.stack(v) for k, v in rows.items()})
    return out


def _run(*args: str, python: str | Path = sys.executable) -> dict:
    done = subprocess.run([str(python), *args], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # the trainer in its own Python 3.11 process (torch import, a tiny training)
def test_tiny_cv_run_gives_out_of_fold_probabilities_by_photo(tmp_path):
    _need_train_env()
    rois = _tiny_dataset(tmp_path / "data")
    report = _run(str(TRAINER), "cv", "--rois", str(rois), "--out", str(tmp_path / "oof.npz"), "--epochs", "1",
                  "--folds", "3", python=TRAIN_PYTHON)
    assert report["folds"] == 3 and len(report["fold_seconds"]) == 3
    oof = np.load(tmp_path / "oof.npz")
    assert oof["probs"].shape == (12, 64, 64)
    assert np.all((oof["probs"] >= 0) & (oof["probs"] <= 1)) and np.isfinite(oof["probs"]).all()
    folds = oof["fold_of_photo"]
    assert folds.shape == (6,) and sorted(np.bincount(folds)) == [2, 2, 2]
    # and the scorer reads it, one line of JSON with a figure per fold
    scored = _run(str(EXTRACTOR), "score", "--rois", str(rois), "--probs", str(tmp_path / "oof.npz"),
                  "--data", str(tmp_path / "data"))
    assert {"all", "fold0", "fold1", "fold2"} <= set(scored)
    # the folds in parallel processes: the same probabilities (each fold depends only on its own seed)
    parallel = _run(str(TRAINER), "cv", "--rois", str(rois), "--out", str(tmp_path / "oof3.npz"), "--epochs", "1",
                    "--folds", "3", "--jobs", "3", "--fold-models", str(tmp_path / "folds"), python=TRAIN_PYTHON)
    assert parallel["jobs"] == 3 and len(parallel["fold_seconds"]) == 3
    assert np.array_equal(np.load(tmp_path / "oof3.npz")["probs"], oof["probs"])
    # the fold models score moving clips out of sample: each clip with the model that never saw its photo
    assert sorted(p.name for p in (tmp_path / "folds").iterdir()) == ["fold0.onnx", "fold1.onnx", "fold2.onnx"]
    subprocess.run([sys.executable, str(ROOT / "tools" / "make_eval_clips.py"), "--data", str(tmp_path / "data"),
                    "--out", str(tmp_path / "clips"), "--frames", "3"], check=True, capture_output=True, timeout=120)
    video = _run(str(ROOT / "tools" / "video_cv_eval.py"), "--clips", str(tmp_path / "clips"), "--rois", str(rois),
                 "--oof", str(tmp_path / "oof3.npz"), "--models", str(tmp_path / "folds"))
    assert video["out_of_sample"] is True and video["clips"] == 6 and video["frames"] == 18
    assert sorted(video["folds"]) == ["0", "1", "2"] and all(f["clips"] == 2 for f in video["folds"].values())


@pytest.mark.slow  # the trainer in its own Python 3.11 process (torch import, a tiny training)
def test_tiny_final_run_exports_a_model_the_loader_runs_and_is_deterministic(tmp_path):
    _need_train_env()
    rois = _tiny_dataset(tmp_path / "data", photos=3)
    first = _run(str(TRAINER), "final", "--rois", str(rois), "--out", str(tmp_path / "a.onnx"), "--epochs", "1",
                 python=TRAIN_PYTHON)
    digest = hashlib.sha256((tmp_path / "a.onnx").read_bytes()).hexdigest()
    assert first["sha256"] == digest and first["rois"] == 6
    second = _run(str(TRAINER), "final", "--rois", str(rois), "--out", str(tmp_path / "b.onnx"), "--epochs", "1",
                  python=TRAIN_PYTHON)
    assert second["sha256"] == digest, "same data, same seed, one thread: the ONNX file must be byte-identical"
    segmenter = nail_segmenter.NailSegmenter(tmp_path / "a.onnx", expected_sha256=digest)
    probs = segmenter.probabilities([np.zeros((64, 64, 3), np.uint8)] * 3)
    assert probs.shape == (3, 64, 64) and np.all((probs >= 0) & (probs <= 1))


@pytest.mark.slow  # the trainer in its own Python 3.11 process (torch import, a tiny training)
def test_trainer_without_rois_names_the_extraction(tmp_path):
    _need_train_env()
    done = subprocess.run([str(TRAIN_PYTHON), str(TRAINER), "cv", "--rois", str(tmp_path / "none.npz")],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2
    assert "extract_nail_rois.py extract" in done.stderr and "Traceback" not in done.stderr


def test_scoring_pastes_roi_masks_back_and_scores_as_the_evaluation_does(tmp_path):
    rois = _tiny_dataset(tmp_path / "data", photos=2)
    data = np.load(rois)
    truth = data["masks"].astype(np.float32) / 255
    np.savez(tmp_path / "perfect.npz", probs=truth, fold_of_photo=np.array([0, 1]))
    np.savez(tmp_path / "nothing.npz", probs=np.zeros_like(truth), fold_of_photo=np.array([0, 1]))
    perfect = _run(str(EXTRACTOR), "score", "--rois", str(rois), "--probs", str(tmp_path / "perfect.npz"),
                   "--data", str(tmp_path / "data"))
    assert perfect["all"]["mean_iou"] > 0.85 and perfect["all"]["nail_recall"] == 1.0
    assert perfect["all"]["precision"] > 0.9 and perfect["all"]["detection_rate"] == 1.0
    nothing = _run(str(EXTRACTOR), "score", "--rois", str(rois), "--probs", str(tmp_path / "nothing.npz"),
                   "--data", str(tmp_path / "data"))
    assert nothing["all"]["mean_iou"] == 0.0 and nothing["photos_with_hands_but_nothing_painted"] == 2


def test_scoring_gives_per_finger_recall_and_counts_nails_no_roi_reaches(tmp_path):
    rois = _tiny_dataset(tmp_path / "data", photos=2)
    for name in ("p0.png", "p1.png"):  # one more true nail per photo, far from every ROI
        path = tmp_path / "data" / "masks" / name
        truth = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        cv2.ellipse(truth, ((100, 18), (10, 14), 0), 255, -1)
        cv2.imwrite(str(path), truth)
    data = np.load(rois)
    np.savez(tmp_path / "perfect.npz", probs=data["masks"].astype(np.float32) / 255, fold_of_photo=np.array([0, 1]))
    scored = _run(str(EXTRACTOR), "score", "--rois", str(rois), "--probs", str(tmp_path / "perfect.npz"),
                  "--data", str(tmp_path / "data"))
    assert scored["per_finger"] == {"index": {"true_nails": 4, "recalled": 4, "recall": 1.0},
                                    "no_roi": {"true_nails": 2, "recalled": 0, "recall": 0.0}}
    assert scored["all"]["nail_recall"] == pytest.approx(4 / 6, abs=1e-3)


def test_scoring_with_the_committed_model_runs_it_one_batch_per_hand(tmp_path):
    rois = _tiny_dataset(tmp_path / "data", photos=2)
    data = np.load(rois)
    probs = nail_segmenter.NailSegmenter().probabilities(list(data["rois"]))
    np.savez(tmp_path / "mine.npz", probs=probs)
    by_model = _run(str(EXTRACTOR), "score", "--rois", str(rois), "--model", "--data", str(tmp_path / "data"))
    by_probs = _run(str(EXTRACTOR), "score", "--rois", str(rois), "--probs", str(tmp_path / "mine.npz"),
                    "--data", str(tmp_path / "data"))
    for key in ("mean_iou", "nail_recall", "precision", "detection_rate"):
        assert by_model["all"][key] == pytest.approx(by_probs["all"][key], abs=1e-6)


def test_extraction_asks_about_the_quads_the_still_path_asks_the_model_about():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import extract_nail_rois
    finally:
        sys.path.remove(str(ROOT / "tools"))
    from nailmirror_desktop.vision import pipeline

    corners = np.array([[0, 0], [10, 0], [10, 14], [0, 14]], np.float32)
    for finger in Finger:
        for opacity in (0.0, 1e-3, 0.3, 0.5, 1.0):
            quad = NailQuad(finger, corners, 0, opacity=opacity)
            assert extract_nail_rois.still_min_opacity(quad) == pipeline.STILL_MIN_OPACITY_MODEL
    thumb, index = NailQuad(Finger.THUMB, corners, 0, opacity=0.1), NailQuad(Finger.INDEX, corners, 0, opacity=0.1)
    assert thumb.opacity >= extract_nail_rois.still_min_opacity(thumb)  # a faded thumb is asked
    assert index.opacity >= extract_nail_rois.still_min_opacity(index)  # and a faded index
