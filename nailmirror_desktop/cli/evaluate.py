"""`nailmirror eval`: try-on accuracy on photos or moving clips with true nail masks (ARCHITECTURE.md §12).

    nailmirror eval --data DIR [--masks model|grabcut|quads] [--no-full-frame] [--json]
    nailmirror eval --video --data DIR [--json]

Photos: DIR holds images/ and masks/ (masks/<image stem>.png, nail = non-zero). Prints a table per image and a
summary, then one JSON line with the dataset's metrics (with --json, only that line). The JSON line says which
still masks were scored and, for the learned segmenter's, how many of the photos it was trained on
(`in_sample`): on those the figures are in-sample, and the cross-validated ones are in
models/NAIL_SEGMENTER_CARD.md. Video: DIR/<clip>/clip.mp4 + DIR/<clip>/gt/000000.png … (tools/make_eval_clips.py);
prints one JSON line with iou_frames, nail_recall and blink_rate (vision/evaluation/video.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nailmirror_desktop.vision.evaluation import DatasetScore, ImageScore
    from nailmirror_desktop.vision.evaluation.video import Clip, VideoCounts

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("eval", help="measure try-on accuracy against true nail masks",
                                   description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, type=Path, metavar="DIR", help="folder with images/ and masks/")
    parser.add_argument("--json", action="store_true", help="print only the final JSON line")
    parser.add_argument("--video", action="store_true", help="DIR holds moving clips (<clip>/clip.mp4, <clip>/gt/)")
    parser.add_argument("--masks", choices=("model", "grabcut", "quads"), default=None,
                        help="still nail masks to score (default: the product's)")
    parser.add_argument("--no-full-frame", dest="full_frame", action="store_false",
                        help="score without the full-frame fallback where no hand is found")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from nailmirror_desktop.vision.evaluation import dataset_pairs, evaluate, landmark_painter
    from nailmirror_desktop.vision.nails.full_frame import FullFrameModelError
    from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenterError, training_photos
    from nailmirror_desktop.vision.pipeline import STILL_MASKS
    from nailmirror_desktop.vision.tracking.hand_model import HandModelError
    from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector

    if args.video:
        return _run_video(args)
    try:
        pairs = dataset_pairs(args.data)
    except FileNotFoundError as exc:
        print(f"nailmirror eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        with StillHandDetector() as detector:
            scores, summary = evaluate(pairs, landmark_painter(detector, masks=args.masks,
                                                                full_frame=args.full_frame))
    except (HandModelError, NailSegmenterError, FullFrameModelError) as exc:
        print(f"nailmirror eval: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except ValueError as exc:
        print(f"nailmirror eval: {exc}", file=sys.stderr)
        return EXIT_FAILED
    masks = args.masks or STILL_MASKS
    line: dict[str, object] = {**summary.as_dict(), "masks": masks, "full_frame": args.full_frame}
    if masks == "model":
        trained_on = training_photos() & {image.name for image, _ in pairs}
        line["in_sample"] = f"{len(trained_on)}/{len(pairs)}"
    if not args.json:
        _print_table(scores, summary)
        if masks == "model":
            print(f"note: the committed segmenter was trained on {line['in_sample']} of these photos: in-sample "
                  "figures (cross-validated ones: models/NAIL_SEGMENTER_CARD.md)")
    print(json.dumps(line))
    return EXIT_OK


def _run_video(args: argparse.Namespace) -> int:
    import numpy as np

    from nailmirror_desktop.vision.evaluation.video import evaluate_clips, score_clip, video_clips, video_path_coverages
    from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter, NailSegmenterError
    from nailmirror_desktop.vision.paint.compositor import Compositor
    from nailmirror_desktop.vision.pipeline import TryOnPipeline
    from nailmirror_desktop.vision.sources.readers import FrameSourceError
    from nailmirror_desktop.vision.tracking.hand_model import HandModelError

    try:
        clips = video_clips(args.data)
    except FileNotFoundError as exc:
        print(f"nailmirror eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        segmenter = NailSegmenter()

        def score(clip: Clip) -> VideoCounts:
            # a fresh pipeline per clip: no tracking state carries from one clip into the next; any opaque
            # texture paints exactly the coverage
            with TryOnPipeline(Compositor(np.full((8, 8, 3), 255, np.uint8)), segmenter=segmenter) as pipeline:
                counts = score_clip(clip, video_path_coverages(clip, pipeline))
            if not args.json:
                iou = counts.iou_sum / max(counts.frames, 1)
                print(f"{clip.name[:44]:<44} frames {counts.frames:>4}  IoU {iou:.3f}  nails "
                      f"{counts.recalled}/{counts.nail_frames}  blinks {counts.blinks}/{counts.covered_with_next}")
            return counts

        summary = evaluate_clips(clips, score)
    except (HandModelError, NailSegmenterError, ValueError) as exc:
        print(f"nailmirror eval: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except FrameSourceError as exc:
        print(f"nailmirror eval: cannot read a clip ({exc.code}: {exc})", file=sys.stderr)
        return EXIT_FAILED
    print(json.dumps(summary.as_dict()))
    return EXIT_OK


def _print_table(scores: list[ImageScore], summary: DatasetScore) -> None:
    print(f"{'image':<44} {'hand':>4} {'IoU':>6} {'nails':>7} {'painted px':>10}")
    for score in scores:
        print(f"{score.name[:44]:<44} {'yes' if score.detected else 'no':>4} {score.iou:6.3f} "
              f"{score.recalled_nails:>3}/{score.true_nails:<3} {score.painted_px:>10}")
    print()
    print(f"images {summary.images}   detection {summary.detection_rate:.3f}   "
          f"IoU {summary.mean_iou:.3f} (misses as 0) / {summary.mean_iou_detected:.3f} (detected)   "
          f"nail recall {summary.nail_recall:.3f}   precision {summary.precision:.3f}   {summary.seconds:.1f} s")
