"""Diagnostic: where the still path paints against true nail masks, as overlay images to look at.

    .venv/bin/python tools/nail_overlay.py --data DIR --out OUT.png [--only STEM_PREFIX ...] [--no-refine]

DIR is an evaluation folder (images/, masks/ as `nailmirror eval` takes). Each image gives a pair of tiles: the
photo, and the photo with true-and-painted pixels yellow, painted-only (not nail) red, missed nail green and the
landmarks blue. For looking at failure modes only; the metrics come from `nailmirror eval`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from nailmirror_desktop.vision.evaluation import dataset_pairs
from nailmirror_desktop.vision.paint.compositor import coverage_mask
from nailmirror_desktop.vision.pipeline import place_nails
from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector

TILE = 400
_COLOURS = {"hit": (0, 255, 255), "false": (0, 0, 255), "missed": (0, 255, 0)}  # BGR


def overlay(image: np.ndarray, truth: np.ndarray, painted: np.ndarray, hands) -> np.ndarray:
    vis = image.copy()
    true_on, painted_on = truth > 0, painted > 0
    for name, where in (("hit", true_on & painted_on), ("false", painted_on & ~true_on),
                        ("missed", true_on & ~painted_on)):
        vis[where] = (0.4 * vis[where] + 0.6 * np.array(_COLOURS[name])).astype(np.uint8)
    for hand in hands:
        for x, y, _ in hand.landmarks:
            cv2.circle(vis, (int(x), int(y)), max(2, image.shape[1] // 300), (255, 0, 0), -1)
    return vis


def _tile(image: np.ndarray) -> np.ndarray:
    scale = TILE / max(image.shape[:2])
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    canvas = np.zeros((TILE, TILE, 3), np.uint8)
    canvas[:small.shape[0], :small.shape[1]] = small
    return canvas


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=[], help="image name prefixes to include")
    parser.add_argument("--no-refine", action="store_true", help="paint the landmark quads' shapes as they are")
    args = parser.parse_args()
    rows = []
    with StillHandDetector() as detector:
        for image_path, mask_path in dataset_pairs(args.data):
            if args.only and not any(image_path.name.startswith(p) for p in args.only):
                continue
            image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            truth = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
            hands = detector.detect(image)
            quads, masks, _ = place_nails(image, hands, masks="quads" if args.no_refine else "grabcut")
            painted = coverage_mask(quads, image.shape, masks)
            rows.append(np.hstack([_tile(image), _tile(overlay(image, truth, painted, hands))]))
    if not rows:
        print("no images matched")
        return 1
    if len(rows) % 2:
        rows.append(np.zeros_like(rows[0]))
    grid = np.vstack([np.hstack(rows[i:i + 2]) for i in range(0, len(rows), 2)])
    cv2.imwrite(str(args.out), grid)
    print(f"{len(rows)} tiles → {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
