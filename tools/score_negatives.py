"""Nails painted where there is no hand: the still path and the full-frame fallback on hand-free images.

    PYTHONPATH=$PWD .venv/bin/python tools/score_negatives.py --data build/negatives_eval [--model M.onnx]
        [--threshold 0.6 0.7 ...] [--video-frames 90]

DIR holds hand-free images (tools/make_negatives.py --held-out: never trained on). Each is painted as the product
paints a still (`TryOnPipeline.process_still`: the hand search, the ROI path, and where no hand is found the
full-frame model, --model or the bundled one); every painted nail there is a phantom. Per threshold of the
full-frame model: images with a phantom, phantom nails in all, and how many came from a phantom hand (the ROI
path) and how many from the fallback. Prints one line per image on stderr and one JSON line.

--video-frames N: also each image as an empty counter under the live mirror, N frames of it through the video path
(`process_video_frame`, 33 ms apart, the hand search and the checked full-frame fallback as the kiosk runs them; the
video state reset between images): images with a phantom on any frame, and phantom nails per frame.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nailmirror_desktop.vision.nails.full_frame import DEFAULT_THRESHOLD, FullFrameModel  # noqa: E402
from nailmirror_desktop.vision.paint.compositor import Compositor  # noqa: E402
from nailmirror_desktop.vision.pipeline import TryOnPipeline  # noqa: E402

SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")


def score(images: list[Path], model: FullFrameModel, thresholds: list[float]) -> dict[str, object]:
    report: dict[str, object] = {"images": len(images), "model": str(model.path)}
    with TryOnPipeline(Compositor(np.full((8, 8, 3), 255, np.uint8)), full_frame_model=model) as pipeline:
        for threshold in thresholds:
            model.threshold = threshold
            with_phantom = from_hands = from_fallback = 0
            for path in images:
                image = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if image is None:
                    raise ValueError(f"{path}: not a readable image")
                result = pipeline.process_still(np.asarray(image, np.uint8), want_coverage=False)
                painted = sum(1 for quad in result.quads if quad.opacity > 0)
                if result.hands:
                    from_hands += painted
                else:
                    from_fallback += painted
                with_phantom += painted > 0
                print(f"{threshold} {path.name}: {len(result.hands)} hands, {painted} nails", file=sys.stderr)
            report[str(threshold)] = {"images_with_phantom": with_phantom, "phantom_nails": from_hands + from_fallback,
                                      "from_phantom_hands": from_hands, "from_fallback": from_fallback}
    return report


def score_video(images: list[Path], model: FullFrameModel, thresholds: list[float], frames: int) -> dict[str, object]:
    report: dict[str, object] = {}
    with TryOnPipeline(Compositor(np.full((8, 8, 3), 255, np.uint8)), full_frame_model=model) as pipeline:
        for threshold in thresholds:
            model.threshold = threshold
            with_phantom = nail_frames = 0
            for path in images:
                image = np.asarray(cv2.imread(str(path), cv2.IMREAD_COLOR), np.uint8)
                pipeline.reset_tracking()
                painted = [sum(1 for quad in pipeline.process_video_frame(image.copy(), 33 * i).quads
                               if quad.opacity > 0) for i in range(frames)]
                with_phantom += any(painted)
                nail_frames += sum(painted)
                print(f"{threshold} video {path.name}: {sum(map(bool, painted))} of {frames} frames painted",
                      file=sys.stderr)
            report[str(threshold)] = {"images_with_phantom": with_phantom,
                                      "phantom_nails_per_frame": round(nail_frames / (frames * len(images)), 4)}
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--model", type=Path, default=None, help="a full-frame model file (default: the bundled one)")
    parser.add_argument("--threshold", type=float, nargs="+", default=[DEFAULT_THRESHOLD])
    parser.add_argument("--video-frames", type=int, default=0, help="also N frames of each image as live video")
    args = parser.parse_args(argv)
    images = sorted(p for p in args.data.iterdir() if p.suffix.lower() in SUFFIXES) if args.data.is_dir() else []
    if not images:
        print(f"score_negatives: no images in {args.data} (tools/make_negatives.py --held-out DIR)", file=sys.stderr)
        return 2
    try:
        model = (FullFrameModel() if args.model is None else
                 FullFrameModel(args.model, expected_sha256=hashlib.sha256(args.model.read_bytes()).hexdigest()))
        report = score(images, model, args.threshold)
        if args.video_frames > 0:
            report["video"] = score_video(images, model, args.threshold, args.video_frames)
        print(json.dumps(report))
    except (OSError, ValueError, RuntimeError) as error:
        print(f"score_negatives: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
