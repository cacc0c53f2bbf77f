"""Before/after images of real photos with each finish and layout, for a person to look at: written under
test-artifacts/polish/ (gitignored: the photos are internal). Skipped without the photos.

Each image is one photo's hand in two rows (the nails as the product finds them, then the photo's true nail
masks, so the rendering can be judged on its own): the bare photo, then the same nails painted with crème,
jelly, matte, chrome, cat-eye, glitter, a French tip and 酒红半月 (the starter catalog's burgundy half-moon,
from its style.json)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.warp import Roi
from nailmirror_desktop.vision.paint.compositor import Compositor, coverage_mask
from nailmirror_desktop.vision.paint.polish import Band, NailLook, finish_named, look_for_finish
from nailmirror_desktop.vision.paint.style_textures import load_style
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from nailmirror_desktop.vision.types import NailQuad
from tests.support.hand_photos import nail_mask, photo

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "polish"
PHOTOS = ("09aefeec-e05f-11e8-87a6-0242ac1c0002.jpg", "34404E67-4BB8-432E-863E-C1BEF5EB37E0.jpg",
          "4c484f8c-e402-11e8-97db-0242ac1c0002.jpg", "3493127D-7B19-4E50-94AE-2401BD2A91C8.jpg")
RED = (40, 30, 200)


def _looks() -> dict[str, Compositor]:
    flat = np.full((8, 8, 3), RED, np.uint8)
    looks = {name: Compositor(flat, look=look_for_finish(name, RED))
             for name in ("gloss", "jelly", "matte", "chrome", "cat_eye", "glitter")}
    french = NailLook(finish_named("gloss"), (170, 185, 236), tip=Band((245, 247, 250), 0.22))
    looks["french"] = Compositor(flat, look=french)
    looks["half_moon"] = load_style(ROOT / "resources" / "starter_catalog" / "NM-FRE-005").compositor()
    return looks


def _true_nails(truth: np.ndarray, quads: list[NailQuad]) -> tuple[list[NailQuad], list[NailMask | None]]:
    """The photo's true nails as NailMasks, each oriented like the nearest found nail (tip away from the
    cuticle), so the rendering can be judged apart from how well the nails were found."""
    count, labels, stats, centres = cv2.connectedComponentsWithStats((truth > 127).astype(np.uint8))
    found = [(q, q.corners.mean(axis=0), (q.corners[0] + q.corners[1] - q.corners[2] - q.corners[3]) / 2)
             for q in quads if q.opacity > 0]
    out_quads: list[NailQuad] = []
    out_masks: list[NailMask | None] = []
    for label in range(1, count):
        if stats[label, cv2.CC_STAT_AREA] < 30 or not found:
            continue
        quad, _, axis = min(found, key=lambda f: float(np.hypot(*(f[1] - centres[label]))))
        points = np.argwhere(labels == label)[:, ::-1].astype(np.float32)
        box = cv2.boxPoints(cv2.minAreaRect(points)).astype(np.float32)
        direction = axis / max(float(np.hypot(*axis)), 1e-6)
        along = box @ direction
        order = np.argsort(-along)  # two tip corners first
        tip, base = box[order[:2]], box[order[2:]]
        across = np.array([-direction[1], direction[0]], np.float32)
        tip = tip[np.argsort(tip @ across)]
        base = base[np.argsort(-(base @ across))]
        corners = np.array([tip[0], tip[1], base[0], base[1]], np.float32)
        y0, x0 = max(0, int(stats[label, cv2.CC_STAT_TOP]) - 2), max(0, int(stats[label, cv2.CC_STAT_LEFT]) - 2)
        y1 = min(truth.shape[0], y0 + int(stats[label, cv2.CC_STAT_HEIGHT]) + 4)
        x1 = min(truth.shape[1], x0 + int(stats[label, cv2.CC_STAT_WIDTH]) + 4)
        roi = Roi(x0, y0, x1, y1)
        alpha = (labels[roi.slices] == label).astype(np.float32)
        nail = NailQuad(quad.finger, corners, quad.hand_index)
        out_quads.append(nail)
        out_masks.append(NailMask(nail, roi, alpha, True))
    return out_quads, out_masks


def _crop_around(image: np.ndarray, coverage: np.ndarray, margin: int = 24) -> tuple[slice, slice]:
    ys, xs = np.nonzero(coverage)
    y0, y1 = max(0, ys.min() - margin), min(image.shape[0], ys.max() + margin)
    x0, x1 = max(0, xs.min() - margin), min(image.shape[1], xs.max() + margin)
    return slice(y0, y1), slice(x0, x1)


@pytest.mark.slow
def test_before_after_images_of_real_photos(nails_eval_dir):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    looks = _looks()
    written = 0
    for name in PHOTOS:
        image = photo(nails_eval_dir, name)
        with TryOnPipeline(looks["gloss"]) as pipeline:
            found = pipeline.process_still(image)
        assert found.coverage is not None
        if not found.coverage.any():
            continue  # the hand is not found in this one: nothing to show
        window = _crop_around(image, found.coverage)
        true_quads, true_masks = _true_nails(nail_mask(nails_eval_dir, name), found.quads)
        rows = []
        # first row: the nails as the product finds them; second: the true nails (the rendering on its own)
        for quads, masks in ((found.quads, found.masks), (true_quads, true_masks)):
            panels = [image[window]]
            expected = coverage_mask(quads, image.shape, masks)
            for compositor in looks.values():
                painted = compositor.composite(image, quads, want_coverage=True, masks=masks)
                np.testing.assert_array_equal(painted.coverage, expected)  # every look paints the same pixels
                panels.append(painted.frame[window])
            scale = max(1.0, 240 / panels[0].shape[0])
            rows.append(np.hstack([cv2.resize(p, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
                                   for p in panels]))
        row = np.vstack(rows)
        target = ARTIFACTS / f"{Path(name).stem}.png"
        assert cv2.imwrite(str(target), row)
        assert target.stat().st_size > 0
        written += 1
    assert written >= 2
