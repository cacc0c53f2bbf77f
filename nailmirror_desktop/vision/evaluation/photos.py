"""Try-on accuracy against photos with true nail masks (ARCHITECTURE.md §12).

A dataset folder holds images/<stem>.<ext> and masks/<stem>.png (nail = non-zero, same size as the image).
Painted pixels are exactly what the product's still path paints: hand detection, nail quads, per-nail masks
(`pipeline.place_nails`: the learned segmenter's by default), then the compositor's coverage
(`compositor.coverage_mask`). Metrics, per dataset:

- detection rate: images where at least one hand was found;
- IoU of painted vs true nail pixels, averaged over images, once with misses counted as 0 and once over the
  images where a hand was found;
- per-nail recall: a true nail is a connected component of the mask; it is recalled when at least half of its
  pixels are painted;
- precision: painted pixels that are nail, over all painted pixels of the whole dataset;
- boundary_f1: how closely the painted outline follows the true one (`boundary.py`: 2 px at 1080 px, pooled).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.evaluation.boundary import BoundaryCounts, boundary_counts
from nailmirror_desktop.vision.types import HandObservation

if TYPE_CHECKING:
    from nailmirror_desktop.vision.nails.full_frame import FullFrameModel
    from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter
    from nailmirror_desktop.vision.pipeline import StillMasks

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
RECALL_COVERAGE = 0.5


@dataclass(frozen=True)
class ImageScore:
    """One image's counts. IoU is 1.0 when both the truth and the painting are empty."""

    name: str
    detected: bool
    iou: float
    true_nails: int
    recalled_nails: int
    painted_px: int
    painted_nail_px: int
    boundary: BoundaryCounts = BoundaryCounts()


@dataclass(frozen=True)
class DatasetScore:
    images: int
    detection_rate: float
    mean_iou: float  # misses count as 0
    mean_iou_detected: float
    nail_recall: float
    precision: float
    boundary_f1: float
    seconds: float

    def as_dict(self) -> dict[str, float | int]:
        return {key: round(value, 4) if isinstance(value, float) else value for key, value in asdict(self).items()}


def score_image(name: str, truth: np.ndarray, painted: np.ndarray, detected: bool) -> ImageScore:
    """truth, painted: (H, W) masks, non-zero = nail / painted."""
    if truth.shape != painted.shape:
        raise ValueError(f"{name}: mask {truth.shape} and painting {painted.shape} differ in size")
    truth_on, painted_on = truth > 0, painted > 0
    intersection = int(np.count_nonzero(truth_on & painted_on))
    union = int(np.count_nonzero(truth_on | painted_on))
    components, labels = cv2.connectedComponents(truth_on.astype(np.uint8), connectivity=8)
    true_nails = components - 1
    recalled = 0
    if true_nails:
        sizes = np.bincount(labels.ravel(), minlength=components)
        covered = np.bincount(labels[painted_on], minlength=components)
        recalled = int(np.count_nonzero(covered[1:] >= RECALL_COVERAGE * sizes[1:]))
    return ImageScore(
        name=name,
        detected=detected,
        iou=intersection / union if union else 1.0,
        true_nails=true_nails,
        recalled_nails=recalled,
        painted_px=int(np.count_nonzero(painted_on)),
        painted_nail_px=intersection,
        boundary=boundary_counts(truth_on, painted_on),
    )


def summarise(scores: list[ImageScore], seconds: float = 0.0) -> DatasetScore:
    if not scores:
        raise ValueError("no images to score")
    detected = [s for s in scores if s.detected]
    true_nails = sum(s.true_nails for s in scores)
    painted = sum(s.painted_px for s in scores)
    return DatasetScore(
        images=len(scores),
        detection_rate=len(detected) / len(scores),
        mean_iou=float(np.mean([s.iou if s.detected else 0.0 for s in scores])),
        mean_iou_detected=float(np.mean([s.iou for s in detected])) if detected else 0.0,
        nail_recall=sum(s.recalled_nails for s in scores) / true_nails if true_nails else 0.0,
        precision=sum(s.painted_nail_px for s in scores) / painted if painted else 0.0,
        boundary_f1=sum((s.boundary for s in scores), BoundaryCounts()).f1,
        seconds=seconds,
    )


