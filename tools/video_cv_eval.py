"""The video eval out of sample: each clip scored with the fold model that never saw its photo.

    .venv-train/bin/python tools/train_nail_model.py cv --out build/nail_oof.npz --jobs 2 --fold-models build/folds
    PYTHONPATH=$PWD .venv/bin/python tools/video_cv_eval.py --clips DIR [--rois build/nail_rois.npz]
        [--oof build/nail_oof.npz] [--models build/folds] [--segment-every N] [--threshold T]

`nailmirror eval --video` scores the committed segmenter, which was trained on every photo the clips are made
from (tools/make_eval_clips.py): in-sample. Here the clip made from photo P runs the whole video path (the same
`TryOnPipeline` as the eval, fresh per clip) with models/fold<k>.onnx, k being P's fold in the cross-validation
that wrote --oof (its `fold_of_photo`, over the photo names in --rois). Prints per-fold lines on stderr and one
JSON line: iou_frames, nail_recall, blink_rate over all clips, and per fold.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nailmirror_desktop.vision.evaluation.video import (  # noqa: E402
    VideoCounts,
    score_clip,
    summarise,
    video_clips,
    video_path_coverages,
)
from nailmirror_desktop.vision.nails.nail_segmenter import DEFAULT_THRESHOLD, NailSegmenter  # noqa: E402
from nailmirror_desktop.vision.paint.compositor import Compositor  # noqa: E402
from nailmirror_desktop.vision.pipeline import SEGMENT_EVERY, TryOnPipeline  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clips", required=True, type=Path)
    parser.add_argument("--rois", type=Path, default=Path("build/nail_rois.npz"))
    parser.add_argument("--oof", type=Path, default=Path("build/nail_oof.npz"))
    parser.add_argument("--models", type=Path, default=Path("build/folds"))
    parser.add_argument("--segment-every", type=int, default=SEGMENT_EVERY,
                        help="run the segmenter every N-th frame, masks carried between (a heavier live model)")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    args = parser.parse_args(argv)
    if args.segment_every < 1:
        print("video_cv_eval: --segment-every must be at least 1", file=sys.stderr)
        return 2
    for path in (args.rois, args.oof):
        if not path.is_file():
            print(f"video_cv_eval: {path} not found (see the usage above)", file=sys.stderr)
            return 2
    names = [Path(str(name)).stem for name in np.load(args.rois)["names"]]
    fold_of_photo = np.load(args.oof)["fold_of_photo"]
    fold_of = dict(zip(names, (int(f) for f in fold_of_photo), strict=True))
    start = time.perf_counter()
    segmenters: dict[int, NailSegmenter] = {}
    per_fold: dict[int, dict[str, VideoCounts]] = {}
    for clip in video_clips(args.clips):
        if clip.name not in fold_of:
            print(f"video_cv_eval: {clip.name}: no such photo in {args.rois}", file=sys.stderr)
            return 2
        fold = fold_of[clip.name]
        if fold not in segmenters:
            model = args.models / f"fold{fold}.onnx"
            if not model.is_file():
                print(f"video_cv_eval: {model} not found (train_nail_model.py cv --fold-models)", file=sys.stderr)
                return 2
            segmenters[fold] = NailSegmenter(model, threshold=args.threshold,
                                             expected_sha256=hashlib.sha256(model.read_bytes()).hexdigest())
        with TryOnPipeline(Compositor(np.full((8, 8, 3), 255, np.uint8)), segmenter=segmenters[fold],
                           segment_every=args.segment_every) as pipeline:
            per_fold.setdefault(fold, {})[clip.name] = score_clip(clip, video_path_coverages(clip, pipeline))
    every = {name: counts for clips in per_fold.values() for name, counts in clips.items()}
    folds = {}
    for fold in sorted(per_fold):
        folds[str(fold)] = summarise(per_fold[fold]).as_dict()
        print(f"fold {fold}: {json.dumps(folds[str(fold)])}", file=sys.stderr)
    print(json.dumps({**summarise(every, time.perf_counter() - start).as_dict(), "out_of_sample": True,
                      "folds": folds}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
