"""Where the video path's blinks come from: each blink of the eval clips put down to the stage that dropped it.

    PYTHONPATH=$PWD .venv/bin/python tools/blink_causes.py --clips DIR [--rois R --oof O --models M] [--only CLIP]

A blink (vision/evaluation/video.py) is a true nail at least half painted in frame t−1 and under a fifth in
frame t. For each one this finds the tracked nail that painted it at t−1 and says what became of that nail at t:

- hold_ended: it was held (not seen) at t−1 and its hold ended (HOLD_FRAMES, or a turned hand beside it);
- hand_lost: it was seen at t−1, its track is gone and frame t has fewer hands;
- track_gone: it was seen at t−1 and its track is gone with as many hands;
- new_track_…: the finger's quad started a new track (too far from the old one), painted or bare;
- faded_off: the track is there but unpainted by the tracks (its fade went out; a `fading` nail the model did
  not find at its place);
- no_mask_seen / no_mask_held: on, but no mask (the segmenter found no nail and there was nothing carried);
- mask_elsewhere_…: painted, but not over the nail (seen/held, fresh/carried; the areas at t−1 and t, how much
  of the old place it still paints, how far its quad moved in nail lengths);
- other: no one nail painted it at t−1 (several halves).

Each blink also gets its gap: frames until that true nail is half painted again (-1: not in the clip).
With --oof/--models each clip runs its fold model (out of sample, as tools/video_cv_eval.py); without, the bundled
model (in-sample). Prints one line per blink on stderr and one JSON line: iou_frames, nail_recall, blink_rate
(the eval's), the counts per cause, finger, gap (7: 7 or more) and clip. A diagnostic: it wraps two of the
pipeline's private methods to watch them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nailmirror_desktop.vision.evaluation.video import (  # noqa: E402
    BLINK_BELOW,
    RECALL_COVERAGE,
    Clip,
    ClipScorer,
    VideoCounts,
    read_truth,
    summarise,
    video_clips,
)
from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter  # noqa: E402
from nailmirror_desktop.vision.paint.compositor import Compositor, coverage_mask  # noqa: E402
from nailmirror_desktop.vision.pipeline import TryOnPipeline  # noqa: E402
from nailmirror_desktop.vision.sources.readers import VideoFileSource  # noqa: E402


@dataclass(frozen=True)
class NailState:
    track_id: int
    finger: str
    seen: bool
    on: bool  # the tracks' hysteresis painted it
    painted: bool  # it had a mask and was painted
    fresh: bool  # its mask came from the segmenter this frame
    raw_opacity: float  # the geometry's fade (NaN when held)
    coverage: np.ndarray  # (H, W) bool
    corners: np.ndarray  # (4, 2) the tracked quad


@dataclass(frozen=True)
class FrameState:
    hands: int
    nails: dict[int, NailState]


class Probe:
    """Records, for each frame the pipeline paints, its tracked nails and what each painted."""

    def __init__(self, pipeline: TryOnPipeline) -> None:
        self.pipeline = pipeline
        self.raw: dict[int, float] = {}
        self.last: FrameState | None = None
        tracks = pipeline._nails
        original_update, original_masks = tracks.update, pipeline._video_masks

        def update(quads: Any, frames: float = 1.0) -> Any:
            nails = original_update(quads, frames)
            raw = {id(q): q.opacity for q in quads}
            self.raw = {}
            for nail in nails:
                self.raw[nail.track_id] = float("nan")
                for quad in quads:  # the seen nail's raw fade: its quad has the same corners
                    if nail.seen and np.array_equal(quad.corners, nail.quad.corners):
                        self.raw[nail.track_id] = raw[id(quad)]
            self.nails = nails
            return nails

        def video_masks(frame: np.ndarray, nails: Any, fresh: bool) -> Any:
            quads, masks = original_masks(frame, nails, fresh)
            ages = {t.track_id: t.mask_age for t in tracks._tracks}
            states = {}
            for nail, quad, mask in zip(nails, quads, masks, strict=True):
                cover = coverage_mask([quad], frame.shape, [mask]) > 0
                states[nail.track_id] = NailState(nail.track_id, nail.quad.finger.name.lower(), nail.seen,
                                                  nail.quad.opacity > 0, quad.opacity > 0,
                                                  ages.get(nail.track_id, -1) == 0, self.raw[nail.track_id], cover,
                                                  np.asarray(nail.quad.corners, np.float64))
            self.pending = states
            return quads, masks

        tracks.update = update  # type: ignore[method-assign]
        pipeline._video_masks = video_masks  # type: ignore[method-assign]

    def frame(self, hands: int) -> FrameState:
        return FrameState(hands, self.pending)


def cause(old: FrameState, new: FrameState, component_old: np.ndarray, component_new: np.ndarray) -> tuple[str, str]:
    """(cause, finger) of one blink: the true nail's pixels at t−1 and at t."""
    best, best_share = None, 0.0
    for state in old.nails.values():
        share = np.count_nonzero(state.coverage & component_old) / max(int(np.count_nonzero(component_old)), 1)
        if share > best_share:
            best, best_share = state, share
    if best is None or best_share < RECALL_COVERAGE:
        return "other", "?"
    now = new.nails.get(best.track_id)
    if now is None:
        if not best.seen:
            return "hold_ended", best.finger
        others = [s for s in new.nails.values() if s.finger == best.finger and s.track_id not in old.nails]
        if others:
            other = others[0]
            return (f"new_track_{'on' if other.on else 'off'}_{'painted' if other.painted else 'bare'}"
                    f"(raw {other.raw_opacity:.2f})"), best.finger
        return ("hand_lost" if new.hands < old.hands else "track_gone"), best.finger
    if not now.on:
        return f"faded_off(raw {now.raw_opacity:.2f})", best.finger
    if not now.painted:
        return ("no_mask_seen" if now.seen else "no_mask_held"), best.finger
    area_old, area_new = np.count_nonzero(best.coverage), np.count_nonzero(now.coverage)
    on_old = np.count_nonzero(now.coverage & component_old) / max(int(np.count_nonzero(component_old)), 1)
    return (f"mask_elsewhere_{'seen' if now.seen else 'held'}_{'fresh' if now.fresh else 'carried'}"
            f"(area {area_old}->{area_new}, on old place {on_old:.2f}, was {'fresh' if best.fresh else 'carried'}"
            f", quad moved {jump(best.corners, now.corners):.2f} lengths)",
            best.finger)


