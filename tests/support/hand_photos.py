"""Helpers shared by the hand-finding tests (tracker, still-image cascade): the real evaluation photos (the
nails_eval fixture's folder), their nail masks, and how well found landmarks sit on the true nails."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from nailmirror_desktop.vision.types import HandObservation


def photo(nails_eval_dir: Path, name: str) -> np.ndarray:
    image = cv2.imread(str(nails_eval_dir / "images" / name))
    assert image is not None
    return image


def nail_mask(nails_eval_dir: Path, name: str) -> np.ndarray:
    return cv2.imread(str(nails_eval_dir / "masks" / (name.rsplit(".", 1)[0] + ".png")), cv2.IMREAD_GRAYSCALE)


def tips_near_nails(hand: HandObservation, mask: np.ndarray) -> int:
    """How many fingertip landmarks lie within 10% of the image size of a true nail pixel."""
    distance = cv2.distanceTransform((mask == 0).astype(np.uint8), cv2.DIST_L2, 5)
    limit = 0.1 * max(mask.shape)
    count = 0
    for tip in (4, 8, 12, 16, 20):
        x, y = hand.landmarks[tip, :2]
        if 0 <= x < mask.shape[1] and 0 <= y < mask.shape[0] and distance[int(y), int(x)] < limit:
            count += 1
    return count
