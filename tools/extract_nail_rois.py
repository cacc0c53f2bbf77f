"""Nail ROIs for training the nail segmenter, and the cross-validated score of its out-of-fold masks.

Runs in the kiosk's environment (OpenCV, MediaPipe; no torch). Two commands:

  python tools/extract_nail_rois.py extract [--data DIR] [--out rois.npz]
      For every photo of DIR (images/ + masks/, as `nailmirror evaluate` reads them): the product's still
      detection (StillHandDetector), nail quads (pipeline.place_nails; quads facing the camera less than half are
      dropped as the still path does), and per quad its ROI (vision/nail_rois.py) plus a 2× context crop on the
      same pixel grid for augmentation, with the matching crops of the true mask. The .npz feeds
      tools/train_nail_model.py.

  python tools/extract_nail_rois.py score --rois rois.npz --probs oof.npz [--threshold T] [--data DIR]
      Paste per-ROI nail probabilities (e.g. the trainer's out-of-fold ones) back into the full frames with the
      product's own post-processing (vision/nail_segmenter.py) and score them exactly as `nailmirror evaluate`
      does (vision/evaluation.py). Prints one JSON line, per fold and overall.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nailmirror_desktop.vision import evaluation, nail_rois  # noqa: E402
from nailmirror_desktop.vision.nail_segmenter import DEFAULT_THRESHOLD, masks_from_probabilities  # noqa: E402
from nailmirror_desktop.vision.pipeline import STILL_MIN_OPACITY, place_nails  # noqa: E402
from nailmirror_desktop.vision.types import Finger, NailQuad  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "nails_eval"
CONTEXT_SCALE = 2  # the context crop: twice the ROI's side, same pixels per ROI pixel


def extract(data_dir: Path, out: Path) -> int:
    from nailmirror_desktop.vision.still_detection import StillHandDetector

    pairs = evaluation.dataset_pairs(data_dir)
    size, big = nail_rois.ROI_SIZE, nail_rois.ROI_SIZE * CONTEXT_SCALE
    rows: dict[str, list[np.ndarray]] = {key: [] for key in (
        "rois", "masks", "context", "context_masks", "photo", "finger", "hand", "quads", "to_frame")}
    names, shapes, detected = [], [], []
    start = time.perf_counter()
    with StillHandDetector() as detector:
        for index, (image_path, mask_path) in enumerate(pairs):
            image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            truth = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
            if image is None or truth is None:
                raise SystemExit(f"cannot read {image_path.name} or its mask")
            hands = detector.detect(image)
            quads, _, _ = place_nails(image, hands)
            names.append(image_path.name)
            shapes.append(image.shape[:2])
            detected.append(bool(hands))
            truth_f = (truth > 0).astype(np.float32)
            for quad in quads:
                if quad.opacity < STILL_MIN_OPACITY:
                    continue
                to_frame = nail_rois.roi_to_frame(quad)
                wide = nail_rois.roi_to_frame(quad, big, nail_rois.CONTEXT * CONTEXT_SCALE)
                if to_frame is None or wide is None:
                    continue
                rows["rois"].append(nail_rois.crop(image, to_frame))
                rows["masks"].append(_mask_u8(nail_rois.crop(truth_f, to_frame)))
                rows["context"].append(nail_rois.crop(image, wide, big))
                rows["context_masks"].append(_mask_u8(nail_rois.crop(truth_f, wide, big)))
                rows["photo"].append(np.int32(index))
                rows["finger"].append(np.int32(list(Finger).index(quad.finger)))
                rows["hand"].append(np.int32(quad.hand_index))
                rows["quads"].append(np.asarray(quad.corners, np.float32))
                rows["to_frame"].append(to_frame)
    arrays = {key: np.stack(values) for key, values in rows.items()}
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, names=np.array(names), shapes=np.array(shapes, np.int32),
                        detected=np.array(detected), roi_size=np.int32(size), **arrays)
    print(json.dumps({"photos": len(pairs), "hands_found": int(sum(detected)), "rois": len(arrays["photo"]),
                      "seconds": round(time.perf_counter() - start, 1), "out": str(out)}))
    return 0


def _mask_u8(mask: np.ndarray) -> np.ndarray:
    return np.asarray(np.clip(mask * 255.0 + 0.5, 0, 255), np.uint8)


def rois_of(data: np.lib.npyio.NpzFile, rows: np.ndarray) -> list[nail_rois.NailRoi]:
    fingers = list(Finger)
    return [nail_rois.NailRoi(NailQuad(fingers[int(data["finger"][i])], data["quads"][i], int(data["hand"][i])),
                              data["rois"][i], data["to_frame"][i]) for i in rows]


def score(rois_path: Path, probs_path: Path, data_dir: Path, threshold: float) -> int:
    data, probs_file = np.load(rois_path), np.load(probs_path)
    probs = probs_file["probs"].astype(np.float32)
    if probs.shape[0] != data["photo"].shape[0]:
        raise SystemExit(f"{probs_path} has {probs.shape[0]} ROIs, {rois_path} has {data['photo'].shape[0]}")
    folds = probs_file["fold_of_photo"] if "fold_of_photo" in probs_file else np.zeros(len(data["names"]), int)
    pairs = {image.name: mask for image, mask in evaluation.dataset_pairs(data_dir)}
    scores = []
    start = time.perf_counter()
    for index, name in enumerate(data["names"]):
        name = str(name)
        truth = cv2.imread(str(pairs[name]), cv2.IMREAD_GRAYSCALE)
        if truth is None:
            raise SystemExit(f"cannot read the mask of {name}")
        rows = np.flatnonzero(data["photo"] == index)
        painted = np.zeros(truth.shape, np.uint8)
        for mask in masks_from_probabilities(probs[rows], rois_of(data, rows), truth.shape, threshold):
            if mask is not None:
                painted[mask.roi.slices][mask.alpha >= 0.5] = 255
        scores.append(evaluation.score_image(name, truth, painted, bool(data["detected"][index])))
    seconds = time.perf_counter() - start
    report: dict[str, object] = {"threshold": threshold, "all": evaluation.summarise(scores, seconds).as_dict()}
    for fold in sorted(set(int(f) for f in folds)):
        chosen = [s for s, f in zip(scores, folds, strict=True) if int(f) == fold]
        report[f"fold{fold}"] = evaluation.summarise(chosen).as_dict()
    report["photos_with_hands_but_nothing_painted"] = sum(1 for s in scores if s.detected and s.painted_px == 0)
    print(json.dumps(report))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ext = commands.add_parser("extract", help="photos → rois.npz")
    ext.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ext.add_argument("--out", type=Path, default=Path("build/nail_rois.npz"))
    sc = commands.add_parser("score", help="per-ROI probabilities → the evaluation's metrics")
    sc.add_argument("--rois", type=Path, default=Path("build/nail_rois.npz"))
    sc.add_argument("--probs", type=Path, required=True)
    sc.add_argument("--data", type=Path, default=DEFAULT_DATA)
    sc.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    args = parser.parse_args(argv)
    if args.command == "extract":
        return extract(args.data, args.out)
    return score(args.rois, args.probs, args.data, args.threshold)


if __name__ == "__main__":
    raise SystemExit(main())
