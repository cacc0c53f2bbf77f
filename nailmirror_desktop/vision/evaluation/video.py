"""Try-on accuracy on moving clips with true nail masks per frame (ARCHITECTURE.md §12).

A clip folder holds clip.mp4 and gt/000000.png, gt/000001.png … (one 8-bit mask per decoded frame, nail =
non-zero, the frame's size); a dataset folder holds one clip folder per clip (tools/make_eval_clips.py makes
them from the eval photos). Painted pixels are the video path's coverage, frame by frame. Metrics, over all
frames of all clips:

- iou_frames: per-frame IoU of painted vs true nail pixels, averaged over frames (1.0 when both are empty);
- nail_recall: nail-frames (a true nail, a connected component of a frame's mask, in one frame) at least
  half covered, over all nail-frames;
- blink_rate: nails at least half covered in frame t−1 and under a fifth covered in frame t, over the covered
  nail-frames that have a next frame. A nail's next frame is the component of frame t that overlaps it most
  (the motion between frames is small); a nail that leaves the frame has none;
- boundary_f1: the painted outline against the true one, pooled over frames (`boundary.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from nailmirror_desktop.vision.evaluation.boundary import BoundaryCounts, boundary_counts

if TYPE_CHECKING:
    from nailmirror_desktop.vision.pipeline import TryOnPipeline

RECALL_COVERAGE = 0.5
BLINK_BELOW = 0.2
CLIP_NAME = "clip.mp4"
TRUTH_DIR = "gt"


@dataclass(frozen=True)
class Clip:
    name: str
    video: Path
    truth_dir: Path

    def truth_path(self, index: int) -> Path:
        return self.truth_dir / f"{index:06d}.png"


def video_clips(data_dir: Path) -> list[Clip]:
    """The clips of `data_dir`, sorted by name. Raises FileNotFoundError naming what is missing."""
    if not data_dir.is_dir():
        raise FileNotFoundError(f"{data_dir} is not a folder (expected DIR/<clip>/clip.mp4 and DIR/<clip>/gt/)")
    clips = []
    for folder in sorted(p for p in data_dir.iterdir() if p.is_dir()):
        video, truth = folder / CLIP_NAME, folder / TRUTH_DIR
        if not video.is_file() or not (truth / "000000.png").is_file():
            raise FileNotFoundError(f"{folder}: expected {CLIP_NAME} and {TRUTH_DIR}/000000.png")
        clips.append(Clip(folder.name, video, truth))
    if not clips:
        raise FileNotFoundError(f"no clips in {data_dir} (expected DIR/<clip>/clip.mp4 and DIR/<clip>/gt/)")
    return clips


@dataclass
class VideoCounts:
    """Running counts over frames (mutable: one per clip, added up)."""

    frames: int = 0
    iou_sum: float = 0.0
    nail_frames: int = 0
    recalled: int = 0
    covered_with_next: int = 0
    blinks: int = 0
    boundary: BoundaryCounts = BoundaryCounts()

    def add(self, other: VideoCounts) -> None:
        for name in ("frames", "iou_sum", "nail_frames", "recalled", "covered_with_next", "blinks", "boundary"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(frozen=True)
class VideoScore:
    clips: int
    frames: int
    iou_frames: float
    nail_recall: float
    blink_rate: float
    boundary_f1: float
    seconds: float
    per_clip: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, float | int]:
        return {key: round(value, 4) if isinstance(value, float) else value
                for key, value in asdict(self).items() if key != "per_clip"}


class ClipScorer:
    """Feed one clip's frames in order: `add(truth, painted)` with (H, W) masks, non-zero = nail / painted."""

    def __init__(self) -> None:
        self.counts = VideoCounts()
        self._previous: tuple[np.ndarray, np.ndarray] | None = None  # labels, covered-enough per label

    def add(self, truth: np.ndarray, painted: np.ndarray) -> None:
        if truth.shape != painted.shape:
            raise ValueError(f"mask {truth.shape} and painting {painted.shape} differ in size")
        truth_on, painted_on = truth > 0, painted > 0
        union = int(np.count_nonzero(truth_on | painted_on))
        iou = np.count_nonzero(truth_on & painted_on) / union if union else 1.0
        count, labels = cv2.connectedComponents(truth_on.astype(np.uint8), connectivity=8)
        sizes = np.bincount(labels.ravel(), minlength=count)
        covered = np.bincount(labels[painted_on], minlength=count) / np.maximum(sizes, 1)
        c = self.counts
        c.frames += 1
        c.iou_sum += iou
        c.nail_frames += count - 1
        c.recalled += int(np.count_nonzero(covered[1:] >= RECALL_COVERAGE))
        c.boundary = c.boundary + boundary_counts(truth_on, painted_on)
        if self._previous is not None:
            self._count_blinks(self._previous, labels, count, covered)
        self._previous = (labels, covered)

    def _count_blinks(self, previous: tuple[np.ndarray, np.ndarray], labels: np.ndarray, count: int,
                      covered: np.ndarray) -> None:
        old_labels, old_covered = previous
        if count <= 1:
            return
        # overlap[i, j]: pixels of old nail i that are new nail j
        pairs = old_labels.astype(np.int64) * count + labels
        overlap = np.bincount(pairs.ravel(), minlength=len(old_covered) * count).reshape(len(old_covered), count)
        for old in range(1, len(old_covered)):
            if old_covered[old] < RECALL_COVERAGE:
                continue
            successors = overlap[old, 1:]
            if not successors.any():
                continue  # it left the frame: no next frame
            self.counts.covered_with_next += 1
            if covered[1 + int(np.argmax(successors))] < BLINK_BELOW:
                self.counts.blinks += 1


