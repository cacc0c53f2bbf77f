"""The painted shape of a nail mask: stretched toward the tip only, nothing of the mask lost, an anti-aliased
edge, and the compositor's coverage exactly that shape."""

from __future__ import annotations

import numpy as np

from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.warp import Roi
from nailmirror_desktop.vision.paint.compositor import Compositor, coverage_mask
from nailmirror_desktop.vision.paint.polish_mask import painted_mask
from nailmirror_desktop.vision.types import Finger, NailQuad

FRAME = (200, 200, 3)


def _mask(tip_up: bool = True) -> NailMask:
    """A hard 30×50 nail mask at x 80–110, y 70–120; its quad's top edge is the free edge (tip_up) or the
    bottom one (a finger pointing down)."""
    corners = [[80, 70], [110, 70], [110, 120], [80, 120]]
    if not tip_up:
        corners = [[110, 120], [80, 120], [80, 70], [110, 70]]
    roi = Roi(78, 68, 112, 122)
    alpha = np.zeros((roi.height, roi.width), np.float32)
    alpha[2:52, 2:32] = 1.0
    return NailMask(NailQuad(Finger.MIDDLE, np.array(corners, np.float32), 0), roi, alpha, True)


def _full(mask: NailMask) -> np.ndarray:
    out = np.zeros(FRAME[:2], np.float32)
    out[mask.roi.slices] = mask.alpha
    return out


def test_the_mask_grows_toward_the_tip_only_and_keeps_all_it_had():
    for tip_up in (True, False):
        original = _mask(tip_up)
        painted = painted_mask(original, FRAME, stretch=0.1)
        before, after = _full(original) >= 0.5, _full(painted) >= 0.5
        assert not (before & ~after).any()  # nothing lost
        rows = np.nonzero(after.any(axis=1))[0]
        columns = np.nonzero(after.any(axis=0))[0]
        if tip_up:
            assert rows.min() == 70 - 5 and rows.max() == 119  # 10 % of 50 px past the tip, the cuticle stays
        else:
            assert rows.min() == 70 and rows.max() == 119 + 5
        assert columns.min() == 80 and columns.max() == 109  # not wider
        # the quad stretches with it, so the texture and the French tip follow the new free edge
        tip_y = painted.quad.corners[:2, 1].mean()
        assert tip_y == (65 if tip_up else 125)


def test_a_hard_mask_gets_a_soft_edge_and_no_stretch_keeps_its_shape():
    painted = painted_mask(_mask(), FRAME, stretch=0.0)
    alpha = _full(painted)
    assert ((alpha > 0.05) & (alpha < 0.95)).sum() > 100  # in-between values along the outline
    np.testing.assert_array_equal(alpha >= 0.5, _full(_mask()) >= 0.5)


def test_coverage_is_exactly_what_the_compositor_paints_from_a_mask():
    frame = np.full(FRAME, 128, np.uint8)
    mask = _mask()
    quad = mask.quad
    result = Compositor(np.full((8, 8, 3), (0, 0, 230), np.uint8)).composite(
        frame, [quad], want_coverage=True, masks=[mask])
    expected = coverage_mask([quad], FRAME, [mask])
    np.testing.assert_array_equal(result.coverage, expected)
    np.testing.assert_array_equal(expected > 0, _full(painted_mask(mask, FRAME)) >= 0.5)
    assert expected[:70].any()  # the stretch is painted and counted
