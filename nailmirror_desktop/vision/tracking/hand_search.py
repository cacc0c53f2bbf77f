"""The still path's further looks for hands the cascade misses (issue #23 point 4): pure image and geometry steps.

`StillHandDetector` runs its cascade of views (`still_detection.py`) on these derived images when the plain
image gives too few hands:

- `normalised`: exposure and colour evened out (gray-world white balance, a gamma that takes the mean toward
  mid-grey, CLAHE on the L of Lab), for pale, over- or under-exposed hands on warm tables the palm detector
  misses; the geometry is unchanged, so landmarks need no mapping back;
- `crop`/`Region`: part of the image (the halves not holding the first hand), landmarks mapped back by the
  crop's offset: crossed or interlaced hands confuse the palm detector as one, a half shows the other alone;
- `unexplained_skin`: skin-coloured pixels the first hand does not explain, the gate for looking again at all;
- `masked_out`: the first hand painted over with the background's colour, for refining a second hand (the
  refinement's crops would otherwise find the first hand again). As a look of its own it found no second hand on
  the evaluation photos, only a phantom, so it is not one.

`duplicates` decides whether a candidate is a hand already kept (same landmarks, the same box, or the same
fingertips: painting one hand's nails twice would be harmless, a second set of ROIs on the same nails would not).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.types import FINGER_LANDMARKS, WRIST, HandObservation

FINGERTIPS = [ids[3] for ids in FINGER_LANDMARKS.values()]
HALF_OVERLAP = 0.125  # each half reaches this far past the middle (of the side): a hand on the middle stays whole
SAME_BOX_IOU = 0.7  # landmark boxes overlapping this much are one hand (crossed hands overlap by half)
SAME_TIPS = 0.5  # median fingertip distance, in palm sizes, under which two hands paint the same nails
MASK_BONE_WIDTH = 0.35  # the painted-over finger's width, in palm sizes (a finger is about a third of a palm)
GAMMA_LIMITS = (0.5, 2.0)
# Liberal skin range in YCrCb (covers light to dark skin under warm or cool light)
SKIN_CR = (133, 180)
SKIN_CB = (77, 135)
UNEXPLAINED_SKIN = 0.2  # skin outside the found hand, as a share of that hand's area, worth a second look
CLAHE_CLIP, CLAHE_TILES = 2.0, 8


@dataclass(frozen=True)
class Region:
    """A crop of an image: columns x0..x1, rows y0..y1 (exclusive ends), in its pixels."""

    x0: int
    y0: int
    x1: int
    y1: int


def crop(image: NDArray[np.uint8], region: Region) -> NDArray[np.uint8]:
    """The region's pixels, contiguous (MediaPipe wants a contiguous buffer)."""
    return np.ascontiguousarray(image[region.y0:region.y1, region.x0:region.x1])


def from_region(hand: HandObservation, region: Region) -> HandObservation:
    """Landmarks found in `crop(image, region)` back in the image's pixels (an exact shift; z unchanged)."""
    points = hand.landmarks.astype(np.float64)
    points[:, 0] += region.x0
    points[:, 1] += region.y0
    return HandObservation(points.astype(np.float32), hand.handedness, hand.score)


