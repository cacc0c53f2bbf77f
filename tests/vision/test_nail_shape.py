"""The nail shape: the feathered alpha of a nail, free edge at the top and cuticle at the bottom."""

from __future__ import annotations

import numpy as np

from nailmirror_desktop.vision.nails.nail_shape import nail_alpha


def test_nail_alpha_is_a_feathered_nail_shape():
    alpha = nail_alpha(40, 60, feather_px=2.0)
    assert alpha.shape == (60, 40) and alpha.dtype == np.float32
    assert alpha.min() == 0.0 and alpha.max() == 1.0
    assert alpha[30, 20] == 1.0  # middle of the nail
    assert alpha[0, 0] == 0.0 and alpha[0, -1] == 0.0  # free-edge corners are rounded off
    assert alpha[-1, 0] < 0.5 and alpha[-1, -1] < 0.5  # cuticle corners too
    assert np.any((alpha > 0.05) & (alpha < 0.95)), "no feathered edge"
    # the top (free edge) is rounder than the bottom (cuticle): fewer nail pixels in the top rows
    assert (alpha[:6] >= 0.5).sum() < (alpha[-6:] >= 0.5).sum()
    # the 0.5 level does not move with the feather
    np.testing.assert_array_equal(alpha >= 0.5, nail_alpha(40, 60, feather_px=0.5) >= 0.5)