def dataset_pairs(data_dir: Path) -> list[tuple[Path, Path]]:
    """(image, mask) pairs, sorted by name. Raises FileNotFoundError naming what is missing."""
    images_dir, masks_dir = data_dir / "images", data_dir / "masks"
    for folder in (images_dir, masks_dir):
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder} is not a folder (expected DIR/images and DIR/masks)")
    pairs = []
    for image in sorted(images_dir.iterdir()):
        if image.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        mask = masks_dir / f"{image.stem}.png"
        if not mask.is_file():
            raise FileNotFoundError(f"no mask for {image.name}: expected {mask}")
        pairs.append((image, mask))
    if not pairs:
        raise FileNotFoundError(f"no images in {images_dir}")
    return pairs


Painter = Callable[[np.ndarray], tuple[np.ndarray, bool]]
"""Paints one image: (H, W, 3) uint8 BGR → ((H, W) uint8 coverage, hand found)."""


class HandDetector(Protocol):
    def detect(self, image: NDArray[np.uint8]) -> list[HandObservation]:
        """Hands in one still image ((H, W, 3) uint8 BGR)."""
        ...


def landmark_painter(detector: HandDetector, *, masks: str | None = None, full_frame: bool = True) -> Painter:
    """The product's still path: robust hand detection → nail quads → nail masks → the compositor's coverage;
    where no hand is found, the full-frame model's nails (with the model's masks and `full_frame`, as
    `TryOnPipeline.process_still` does; such an image counts as detected when it finds a nail).
    masks: "model", "grabcut" or "quads" (pipeline.StillMasks); None = the product's default, STILL_MASKS."""
    from nailmirror_desktop.vision.pipeline import STILL_MASKS

    chosen: StillMasks = STILL_MASKS
    if masks is not None:
        if masks not in ("model", "grabcut", "quads"):
            raise ValueError(f"unknown still masks {masks!r} (model, grabcut or quads)")
        chosen = masks  # type: ignore[assignment]  # checked just above
    segmenter = None
    if chosen == "model":
        from nailmirror_desktop.vision.nails.nail_segmenter import STILL_MODEL, bundled_segmenter

        segmenter = bundled_segmenter(STILL_MODEL)  # the still path's own build

    fallback: list[FullFrameModel] = []  # loaded on the first image with no hand

    def full_frame_model() -> FullFrameModel:
        if not fallback:
            from nailmirror_desktop.vision.nails.full_frame import FullFrameModel

            fallback.append(FullFrameModel())
        return fallback[0]

    def paint(image: NDArray[np.uint8]) -> tuple[np.ndarray, bool]:
        from nailmirror_desktop.vision.paint.compositor import coverage_mask
        from nailmirror_desktop.vision.pipeline import place_nails

        hands = detector.detect(image)
        quads, nail_masks, _ = place_nails(image, hands, masks=chosen, segmenter=segmenter,
                                           full_frame=full_frame_model if full_frame else None)
        return coverage_mask(quads, image.shape, nail_masks), bool(hands or quads)

    return paint


def paint_hands(image: NDArray[np.uint8], hands: list[HandObservation], masks: StillMasks,
                segmenter: NailSegmenter | None) -> np.ndarray:
    """What the still path paints for hands already found: nail quads → nail masks (`masks`, a StillMasks;
    "model" with `segmenter`) → the compositor's coverage, (H, W) uint8. Split from `landmark_painter` so that
    several models can be scored on one detection (tools/score_nail_model.py)."""
    from nailmirror_desktop.vision.paint.compositor import coverage_mask
    from nailmirror_desktop.vision.pipeline import place_nails

    quads, nail_masks, _ = place_nails(image, hands, masks=masks, segmenter=segmenter)
    return coverage_mask(quads, image.shape, nail_masks)


def evaluate(pairs: Iterable[tuple[Path, Path]], paint: Painter) -> tuple[list[ImageScore], DatasetScore]:
    start = time.perf_counter()
    scores = []
    for image_path, mask_path in pairs:
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        truth = cv2.imread(str(mask_path), cv2.IMREAD_GRAYSCALE)
        if image is None or truth is None:
            raise ValueError(f"cannot read {image_path.name} or its mask")
        painted, detected = paint(image)
        scores.append(score_image(image_path.name, truth, painted, detected))
    return scores, summarise(scores, time.perf_counter() - start)
