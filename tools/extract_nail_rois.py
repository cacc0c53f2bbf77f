"""Nail ROIs for training the nail segmenter, and the cross-validated score of its out-of-fold masks.

Runs in the kiosk's environment (OpenCV, MediaPipe; no torch). Two commands:

  python tools/extract_nail_rois.py extract [--data DIR] [--out rois.npz]
      For every photo of DIR (images/ + masks/, as `nailmirror evaluate` reads them): the product's still
      detection (StillHandDetector, which also looks for a second hand), nail quads (pipeline.place_nails), and
      exactly the quads the still path asks the model about (thumbs at any fade not fully out, the other nails
      when they face the camera at least half); per quad its ROI (vision/nails/nail_rois.py) plus a 2× context crop on
      the same pixel grid for augmentation, with the matching crops of the true mask. The .npz feeds
      tools/train_nail_model.py.

  python tools/extract_nail_rois.py score --rois rois.npz (--probs oof.npz | --model [M.onnx]) [--threshold T]
                                         [--data DIR]
      Paste per-ROI nail probabilities (the trainer's out-of-fold ones, or a model's own: no path = the committed
      model, one batch per hand as the product runs it) back into the full frames with the product's own
      post-processing (vision/nails/nail_segmenter.py, then the compositor's coverage: the mask stretched toward the
      tip as it is painted) and score them exactly as `nailmirror evaluate` does
      (vision/evaluation/photos.py). Prints one JSON line: overall, per fold, and per finger (the share of true nails at
      least half painted; a nail belongs to the finger of the nearest ROI that reaches it, "no_roi" if none does).

  python tools/extract_nail_rois.py merge --rois a.npz b.npz [...] --out rois.npz
      Several extractions as one (photos numbered on, in the order given): HQ's `model train` merges a dataset's
      ROIs with the base data's this way before the trainer reads them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nailmirror_desktop.vision import evaluation, nail_rois  # noqa: E402
from nailmirror_desktop.vision.nails.nail_segmenter import DEFAULT_THRESHOLD, masks_from_probabilities  # noqa: E402
from nailmirror_desktop.vision.paint.compositor import coverage_mask  # noqa: E402
from nailmirror_desktop.vision.pipeline import STILL_MIN_OPACITY_MODEL, place_nails  # noqa: E402
from nailmirror_desktop.vision.types import Finger, NailQuad  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "nails_eval"
CONTEXT_SCALE = 2  # the context crop: twice the ROI's side, same pixels per ROI pixel


def extract(data_dir: Path, out: Path) -> int:
    from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector

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
                # exactly the quads the still path asks the model about (pipeline.place_nails, masks="model"):
                # every nail whose fade is not fully out
                if quad.opacity < still_min_opacity(quad):
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


def still_min_opacity(quad: NailQuad) -> float:
    """The least fade at which the still path asks the model about `quad` (pipeline.place_nails, masks="model")."""
    return STILL_MIN_OPACITY_MODEL


def _mask_u8(mask: np.ndarray) -> np.ndarray:
    return np.asarray(np.clip(mask * 255.0 + 0.5, 0, 255), np.uint8)


def merge(parts: list[Path], out: Path) -> int:
    """Concatenate extractions; a ROI's photo index is shifted by the photos of the parts before it."""
    loaded = [np.load(part) for part in parts]
    if len({int(part["roi_size"]) for part in loaded}) != 1:
        raise SystemExit("the ROI files were cut at different ROI sizes")
    merged: dict[str, np.ndarray] = {}
    offset = 0
    photo_offsets = []
    for part in loaded:
        photo_offsets.append(offset)
        offset += len(part["names"])
    for key in ("names", "shapes", "detected", "rois", "masks", "context", "context_masks", "finger", "hand",
                "quads", "to_frame"):
        merged[key] = np.concatenate([part[key] for part in loaded])
    merged["photo"] = np.concatenate([part["photo"] + shift for part, shift in zip(loaded, photo_offsets,
                                                                                   strict=True)]).astype(np.int32)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, roi_size=loaded[0]["roi_size"], **merged)
    print(json.dumps({"photos": int(offset), "rois": int(len(merged["photo"])), "parts": len(parts),
                      "out": str(out)}))
    return 0


def rois_of(data: np.lib.npyio.NpzFile, rows: np.ndarray) -> list[nail_rois.NailRoi]:
    fingers = list(Finger)
    return [nail_rois.NailRoi(NailQuad(fingers[int(data["finger"][i])], data["quads"][i], int(data["hand"][i])),
                              data["rois"][i], data["to_frame"][i]) for i in rows]


