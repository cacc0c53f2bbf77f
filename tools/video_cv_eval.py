"""The video eval out of sample: each clip scored with the fold model that never saw its photo.

    .venv-train/bin/python tools/train_nail_model.py cv --out build/nail_oof.npz --jobs 2 --fold-models build/folds
    PYTHONPATH=$PWD .venv/bin/python tools/video_cv_eval.py --clips DIR [--rois build/nail_rois.npz]
        [--oof build/nail_oof.npz] [--models build/folds] [--segment-every N] [--threshold T]
        [--full-frame-models build/full_frame_folds] [--full-frame-threshold T]

`nailmirror eval --video` scores the committed segmenter, which was trained on every photo the clips are made
from (tools/make_eval_clips.py): in-sample. Here the clip made from photo P runs the whole video path (the same
`TryOnPipeline` as the eval, fresh per clip) with models/fold<k>.onnx, k being P's fold in the cross-validation
that wrote --oof (its `fold_of_photo`, over the photo names in --rois). The full-frame fallback in video (frames
with no hand tracked and no nail held; on in the product, checked by the clip's fold segmenter) runs only with
--full-frame-models, each clip with the fold model of tools/train_full_frame_model.py cv that never saw its photo
(DIR/folds.json): without it the figures are the product's without its fallback.
Prints per-fold lines on stderr and one JSON line: iou_frames, nail_recall, blink_rate over all clips, and per fold.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable
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
from nailmirror_desktop.vision.nails.full_frame import DEFAULT_THRESHOLD as FULL_FRAME_THRESHOLD  # noqa: E402
from nailmirror_desktop.vision.nails.full_frame import FullFrameModel  # noqa: E402
from nailmirror_desktop.vision.nails.nail_segmenter import DEFAULT_THRESHOLD, NailSegmenter  # noqa: E402
from nailmirror_desktop.vision.paint.compositor import Compositor  # noqa: E402
from nailmirror_desktop.vision.pipeline import SEGMENT_EVERY, TryOnPipeline  # noqa: E402


class UsageError(Exception):
    """A missing file or photo: one line, exit 2."""


def fold_models[Model](folder: Path, what: str, load: Callable[[Path, str], Model]) -> Callable[[int], Model]:
    """fold → the loaded DIR/fold<k>.onnx (its sha256 taken as it is: a fold model has no pin), on first use."""
    loaded: dict[int, Model] = {}

    def get(fold: int) -> Model:
        if fold not in loaded:
            path = folder / f"fold{fold}.onnx"
            if not path.is_file():
                raise UsageError(f"{path} not found ({what})")
            loaded[fold] = load(path, hashlib.sha256(path.read_bytes()).hexdigest())
        return loaded[fold]

    return get


def full_frame_folds(folder: Path | None) -> dict[str, int]:
    if folder is None:
        return {}
    folds_file = folder / "folds.json"
    if not folds_file.is_file():
        raise UsageError(f"{folds_file} not found (train_full_frame_model.py cv)")
    return {Path(name).stem: int(fold) for name, fold in json.loads(folds_file.read_text(encoding="utf-8")).items()}


def evaluate(args: argparse.Namespace) -> dict[str, object]:
    for path in (args.rois, args.oof):
        if not path.is_file():
            raise UsageError(f"{path} not found (see the usage above)")
    names = [Path(str(name)).stem for name in np.load(args.rois)["names"]]
    fold_of = dict(zip(names, (int(f) for f in np.load(args.oof)["fold_of_photo"]), strict=True))
    other_fold_of = full_frame_folds(args.full_frame_models)
    segmenter = fold_models(args.models, "train_nail_model.py cv --fold-models",
                            lambda path, sha: NailSegmenter(path, threshold=args.threshold, expected_sha256=sha))
    full_frame = None if args.full_frame_models is None else fold_models(
        args.full_frame_models, "train_full_frame_model.py cv",
        lambda path, sha: FullFrameModel(path, threshold=args.full_frame_threshold, expected_sha256=sha))
    start = time.perf_counter()
    per_fold: dict[int, dict[str, VideoCounts]] = {}
    for clip in video_clips(args.clips):
        if clip.name not in fold_of:
            raise UsageError(f"{clip.name}: no such photo in {args.rois}")
        fallback = None
        if full_frame is not None:
            if clip.name not in other_fold_of:
                raise UsageError(f"{clip.name}: not in {args.full_frame_models / 'folds.json'}")
            fallback = full_frame(other_fold_of[clip.name])
        with TryOnPipeline(Compositor(np.full((8, 8, 3), 255, np.uint8)), segmenter=segmenter(fold_of[clip.name]),
                           segment_every=args.segment_every, full_frame=fallback is not None,
                           full_frame_model=fallback, video_full_frame=fallback is not None) as pipeline:
            per_fold.setdefault(fold_of[clip.name], {})[clip.name] = score_clip(
                clip, video_path_coverages(clip, pipeline))
    every = {name: counts for clips in per_fold.values() for name, counts in clips.items()}
    folds = {}
    for fold in sorted(per_fold):
        folds[str(fold)] = summarise(per_fold[fold]).as_dict()
        print(f"fold {fold}: {json.dumps(folds[str(fold)])}", file=sys.stderr)
    return {**summarise(every, time.perf_counter() - start).as_dict(), "out_of_sample": True,
            "full_frame": args.full_frame_models is not None, "folds": folds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clips", required=True, type=Path)
    parser.add_argument("--rois", type=Path, default=Path("build/nail_rois.npz"))
    parser.add_argument("--oof", type=Path, default=Path("build/nail_oof.npz"))
    parser.add_argument("--models", type=Path, default=Path("build/folds"))
    parser.add_argument("--segment-every", type=int, default=SEGMENT_EVERY,
                        help="run the segmenter every N-th frame, masks carried between (a heavier live model)")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--full-frame-models", type=Path, default=None,
                        help="the full-frame fallback's fold models (train_full_frame_model.py cv: DIR/fold<k>.onnx "
                             "and DIR/folds.json); without, the fallback is off")
    parser.add_argument("--full-frame-threshold", type=float, default=FULL_FRAME_THRESHOLD)
    args = parser.parse_args(argv)
    if args.segment_every < 1:
        print("video_cv_eval: --segment-every must be at least 1", file=sys.stderr)
        return 2
    try:
        report = evaluate(args)
    except UsageError as error:
        print(f"video_cv_eval: {error}", file=sys.stderr)
        return 2
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