def jump(old: np.ndarray, new: np.ndarray) -> float:
    length = float(np.linalg.norm(0.5 * (old[0] + old[1]) - 0.5 * (old[2] + old[3])))
    return float(np.linalg.norm(new.mean(axis=0) - old.mean(axis=0))) / max(length, 1.0)


def run_clip(clip: Clip, pipeline: TryOnPipeline) -> tuple[list[dict[str, Any]], int, VideoCounts]:
    probe = Probe(pipeline)
    scorer = ClipScorer()
    blinks: list[dict[str, Any]] = []
    covered_with_next = 0
    previous: tuple[np.ndarray, np.ndarray, FrameState] | None = None
    history: list[tuple[np.ndarray, np.ndarray]] = []
    with VideoFileSource(clip.video) as source:
        index = 0
        while (frame := source.read()) is not None:
            result = pipeline.process_video_frame(frame.image, frame.timestamp_ms, want_coverage=True)
            assert result.coverage is not None
            state = probe.frame(len(result.hands))
            truth = read_truth(clip, index, result.coverage.shape) > 0
            scorer.add(truth, result.coverage)
            count, labels = cv2.connectedComponents(truth.astype(np.uint8), connectivity=8)
            sizes = np.bincount(labels.ravel(), minlength=count)
            covered = np.bincount(labels[result.coverage > 0], minlength=count) / np.maximum(sizes, 1)
            if previous is not None and count > 1:
                old_labels, old_covered, old_state = previous
                pairs = old_labels.astype(np.int64) * count + labels
                overlap = np.bincount(pairs.ravel(), minlength=len(old_covered) * count).reshape(-1, count)
                for old in range(1, len(old_covered)):
                    if old_covered[old] < RECALL_COVERAGE or not overlap[old, 1:].any():
                        continue
                    covered_with_next += 1
                    new = 1 + int(np.argmax(overlap[old, 1:]))
                    if covered[new] < BLINK_BELOW:
                        why, finger = cause(old_state, state, old_labels == old, labels == new)
                        blinks.append({"clip": clip.name, "frame": index, "cause": why, "finger": finger,
                                       "hands": [old_state.hands, state.hands], "component": new})
            history.append((labels.astype(np.int32), covered))
            previous = (labels, covered, state)
            index += 1
    for blink in blinks:
        blink["gap"] = gap(history, blink["frame"], blink.pop("component"))
    return blinks, covered_with_next, scorer.counts


