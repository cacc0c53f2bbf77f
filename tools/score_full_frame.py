"""Score the full-frame fallback out of sample, as the still path paints (issue #23 point 4's rule).

  python tools/score_full_frame.py --data build/closeups --fold-models build/full_frame_folds
                                   [--threshold 0.5 0.6 ...]
  python tools/score_full_frame.py --data ../shared/data/nails_eval --fold-models build/full_frame_folds
                                   [--check-models build/folds64]

--check-models: the still segmenter's fold models (tools/train_nail_model.py cv, the same folds) for the ROI path and
the check, so that they too never saw the image's source photo; without it the bundled still build does both.

For every image of DIR (images/ + masks/; a close-up's source photo from DIR/index.csv, else the image itself): the
product's still detection and ROI path (`photos.paint_hands` with the bundled still segmenter), and the full-frame map
of the fold model that never saw its source photo (DIR/folds.json of tools/train_full_frame_model.py cv). Three ways,
scored by `vision/evaluation/photos.py`:

- roi: today's still path (nothing where no hand is found);
- fallback: the full-frame nails where no hand is found, each checked and outlined by the still segmenter
  (vision/nails/full_frame_check.py: what the product does);
- unchecked: the full-frame nails where no hand is found as the full-frame model draws them (before the check);
- union: also, on every image, the checked full-frame nails that the ROI path's paint does not overlap;
- union_unchecked: the same with the full-frame nails as the model draws them;
- fallback_only: the fallback on the images with no hand alone (what the full-frame model itself is worth).

Prints one JSON line: per threshold and way, the dataset score, nails recalled and images the way changed.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nailmirror_desktop.vision.evaluation.photos import dataset_pairs, score_image, summarise  # noqa: E402
from nailmirror_desktop.vision.nails.full_frame import DEFAULT_THRESHOLD, nails_from_probability  # noqa: E402
from nailmirror_desktop.vision.nails.full_frame_check import checked_nails  # noqa: E402
from nailmirror_desktop.vision.nails.nail_refiner import NailMask  # noqa: E402
from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter  # noqa: E402
from nailmirror_desktop.vision.paint.compositor import coverage_mask  # noqa: E402
from nailmirror_desktop.vision.types import NailQuad  # noqa: E402

NEW_NAIL_OVERLAP = 0.2  # union: a full-frame nail overlapping the ROI paint by less than this much is a new nail


@dataclass(frozen=True, eq=False)
class Seen:
    name: str
    image: np.ndarray
    truth: np.ndarray
    hand: bool
    roi: np.ndarray  # the ROI path's coverage
    prob: np.ndarray  # the fold model's letterboxed map
    checker: NailSegmenter  # the still segmenter that checks its nails


def sources(data: Path) -> dict[str, str]:
    index = data / "index.csv"
    if not index.is_file() or "source" not in index.read_text(encoding="utf-8").splitlines()[0]:
        return {}
    with index.open(encoding="utf-8") as handle:
        return {row["name"]: row["source"] for row in csv.DictReader(handle)}


def full_frame_nails(seen: Seen, threshold: float, checked: bool) -> tuple[list[NailQuad], list[NailMask | None]]:
    """The fold model's nails on the image, checked by its segmenter (as the product paints them) or as drawn."""
    quads, masks = nails_from_probability(seen.prob, seen.image, threshold)
    return checked_nails(seen.image, quads, masks, seen.checker) if checked else (quads, masks)


def full_frame_coverage(seen: Seen, threshold: float, checked: bool = True) -> np.ndarray:
    quads, masks = full_frame_nails(seen, threshold, checked)
    return coverage_mask(quads, seen.image.shape, masks)


def new_nails(seen: Seen, threshold: float, checked: bool = True) -> np.ndarray:
    """The full-frame nails the ROI paint does not (mostly) cover, as a coverage."""
    quads, masks = full_frame_nails(seen, threshold, checked)
    out = np.zeros(seen.image.shape[:2], np.uint8)
    for quad, mask in zip(quads, masks, strict=True):
        one = coverage_mask([quad], seen.image.shape, [mask])
        area = int(np.count_nonzero(one))
        if area and np.count_nonzero(one & seen.roi) < NEW_NAIL_OVERLAP * area:
            out |= one
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--fold-models", type=Path, required=True)
    parser.add_argument("--threshold", type=float, nargs="+", default=[DEFAULT_THRESHOLD])
    parser.add_argument("--check-models", type=Path, default=None,
                        help="the still segmenter's fold models (DIR/fold<k>.onnx, the same folds) for the check")
    args = parser.parse_args(argv)
    try:
        pairs = dataset_pairs(args.data)
        folds = json.loads((args.fold_models / "folds.json").read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from nailmirror_desktop.vision.evaluation.photos import paint_hands
    from nailmirror_desktop.vision.nails.full_frame import FullFrameModel
    from nailmirror_desktop.vision.nails.nail_segmenter import STILL_MODEL, bundled_segmenter
    from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector

    models = {}
    for fold in sorted(set(folds.values())):
        path = args.fold_models / f"fold{fold}.onnx"
        # a fold model is not the shipped build: it is checked against its own digest
        models[fold] = FullFrameModel(path, expected_sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    source_of = sources(args.data)
    segmenter = bundled_segmenter(STILL_MODEL)  # the still path's own build, as the product paints a photo
    checkers: dict[int, NailSegmenter] = {}
    for fold in sorted(set(folds.values())) if args.check_models is not None else ():
        path = args.check_models / f"fold{fold}.onnx"
        checkers[fold] = NailSegmenter(path, threshold=segmenter.threshold,
                                       expected_sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    seen: list[Seen] = []
    with StillHandDetector() as detector:
        for image_path, mask_path in pairs:
            image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            truth = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
            hands = detector.detect(image)
            fold = folds[source_of.get(image_path.name, image_path.name)]
            still = checkers.get(fold, segmenter)
            seen.append(Seen(image_path.name, image, truth, bool(hands), paint_hands(image, hands, "model", still),
                             models[fold].probabilities(image), still))
    report: dict[str, object] = {"images": len(seen), "hand_found": sum(s.hand for s in seen)}
    for threshold in args.threshold:
        ways: dict[str, dict[str, object]] = {}
        for way in ("roi", "fallback", "unchecked", "union", "union_unchecked", "fallback_only"):
            scores, changed = [], 0
            for s in seen:
                if way == "fallback_only" and s.hand:
                    continue
                if way == "roi" or (way in ("fallback", "unchecked") and s.hand):
                    painted, detected = s.roi, s.hand
                elif way in ("fallback", "unchecked", "fallback_only"):
                    painted = full_frame_coverage(s, threshold, checked=way != "unchecked")
                    detected = bool(painted.any())
                else:
                    painted = s.roi | new_nails(s, threshold, checked=way == "union")
                    detected = s.hand or bool(painted.any())
                changed += int(not np.array_equal(painted, s.roi))
                scores.append(score_image(s.name, s.truth, painted, detected))
            if not scores:
                continue
            summary = summarise(scores).as_dict()
            summary["recalled_nails"] = sum(x.recalled_nails for x in scores)
            summary["true_nails"] = sum(x.true_nails for x in scores)
            summary["images_changed"] = changed
            ways[way] = summary
        report[f"t{threshold}"] = ways
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