def halves(shape: tuple[int, ...]) -> list[Region]:
    """Left and right halves, then top and bottom, each reaching `HALF_OVERLAP` past the middle."""
    height, width = shape[:2]
    dx, dy = round(width * HALF_OVERLAP), round(height * HALF_OVERLAP)
    return [Region(0, 0, width // 2 + dx, height), Region(width // 2 - dx, 0, width, height),
            Region(0, 0, width, height // 2 + dy), Region(0, height // 2 - dy, width, height)]


def other_halves(shape: tuple[int, ...], hand: HandObservation) -> list[Region]:
    """The halves that do not hold the hand's centre, the one across the axis the hand sits furthest off first."""
    height, width = shape[:2]
    cx, cy = hand.landmarks[:, :2].mean(axis=0)
    left, right, top, bottom = halves(shape)
    across = right if cx < width / 2 else left
    along = bottom if cy < height / 2 else top
    off_x, off_y = abs(cx / width - 0.5), abs(cy / height - 0.5)
    return [across, along] if off_x >= off_y else [along, across]


def hand_mask(shape: tuple[int, ...], hand: HandObservation) -> NDArray[np.uint8]:
    """(H, W) uint8, 255 on the hand: the palm polygon and every finger's bones drawn a finger wide."""
    points = hand.landmarks[:, :2].astype(np.float64)
    size = max(float(np.linalg.norm(points[9] - points[WRIST])), float(np.linalg.norm(points[5] - points[17])), 1.0)
    mask = np.zeros(shape[:2], np.uint8)
    palm = np.round(points[[WRIST, 1, 5, 9, 13, 17]]).astype(np.int32)
    cv2.fillPoly(mask, [cv2.convexHull(palm)], 255)
    width = max(2, round(MASK_BONE_WIDTH * size))
    for ids in FINGER_LANDMARKS.values():
        chain = np.round(points[[WRIST, *ids]]).astype(np.int32)
        cv2.polylines(mask, [chain], False, 255, width)
        # the nail itself reaches past the tip landmark
        cv2.circle(mask, (int(chain[-1][0]), int(chain[-1][1])), width // 2 + 1, 255, -1)
    return mask


def masked_out(image: NDArray[np.uint8], hand: HandObservation) -> NDArray[np.uint8]:
    """The image with `hand` painted over in the median colour of what surrounds it (its background)."""
    mask = hand_mask(image.shape, hand)
    ring = cv2.dilate(mask, np.ones((15, 15), np.uint8)) > 0
    around = image[ring & (mask == 0)]
    fill = np.median(around, axis=0) if len(around) else np.median(image.reshape(-1, 3), axis=0)
    out = image.copy()
    out[mask > 0] = np.round(fill).astype(np.uint8)
    return out


def normalised(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Gray-world white balance, then a gamma taking the mean brightness toward mid-grey, then CLAHE on L (Lab).
    Same size and geometry as `image` ((H, W, 3) uint8 BGR)."""
    pixels = image.astype(np.float32)
    means = pixels.reshape(-1, 3).mean(axis=0)
    balanced = np.clip(pixels * (means.mean() / np.maximum(means, 1.0)), 0, 255).astype(np.uint8)
    mean = float(cv2.cvtColor(balanced, cv2.COLOR_BGR2GRAY).mean()) / 255.0
    gamma = float(np.clip(np.log(0.5) / np.log(min(max(mean, 0.02), 0.98)), *GAMMA_LIMITS))
    table = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma + 0.5, 0, 255).astype(np.uint8)
    lab = cv2.cvtColor(cv2.LUT(balanced, table), cv2.COLOR_BGR2LAB)
    clahe = cv2.createCLAHE(clipLimit=CLAHE_CLIP, tileGridSize=(CLAHE_TILES, CLAHE_TILES))
    lab[:, :, 0] = clahe.apply(np.ascontiguousarray(lab[:, :, 0]))
    return np.asarray(cv2.cvtColor(lab, cv2.COLOR_LAB2BGR), np.uint8)


def skin_mask(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """(H, W) uint8, 255 where the (slightly blurred) colour is in the liberal skin range."""
    ycrcb = cv2.cvtColor(cv2.GaussianBlur(image, (5, 5), 0), cv2.COLOR_BGR2YCrCb)
    low = np.array([0, SKIN_CR[0], SKIN_CB[0]], np.uint8)
    high = np.array([255, SKIN_CR[1], SKIN_CB[1]], np.uint8)
    return np.asarray(cv2.inRange(ycrcb, low, high), np.uint8)


def unexplained_skin(image: NDArray[np.uint8], hand: HandObservation) -> float:
    """The largest skin-coloured region the found hand does not explain, as a share of that hand's area: the cheap
    test for "is there a second hand to look for at all" (compare with `UNEXPLAINED_SKIN`)."""
    own = hand_mask(image.shape, hand)
    grown = cv2.dilate(own, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (25, 25)))
    rest = cv2.morphologyEx(cv2.bitwise_and(skin_mask(image), cv2.bitwise_not(grown)), cv2.MORPH_OPEN,
                            np.ones((5, 5), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
    largest = int(stats[1:, cv2.CC_STAT_AREA].max()) if count > 1 else 0
    return largest / max(int(np.count_nonzero(own)), 1)


def box_iou(hand: HandObservation, other: HandObservation) -> float:
    """Intersection over union of the two hands' landmark boxes."""
    (ax0, ay0), (ax1, ay1) = hand.landmarks[:, :2].min(0), hand.landmarks[:, :2].max(0)
    (bx0, by0), (bx1, by1) = other.landmarks[:, :2].min(0), other.landmarks[:, :2].max(0)
    inter = max(0.0, float(min(ax1, bx1) - max(ax0, bx0))) * max(0.0, float(min(ay1, by1) - max(ay0, by0)))
    union = float((ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0)) - inter
    return inter / union if union > 0 else 0.0


def duplicates(hand: HandObservation, kept: list[HandObservation]) -> bool:
    """Is `hand` one of `kept` seen again: boxes overlapping by `SAME_BOX_IOU`, or its fingertips within
    `SAME_TIPS` palm sizes (the larger hand's) of the other's fingertips (median of each tip's nearest)?"""
    for other in kept:
        if box_iou(hand, other) > SAME_BOX_IOU:
            return True
        size = max(_palm(hand), _palm(other))
        # each fingertip to the nearest of the other's, whichever finger: a hand read again one finger over
        # (index on the middle's nail...) puts its tips on the same nails
        mine, theirs = hand.landmarks[FINGERTIPS, :2], other.landmarks[FINGERTIPS, :2]
        nearest = np.linalg.norm(mine[:, None, :] - theirs[None, :, :], axis=2).min(axis=1)
        if float(np.median(nearest)) < SAME_TIPS * size:
            return True
    return False


def _palm(hand: HandObservation) -> float:
    points = hand.landmarks[:, :2]
    return float(max(np.linalg.norm(points[9] - points[WRIST]), np.linalg.norm(points[5] - points[17])))