def gap(history: list[tuple[np.ndarray, np.ndarray]], frame: int, component: int) -> int:
    """Frames from `frame` until the true nail (followed by most overlap) is half covered again; -1: never."""
    labels, _ = history[frame]
    nail = labels == component
    for later in range(frame + 1, len(history)):
        next_labels, covered = history[later]
        hits = np.bincount(next_labels[nail], minlength=len(covered))[1:]
        if not hits.any():
            return -1
        component = 1 + int(np.argmax(hits))
        nail = next_labels == component
        if covered[component] >= RECALL_COVERAGE:
            return later - frame
    return -1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clips", required=True, type=Path)
    parser.add_argument("--rois", type=Path)
    parser.add_argument("--oof", type=Path)
    parser.add_argument("--models", type=Path)
    parser.add_argument("--only", default="")
    args = parser.parse_args(argv)
    fold_of: dict[str, int] = {}
    if args.oof is not None:
        names = [Path(str(name)).stem for name in np.load(args.rois)["names"]]
        fold_of = dict(zip(names, (int(f) for f in np.load(args.oof)["fold_of_photo"]), strict=True))
    segmenters: dict[int, NailSegmenter] = {}
    everything: list[dict[str, Any]] = []
    covered_total = 0
    counts: dict[str, VideoCounts] = {}
    for clip in video_clips(args.clips):
        if args.only and args.only not in clip.name:
            continue
        fold = fold_of.get(clip.name, -1)
        if fold not in segmenters:
            if fold < 0:
                segmenters[fold] = NailSegmenter()
            else:
                model = args.models / f"fold{fold}.onnx"
                segmenters[fold] = NailSegmenter(model,
                                                 expected_sha256=hashlib.sha256(model.read_bytes()).hexdigest())
        with TryOnPipeline(Compositor(np.full((8, 8, 3), 255, np.uint8)), segmenter=segmenters[fold]) as pipeline:
            blinks, covered, counts[clip.name] = run_clip(clip, pipeline)
        covered_total += covered
        everything += blinks
        for blink in blinks:
            print(f"{clip.name[:40]:<40} gap {blink['gap']:>3} {blink['finger']:<7} hands {blink['hands']} "
                  f"{blink['cause']}", file=sys.stderr)
    causes = Counter(b["cause"].split("(")[0] for b in everything)
    fingers = Counter(b["finger"] for b in everything)
    gaps = Counter(min(b["gap"], 7) for b in everything)
    score = summarise(counts).as_dict()
    print(json.dumps({**score, "blinks": len(everything), "covered_with_next": covered_total,
                      "blink_rate": round(len(everything) / max(covered_total, 1), 4),
                      "causes": dict(causes.most_common()), "fingers": dict(fingers.most_common()),
                      "gaps": dict(sorted(gaps.items())),
                      "clips": dict(Counter(b["clip"] for b in everything).most_common())}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
