"""Fingertip close-ups with no palm, cut from photos with nail masks (issue #23 point 4: the full-frame fallback).

  python tools/make_closeups.py [--data ../shared/data/nails_eval] [--out build/closeups] [--per-photo 3]

For every photo of DIR (images/ + masks/, as `nailmirror eval --data` reads them), sorted by name as
tools/extract_nail_rois.py numbers them: the still detector finds the hand, which gives the fingers' direction
(wrist → nails); the mask's nails (connected components) are grouped 2–4 neighbours at a time, and each group is
cropped with a margin that reaches only a little below the cuticles (toward the palm) and a little past the tips,
so neither palm nor wrist is in frame. A photo where no hand is found gives no close-ups (no direction to crop
along). Every crop is then shown to the still detector again, and whether it found a hand is recorded.

Writes OUT/images/<stem>__<k>.png (lossless: the crop's own pixels), OUT/masks/<stem>__<k>.png (the true mask's
crop: every nail in frame, partial ones included) and OUT/index.csv (name, source photo, its index in the sorted
photo list, the crop box, nails in the group, hand_found). Deterministic: the groups are drawn by a
numpy.random.Generator seeded per photo. Prints one JSON line with the counts.

  python tools/make_closeups.py --out build/closeups --data DIR --pack build/full_frame_data.npz [--size 128]

packs the close-ups and DIR's whole photos letterboxed exactly as the product's full-frame model sees them, for
tools/train_full_frame_model.py (its environment has no OpenCV).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nailmirror_desktop.vision.evaluation.photos import dataset_pairs  # noqa: E402
from nailmirror_desktop.vision.types import HandObservation  # noqa: E402

SEED = 20261205
MIN_NAIL_PX = 20  # mask specks below this are JPEG noise left in the truth, not nails
GROUP_SIZES = (2, 3, 4)
NEIGHBOUR_REACH = 3.0  # a nail joins a group within this many nail lengths of the anchor
BELOW_CUTICLE = 0.4  # nail lengths of finger kept below the group's cuticles (toward the palm)
PAST_TIPS = 0.4  # nail lengths of background kept past the tips
BESIDE = 0.35  # nail lengths kept on each side of the group
MIN_SIDE = 48  # px: a smaller crop is too few pixels to be a close-up


@dataclass(frozen=True)
class Nail:
    centroid: np.ndarray  # (2,) x, y
    pixels: np.ndarray  # (n, 2) x, y


@dataclass(frozen=True)
class Closeup:
    name: str
    source: str
    photo: int
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 (x1, y1 exclusive)
    nails: int
    hand_found: bool


def nails_of(mask: np.ndarray) -> list[Nail]:
    count, labels, _, centroids = cv2.connectedComponentsWithStats((mask > 0).astype(np.uint8), connectivity=8)
    out = []
    for label in range(1, count):
        ys, xs = np.nonzero(labels == label)
        if len(xs) >= MIN_NAIL_PX:
            out.append(Nail(np.asarray(centroids[label], np.float64), np.stack([xs, ys], 1).astype(np.float64)))
    return out


def finger_direction(hands: list[HandObservation], point: np.ndarray) -> np.ndarray | None:
    """Unit (x, y) from the wrist of the hand whose fingertips are nearest `point` toward `point`."""
    if not hands:
        return None
    tips = (4, 8, 12, 16, 20)
    hand = min(hands, key=lambda h: float(np.min(np.linalg.norm(h.landmarks[tips, :2] - point, axis=1))))
    vector = point - hand.landmarks[0, :2].astype(np.float64)
    norm = float(np.linalg.norm(vector))
    return None if norm < 1e-6 else vector / norm


def crop_box(group: list[Nail], direction: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """The axis-aligned box of the group's rectangle along `direction`, margins in nail lengths, in the image."""
    across = np.array([-direction[1], direction[0]])
    lengths = [float(np.ptp(nail.pixels @ direction)) + 1.0 for nail in group]
    length = float(np.median(lengths))
    points = np.concatenate([nail.pixels for nail in group])
    along, side = points @ direction, points @ across
    a0, a1 = along.min() - BELOW_CUTICLE * length, along.max() + PAST_TIPS * length
    s0, s1 = side.min() - BESIDE * length, side.max() + BESIDE * length
    corners = np.array([a * direction + s * across for a in (a0, a1) for s in (s0, s1)])
    height, width = shape[:2]
    x0, y0 = max(0, int(np.floor(corners[:, 0].min()))), max(0, int(np.floor(corners[:, 1].min())))
    x1, y1 = min(width, int(np.ceil(corners[:, 0].max())) + 1), min(height, int(np.ceil(corners[:, 1].max())) + 1)
    if x1 - x0 < MIN_SIDE or y1 - y0 < MIN_SIDE:
        return None
    return x0, y0, x1, y1


def groups_of(nails: list[Nail], rng: np.random.Generator, per_photo: int) -> list[list[int]]:
    """Up to `per_photo` distinct groups of 2–4 neighbouring nails (indices), drawn from random anchors."""
    if len(nails) < 2:
        return []
    centroids = np.stack([nail.centroid for nail in nails])
    size = float(np.median([np.sqrt(len(nail.pixels)) for nail in nails]))
    seen: set[frozenset[int]] = set()
    out: list[list[int]] = []
    for anchor in rng.permutation(len(nails)):
        k = int(rng.choice(GROUP_SIZES))
        distance = np.linalg.norm(centroids - centroids[anchor], axis=1)
        near = [int(i) for i in np.argsort(distance) if distance[i] <= NEIGHBOUR_REACH * size * max(1, k - 1)]
        group = near[:k]
        if len(group) < 2 or frozenset(group) in seen:
            continue
        seen.add(frozenset(group))
        out.append(sorted(group))
        if len(out) == per_photo:
            break
    return out


