"""Score nail segmenter models on a photo set with the product's own still path, overall and per bucket.

Runs in the kiosk's environment (OpenCV, MediaPipe, onnxruntime); HQ's `model evaluate` runs it as a program
(HQ never imports the kiosk):

  python tools/score_nail_model.py --data DIR --model A.onnx [--model B.onnx ...] [--threshold T]

DIR is the nails_eval layout: images/, masks/ (0/255, same size) and index.csv (image, mask, … and, when the set
has them, skin_tone and nail_kind: the buckets). Each photo's hands are found once (StillHandDetector), then every
model paints them as the still path does (vision/evaluation/photos.py `paint_hands`: quads → the model's masks →
the compositor's coverage) and is scored as `nailmirror eval` scores (IoU with misses as 0, nail recall, precision,
boundary F1). Prints one JSON line: per model its sha256, the overall figures, per bucket value the same, and per
photo its IoU (misses 0), for the gate's paired comparison (nailmirror_hq/model_gate.py).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nailmirror_desktop.vision import evaluation  # noqa: E402
from nailmirror_desktop.vision.nails.nail_segmenter import (  # noqa: E402
    DEFAULT_THRESHOLD,
    NailSegmenter,
    NailSegmenterError,
)

BUCKETS = ("skin_tone", "nail_kind")


def buckets_of(data_dir: Path) -> dict[str, dict[str, str]]:
    """image file name → {bucket: value} from index.csv (empty when the set has no such column)."""
    index = data_dir / "index.csv"
    if not index.is_file():
        return {}
    with open(index, newline="", encoding="utf-8") as handle:
        return {row["image"]: {b: row[b] for b in BUCKETS if row.get(b)} for row in csv.DictReader(handle)}


def score(data_dir: Path, models: list[Path], threshold: float) -> dict[str, object]:
    from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector

    pairs = evaluation.dataset_pairs(data_dir)
    buckets = buckets_of(data_dir)
    segmenters = [NailSegmenter(m, threshold=threshold, expected_sha256=_sha256(m)) for m in models]
    scores: list[list[evaluation.ImageScore]] = [[] for _ in models]
    start = time.perf_counter()
    with StillHandDetector() as detector:
        for image_path, mask_path in pairs:
            image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            truth = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
            if image is None or truth is None:
                raise ValueError(f"cannot read {image_path.name} or its mask")
            hands = detector.detect(image)
            for kept, segmenter in zip(scores, segmenters, strict=True):
                painted = evaluation.paint_hands(image, hands, "model", segmenter)
                kept.append(evaluation.score_image(image_path.name, truth, painted, bool(hands)))
    seconds = round(time.perf_counter() - start, 1)
    return {"photos": len(pairs), "threshold": threshold, "seconds": seconds,
            "models": [_model_report(m, s, buckets) for m, s in zip(models, scores, strict=True)]}


def _model_report(model: Path, scores: list[evaluation.ImageScore],
                  buckets: dict[str, dict[str, str]]) -> dict[str, object]:
    per_bucket: dict[str, dict[str, dict[str, float | int]]] = {}
    for bucket in BUCKETS:
        values = sorted({buckets.get(s.name, {}).get(bucket, "") for s in scores} - {""})
        if values:
            per_bucket[bucket] = {value: evaluation.summarise(
                [s for s in scores if buckets.get(s.name, {}).get(bucket) == value]).as_dict() for value in values}
    return {"model": str(model), "sha256": _sha256(model), "all": evaluation.summarise(scores).as_dict(),
            "buckets": per_bucket,
            "per_photo": [{"name": s.name, "iou": round(s.iou if s.detected else 0.0, 6), "detected": s.detected,
                           **buckets.get(s.name, {})} for s in scores]}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--model", type=Path, action="append", required=True)
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    args = parser.parse_args(argv)
    try:
        report = score(args.data, args.model, args.threshold)
    except (FileNotFoundError, NailSegmenterError, ValueError) as exc:
        print(f"score_nail_model: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