def summarise(per_clip: dict[str, VideoCounts], seconds: float = 0.0) -> VideoScore:
    if not per_clip:
        raise ValueError("no clips to score")
    total = VideoCounts()
    for counts in per_clip.values():
        total.add(counts)
    return VideoScore(
        clips=len(per_clip),
        frames=total.frames,
        iou_frames=total.iou_sum / total.frames if total.frames else 0.0,
        nail_recall=total.recalled / total.nail_frames if total.nail_frames else 0.0,
        blink_rate=total.blinks / total.covered_with_next if total.covered_with_next else 0.0,
        boundary_f1=total.boundary.f1,
        seconds=seconds,
        per_clip={name: c.iou_sum / c.frames if c.frames else 0.0 for name, c in per_clip.items()},
    )


def read_truth(clip: Clip, index: int, shape: tuple[int, ...]) -> np.ndarray:
    """Frame `index`'s true mask, checked against the frame's (H, W)."""
    truth = cv2.imread(str(clip.truth_path(index)), cv2.IMREAD_GRAYSCALE)
    if truth is None:
        raise ValueError(f"{clip.name}: no readable true mask {clip.truth_path(index).name} for frame {index}")
    if truth.shape != tuple(shape[:2]):
        raise ValueError(f"{clip.name}: {clip.truth_path(index).name} is {truth.shape}, the frame {shape[:2]}")
    return truth


def score_clip(clip: Clip, coverages: Iterable[tuple[int, np.ndarray]]) -> VideoCounts:
    """Score (frame index, (H, W) coverage) pairs in decode order against the clip's truth; every true mask
    must have had its frame (a clip shorter than its truth is an error)."""
    scorer = ClipScorer()
    frames = 0
    for index, coverage in coverages:
        scorer.add(read_truth(clip, index, coverage.shape), coverage)
        frames = index + 1
    if clip.truth_path(frames).is_file():
        raise ValueError(f"{clip.name}: {frames} frames decoded but {clip.truth_path(frames).name} exists")
    return scorer.counts


def video_path_coverages(clip: Clip, pipeline: TryOnPipeline) -> Iterator[tuple[int, np.ndarray]]:
    """(frame index, (H, W) uint8 coverage) of the product's video path on every decoded frame of `clip`;
    `pipeline` should be fresh (or reset) for each clip."""
    from nailmirror_desktop.vision.sources.readers import VideoFileSource

    with VideoFileSource(clip.video) as source:
        index = 0
        while (frame := source.read()) is not None:
            result = pipeline.process_video_frame(frame.image, frame.timestamp_ms, want_coverage=True)
            assert result.coverage is not None  # want_coverage=True
            yield index, result.coverage
            index += 1


def evaluate_clips(clips: list[Clip], score: Callable[[Clip], VideoCounts]) -> VideoScore:
    """`score(clip)` → VideoCounts for each clip (the caller runs the pipeline), summarised."""
    start = time.perf_counter()
    per_clip = {clip.name: score(clip) for clip in clips}
    return summarise(per_clip, time.perf_counter() - start)