def make(data: Path, out: Path, per_photo: int, seed: int) -> dict[str, object]:
    from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector

    start = time.perf_counter()
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "masks").mkdir(parents=True, exist_ok=True)
    made: list[Closeup] = []
    no_hand_photos = []
    with StillHandDetector() as detector:
        for photo, (image_path, mask_path) in enumerate(dataset_pairs(data)):
            image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
            truth = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
            hands = detector.detect(image)
            if not hands:
                no_hand_photos.append(image_path.name)
                continue
            nails = nails_of(truth)
            rng = np.random.default_rng([seed, photo])
            for group in groups_of(nails, rng, per_photo):
                members = [nails[i] for i in group]
                direction = finger_direction(hands, np.mean([n.centroid for n in members], axis=0))
                box = None if direction is None else crop_box(members, direction, image.shape)
                if box is None:
                    continue
                x0, y0, x1, y1 = box
                crop, crop_mask = image[y0:y1, x0:x1], truth[y0:y1, x0:x1]
                name = f"{image_path.stem}__{len([c for c in made if c.source == image_path.name])}"
                cv2.imwrite(str(out / "images" / f"{name}.png"), crop)
                cv2.imwrite(str(out / "masks" / f"{name}.png"), np.where(crop_mask > 0, 255, 0).astype(np.uint8))
                found = bool(detector.detect(np.ascontiguousarray(crop)))
                made.append(Closeup(name, image_path.name, photo, box, len(group), found))
    with (out / "index.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["name", "source", "photo", "x0", "y0", "x1", "y1", "nails", "hand_found"])
        for c in made:
            writer.writerow([f"{c.name}.png", c.source, c.photo, *c.box, c.nails, int(c.hand_found)])
    return {"closeups": len(made), "hand_found": sum(c.hand_found for c in made),
            "no_hand": sum(not c.hand_found for c in made), "photos_used": len({c.source for c in made}),
            "photos_without_hand": no_hand_photos, "seed": seed, "seconds": round(time.perf_counter() - start, 1),
            "out": str(out)}


def pack(closeups: Path, photos: Path | None, out: Path, size: int,
         negatives: Path | None = None) -> dict[str, object]:
    """The close-ups (and the whole photos, and the hand-free images of tools/make_negatives.py with empty masks and
    photo -1) letterboxed as the product's full-frame model sees them (vision/nails/full_frame.py `letterboxed`),
    for tools/train_full_frame_model.py (which has no OpenCV)."""
    from nailmirror_desktop.vision.nails.full_frame import letterboxed

    def read(image_path: Path, mask_path: Path | None) -> tuple[np.ndarray, np.ndarray]:
        """The image and its mask letterboxed; no mask path: a hand-free image, its mask empty."""
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        boxed = (letterboxed(image, size)[0].transpose(1, 2, 0) * 255 + 0.5).astype(np.uint8)
        if mask_path is None:
            return boxed, np.zeros((size, size), np.uint8)
        mask = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
        mask3 = cv2.cvtColor(np.where(mask > 0, 255, 0).astype(np.uint8), cv2.COLOR_GRAY2BGR)
        boxed_mask = (letterboxed(mask3, size)[0, 0] * 255 + 0.5).astype(np.uint8)
        return boxed, boxed_mask

    images, masks, photo, names = [], [], [], []
    with (closeups / "index.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            image, mask = read(closeups / "images" / row["name"], closeups / "masks" / row["name"])
            images.append(image), masks.append(mask), photo.append(int(row["photo"])), names.append(row["name"])
    photo_names = []
    if photos is not None:
        for index, (image_path, mask_path) in enumerate(dataset_pairs(photos)):
            image, mask = read(image_path, mask_path)
            images.append(image), masks.append(mask), photo.append(index), names.append(image_path.name)
            photo_names.append(image_path.name)
    if negatives is not None:
        for image_path in sorted(negatives.glob("*.png")):
            image, mask = read(image_path, None)
            images.append(image), masks.append(mask), photo.append(-1), names.append(image_path.name)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, images=np.stack(images), masks=np.stack(masks), photo=np.array(photo, np.int64),
                        names=np.array(names), photo_names=np.array(photo_names))
    return {"items": len(names), "photos": len(photo_names), "negatives": photo.count(-1), "size": size,
            "out": str(out)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack", type=Path, default=None, metavar="NPZ",
                        help="instead: pack --out's close-ups and --data's photos letterboxed into NPZ for "
                             "tools/train_full_frame_model.py")
    parser.add_argument("--size", type=int, default=96, help="--pack: the full-frame model's input side")
    parser.add_argument("--negatives", type=Path, default=None,
                        help="--pack: also the hand-free images of tools/make_negatives.py, with empty masks")
    shared = Path(os.environ.get("NAILMIRROR_SHARED_DATA") or ROOT.parent / "shared" / "data")
    parser.add_argument("--data", type=Path, default=shared / "nails_eval")
    parser.add_argument("--out", type=Path, default=Path("build/closeups"))
    parser.add_argument("--per-photo", type=int, default=3)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    try:
        pairs = dataset_pairs(args.data)
    except FileNotFoundError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    del pairs
    if args.pack is not None:
        print(json.dumps(pack(args.out, args.data, args.pack, args.size, args.negatives)))
        return 0
    print(json.dumps(make(args.data, args.out, args.per_photo, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