def score(rois_path: Path, probs_path: Path | None, data_dir: Path, threshold: float,
          model: Path | None = None) -> int:
    data = np.load(rois_path)
    folds = np.zeros(len(data["names"]), int)
    if probs_path is not None:
        probs_file = np.load(probs_path)
        probs = probs_file["probs"].astype(np.float32)
        if "fold_of_photo" in probs_file:
            folds = probs_file["fold_of_photo"]
    else:
        probs = model_probabilities(data, model)
    if probs.shape[0] != data["photo"].shape[0]:
        raise SystemExit(f"{probs_path} has {probs.shape[0]} ROIs, {rois_path} has {data['photo'].shape[0]}")
    pairs = {image.name: mask for image, mask in evaluation.dataset_pairs(data_dir)}
    scores = []
    fingers = FingerTally()
    start = time.perf_counter()
    for index, name in enumerate(data["names"]):
        name = str(name)
        truth = cv2.imread(str(pairs[name]), cv2.IMREAD_GRAYSCALE)
        image = cv2.imread(str(data_dir / "images" / name), cv2.IMREAD_COLOR)
        if truth is None or image is None:
            raise SystemExit(f"cannot read the mask of {name}")
        rows = np.flatnonzero(data["photo"] == index)
        # what the product paints: a quad the model finds no nail at is left bare (pipeline.place_nails), the
        # others are painted in their mask as the compositor makes it (stretched toward the tip, anti-aliased)
        rois = rois_of(data, rows)
        masks = masks_from_probabilities(probs[rows], rois, image, threshold)
        quads = [replace(roi.quad, opacity=0.0 if mask is None else 1.0) for roi, mask in zip(rois, masks, strict=True)]
        painted = coverage_mask(quads, truth.shape, masks)
        scores.append(evaluation.score_image(name, truth, painted, bool(data["detected"][index])))
        fingers.add(truth, painted, data["finger"][rows], data["to_frame"][rows])
    seconds = time.perf_counter() - start
    report: dict[str, object] = {"threshold": threshold, "model": None if model is None else str(model),
                                 "all": evaluation.summarise(scores, seconds).as_dict()}
    for fold in sorted(set(int(f) for f in folds)):
        chosen = [s for s, f in zip(scores, folds, strict=True) if int(f) == fold]
        report[f"fold{fold}"] = evaluation.summarise(chosen).as_dict()
    report["photos_with_hands_but_nothing_painted"] = sum(1 for s in scores if s.detected and s.painted_px == 0)
    report["per_finger"] = fingers.as_dict()
    print(json.dumps(report))
    return 0


def model_probabilities(data: np.lib.npyio.NpzFile, model: Path | None) -> np.ndarray:
    """Every ROI's nail probability from an ONNX model (None: the committed one, sha256-checked), one batch per
    hand as the product runs it."""
    from nailmirror_desktop.vision.nails.nail_segmenter import MODEL_SHA256, NailSegmenter

    # a model given by path is scored as it is (its own checksum); the committed one must match MODEL_SHA256
    expected = MODEL_SHA256 if model is None else hashlib.sha256(model.read_bytes()).hexdigest()
    segmenter = NailSegmenter(model, expected_sha256=expected)
    probs = np.zeros(data["rois"].shape[:3], np.float32)
    keys = data["photo"].astype(np.int64) * 16 + data["hand"].astype(np.int64)
    for key in np.unique(keys):
        rows = np.flatnonzero(keys == key)
        probs[rows] = segmenter.probabilities(list(data["rois"][rows]))
    return probs


class FingerTally:
    """Per finger: true nails, and those at least half painted (evaluation.RECALL_COVERAGE). A true nail (a
    connected component of the mask, as the evaluation counts them) belongs to the finger of the ROI whose centre
    is nearest its centroid among the ROIs that contain part of it; a nail that no ROI reaches is "no_roi"."""

    def __init__(self) -> None:
        self.true: dict[str, int] = {}
        self.recalled: dict[str, int] = {}

    def add(self, truth: np.ndarray, painted: np.ndarray, fingers: np.ndarray, to_frames: np.ndarray) -> None:
        height, width = truth.shape
        size = nail_rois.ROI_SIZE
        footprints = [cv2.warpAffine(np.ones((size, size), np.uint8), m[:2], (width, height),
                                     flags=cv2.INTER_NEAREST) > 0 for m in to_frames]
        centres = [m[:2] @ np.array([0.5 * (size - 1), 0.5 * (size - 1), 1.0]) for m in to_frames]
        count, labels = cv2.connectedComponents((truth > 0).astype(np.uint8), connectivity=8)
        names = [finger.name.lower() for finger in Finger]
        for label in range(1, count):
            nail = labels == label
            ys, xs = np.nonzero(nail)
            centroid = np.array([xs.mean(), ys.mean()])
            near = [(float(np.linalg.norm(centres[k] - centroid)), k) for k in range(len(to_frames))
                    if np.any(footprints[k] & nail)]
            finger = names[int(fingers[min(near)[1]])] if near else "no_roi"
            self.true[finger] = self.true.get(finger, 0) + 1
            covered = np.count_nonzero(nail & (painted > 0)) >= evaluation.RECALL_COVERAGE * len(xs)
            self.recalled[finger] = self.recalled.get(finger, 0) + int(covered)

    def as_dict(self) -> dict[str, dict[str, float | int]]:
        order = [finger.name.lower() for finger in Finger] + ["no_roi"]
        return {name: {"true_nails": self.true[name], "recalled": self.recalled[name],
                       "recall": round(self.recalled[name] / self.true[name], 3)}
                for name in order if name in self.true}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ext = commands.add_parser("extract", help="photos → rois.npz")
    ext.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ext.add_argument("--out", type=Path, default=Path("build/nail_rois.npz"))
    sc = commands.add_parser("score", help="per-ROI probabilities → the evaluation's metrics")
    sc.add_argument("--rois", type=Path, default=Path("build/nail_rois.npz"))
    source = sc.add_mutually_exclusive_group(required=True)
    source.add_argument("--probs", type=Path, help="per-ROI probabilities, e.g. the trainer's out-of-fold ones")
    source.add_argument("--model", type=Path, nargs="?", const=Path(), default=None,
                        help="an ONNX model's own probabilities (no path: the committed model, sha256-checked)")
    sc.add_argument("--data", type=Path, default=DEFAULT_DATA)
    sc.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    mg = commands.add_parser("merge", help="several rois.npz → one")
    mg.add_argument("--rois", type=Path, nargs="+", required=True)
    mg.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "extract":
        return extract(args.data, args.out)
    if args.command == "merge":
        return merge(args.rois, args.out)
    model = None if args.model is None or args.model == Path() else args.model
    if args.probs is None and args.model is None:
        parser.error("one of --probs or --model is required")
    return score(args.rois, args.probs, args.data, args.threshold, model if args.probs is None else None)


if __name__ == "__main__":
    raise SystemExit(main())
