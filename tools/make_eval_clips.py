"""Moving eval clips from still photos with nail masks: smooth synthetic camera motion, the masks moved alike.

    PYTHONPATH=$PWD .venv/bin/python tools/make_eval_clips.py --data PHOTOS --out DIR [--frames 45] [--seed 7]

PHOTOS holds images/ and masks/ as `nailmirror eval` reads them. For every photo DIR/<stem>/clip.mp4 (mp4v,
30 FPS) and DIR/<stem>/gt/000000.png … (8-bit, 255 = nail, one per frame, the frame's size) are written, for
`nailmirror eval --video --data DIR`. Each frame is the photo under one affine "camera" (zoom, turn and pan,
each a sum of two slow sines with seeded phases, so the motion is smooth and differs from clip to clip); the
mask is warped by the same affine and thresholded at half. Where the camera looks past the photo's edge the frame
is black and the truth empty: there is nothing there to see. (Borders used to reflect the photo, masks alike, which
put mirror images of fingertips at the edges — 614 of the 52 clips' 13,459 nail-frames — nails on no hand, that no
camera shows and no try-on should paint.) Photos over --max-side are scaled down first; sides are made even
for the encoder. The motion starts at rest at the photo's own view, as a hand held up to the mirror would.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nailmirror_desktop.vision.evaluation import dataset_pairs  # noqa: E402

FPS = 30.0
ZOOM, TURN_DEG, PAN = 0.10, 6.0, 0.06  # amplitudes: ± zoom, ± degrees, ± share of the shorter side


def camera(t: float, size: tuple[int, int], rng_phases: np.ndarray) -> np.ndarray:
    """The (2, 3) affine of the synthetic camera at `t` in [0, 1] (0: the photo as it is), for (w, h)."""
    w, h = size
    ramp = 0.5 - 0.5 * math.cos(math.pi * min(t * 3.0, 1.0))  # eases in from rest over the first third

    def wave(k: int) -> float:
        p1, p2 = rng_phases[2 * k], rng_phases[2 * k + 1]
        return ramp * (0.7 * math.sin(2 * math.pi * 0.8 * t + p1) - 0.7 * math.sin(p1)
                       + 0.3 * math.sin(2 * math.pi * 1.7 * t + p2) - 0.3 * math.sin(p2))

    scale = 1.0 + ZOOM * wave(0)
    angle = TURN_DEG * wave(1)
    shift = PAN * min(w, h) * np.array([wave(2), wave(3)])
    matrix = cv2.getRotationMatrix2D((0.5 * w, 0.5 * h), angle, scale)
    matrix[:, 2] += shift
    return matrix


def make_clip(image: np.ndarray, mask: np.ndarray, out: Path, frames: int, seed: int) -> int:
    h, w = image.shape[:2]
    w, h = w - w % 2, h - h % 2
    image, mask = image[:h, :w], mask[:h, :w]
    phases = np.random.default_rng(seed).uniform(0, 2 * math.pi, 8)
    (out / "gt").mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(out / "clip.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), FPS, (w, h))
    if not writer.isOpened():
        raise OSError(f"{out / 'clip.mp4'}: cannot write video (mp4v)")
    try:
        for index in range(frames):
            matrix = camera(index / max(frames - 1, 1), (w, h), phases)
            frame = cv2.warpAffine(image, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                   borderValue=(0, 0, 0))
            moved = cv2.warpAffine(mask, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                   borderValue=0)
            writer.write(frame)
            if not cv2.imwrite(str(out / "gt" / f"{index:06d}.png"), np.where(moved >= 128, 255, 0).astype(np.uint8)):
                raise OSError(f"{out / 'gt'}: cannot write masks")
    finally:
        writer.release()
    return frames


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, type=Path, help="photos: images/ and masks/")
    parser.add_argument("--out", required=True, type=Path, help="where the clip folders go")
    parser.add_argument("--frames", type=int, default=45)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-side", type=int, default=960)
    parser.add_argument("--limit", type=int, default=0, help="only the first N photos (0: all)")
    args = parser.parse_args(argv)
    try:
        pairs = dataset_pairs(args.data)
    except FileNotFoundError as exc:
        print(f"make_eval_clips: {exc}", file=sys.stderr)
        return 2
    if args.limit:
        pairs = pairs[:args.limit]
    total = 0
    for number, (image_path, mask_path) in enumerate(pairs):
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        mask = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
        if image is None or mask is None or image.shape[:2] != mask.shape:
            print(f"make_eval_clips: {image_path.name}: unreadable or its mask differs in size", file=sys.stderr)
            return 1
        mask = np.where(mask > 0, 255, 0).astype(np.uint8)
        factor = args.max_side / max(image.shape[:2])
        if factor < 1.0:
            size = (round(image.shape[1] * factor), round(image.shape[0] * factor))
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
            mask = np.where(cv2.resize(mask, size, interpolation=cv2.INTER_LINEAR) >= 128, 255, 0).astype(np.uint8)
        total += make_clip(image, mask, args.out / image_path.stem, args.frames, args.seed * 1000 + number)
    print(json.dumps({"clips": len(pairs), "frames": total, "out": str(args.out)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
