"""tools/make_closeups.py: fingertip close-ups reach only a little below the cuticles (no palm, no wrist), and the
same seed cuts the same crops."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import make_closeups  # noqa: E402
from make_closeups import Nail  # noqa: E402


def _nail(cx: float, cy: float, half_w: int = 8, half_h: int = 12) -> Nail:
    ys, xs = np.mgrid[int(cy) - half_h:int(cy) + half_h, int(cx) - half_w:int(cx) + half_w]
    return Nail(np.array([cx, cy]), np.stack([xs.ravel(), ys.ravel()], 1).astype(np.float64))


def test_the_crop_keeps_the_tips_and_stops_just_below_the_cuticles():
    nails = [_nail(100, 100), _nail(130, 95), _nail(160, 100)]
    up = np.array([0.0, -1.0])  # wrist below, fingertips up
    x0, y0, x1, y1 = make_closeups.crop_box(nails, up, (400, 300, 3))
    length = 24.0  # each nail's extent along the finger
    assert y1 <= 112 + make_closeups.BELOW_CUTICLE * length + 2  # the finger below the cuticles: 0.4 nail lengths
    assert y0 <= 83 - make_closeups.PAST_TIPS * length + 1  # past the tips
    assert x0 <= 92 and x1 >= 168  # every nail of the group whole
    assert y1 < 200  # the palm and wrist (the wrist at y ≈ 300) are out of frame


def test_the_same_seed_cuts_the_same_groups_of_two_to_four_neighbours():
    nails = [_nail(60 + 30 * k, 100 + 3 * k) for k in range(5)] + [_nail(300, 300)]
    first = make_closeups.groups_of(nails, np.random.default_rng([5, 1]), 3)
    again = make_closeups.groups_of(nails, np.random.default_rng([5, 1]), 3)
    assert first == again and 1 <= len(first) <= 3
    assert all(2 <= len(group) <= 4 for group in first)
    assert len({frozenset(group) for group in first}) == len(first)
    assert all(5 not in group for group in first)  # the far nail is no one's neighbour


def test_pack_adds_hand_free_images_with_empty_masks_and_no_photo(tmp_path):
    import csv

    import cv2

    closeups = tmp_path / "closeups"
    (closeups / "images").mkdir(parents=True), (closeups / "masks").mkdir()
    image = np.full((60, 80, 3), (120, 150, 200), np.uint8)
    mask = np.zeros((60, 80), np.uint8)
    mask[20:40, 30:45] = 255
    cv2.imwrite(str(closeups / "images" / "a__0.png"), image), cv2.imwrite(str(closeups / "masks" / "a__0.png"), mask)
    with (closeups / "index.csv").open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["name", "photo"], ["a__0.png", 3]])
    negatives = tmp_path / "negatives"
    negatives.mkdir()
    for k in range(2):
        cv2.imwrite(str(negatives / f"scene{k}.png"), np.full((50, 90, 3), 40 + 60 * k, np.uint8))
    report = make_closeups.pack(closeups, None, tmp_path / "data.npz", 32, negatives)
    assert report["items"] == 3 and report["negatives"] == 2
    data = np.load(tmp_path / "data.npz")
    assert list(data["photo"]) == [3, -1, -1] and list(data["names"][1:]) == ["scene0.png", "scene1.png"]
    assert data["masks"][0].any() and not data["masks"][1:].any()  # no nail anywhere in a hand-free image
    assert data["images"][1:].any()  # the scenes themselves are there, letterboxed
