"""`nailmirror eval`: try-on accuracy on photos with true nail masks (ARCHITECTURE.md §12).

    nailmirror eval --data DIR [--json]

DIR holds images/ and masks/ (masks/<image stem>.png, nail = non-zero). Prints a table per image and a summary,
then one JSON line with the dataset's metrics (with --json, only that line).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nailmirror_desktop.vision.evaluation import DatasetScore, ImageScore

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("eval", help="measure try-on accuracy against true nail masks",
                                   description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, type=Path, metavar="DIR", help="folder with images/ and masks/")
    parser.add_argument("--json", action="store_true", help="print only the final JSON line")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from nailmirror_desktop.vision.evaluation import dataset_pairs, evaluate, landmark_painter
    from nailmirror_desktop.vision.hand_model import HandModelError
    from nailmirror_desktop.vision.still_detection import StillHandDetector

    try:
        pairs = dataset_pairs(args.data)
    except FileNotFoundError as exc:
        print(f"nailmirror eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        with StillHandDetector() as detector:
            scores, summary = evaluate(pairs, landmark_painter(detector))
    except HandModelError as exc:
        print(f"nailmirror eval: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except ValueError as exc:
        print(f"nailmirror eval: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if not args.json:
        _print_table(scores, summary)
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
