"""The warp: the texture→quad homography, the ROI a quad covers, and warping into that ROI."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nailmirror_desktop.vision.nails.nail_shape import nail_alpha
from nailmirror_desktop.vision.nails.warp import (
    Roi,
    quad_roi,
    quad_size,
    roi_homography,
    texture_to_quad,
    warp_into_roi,
)
from tests.support.nail_quads import PARALLELOGRAM, TILTED


@pytest.mark.parametrize("corners", [TILTED, PARALLELOGRAM], ids=["perspective", "parallelogram"])
def test_homography_maps_texture_corners_onto_quad_corners(corners):
    for tex_w, tex_h in [(64, 96), (300, 40), (1, 1), (1000, 3)]:
        matrix = texture_to_quad(tex_w, tex_h, corners)
        src = np.array([[[0, 0], [tex_w, 0], [tex_w, tex_h], [0, tex_h]]], np.float32)
        mapped = cv2.perspectiveTransform(src, matrix)[0]
        np.testing.assert_allclose(mapped, corners, atol=1e-3)
        # the ROI warp's matrix is the same mapping, between pixel centres and shifted to the ROI
        roi = quad_roi(corners, (480, 640))
        centres = np.array([[[-0.5, -0.5], [tex_w - 0.5, -0.5], [tex_w - 0.5, tex_h - 0.5], [-0.5, tex_h - 0.5]]])
        in_roi = cv2.perspectiveTransform(centres, roi_homography((tex_w, tex_h), corners, roi))[0]
        np.testing.assert_allclose(in_roi + [roi.x0 + 0.5, roi.y0 + 0.5], corners, atol=1e-3)


@pytest.mark.parametrize(
    "corners",
    [TILTED, PARALLELOGRAM, np.array([[300, 200], [420, 230], [400, 262], [310, 250]], np.float32)],
    ids=["perspective", "parallelogram", "skewed"],
)
def test_alpha_never_leaves_the_roi(corners):
    """The ROI warp equals the same region of a full-frame warp, and the full-frame warp is 0 outside it."""
    width, height = quad_size(corners)
    texture = nail_alpha(width, height)
    frame_shape = (480, 640)
    roi = quad_roi(corners, frame_shape)
    in_roi = warp_into_roi(texture, corners, roi)
    full = warp_into_roi(texture, corners, Roi(0, 0, 640, 480))
    # OpenCV quantises sample positions to 1/32 px, relative to each output's origin: allow that much
    np.testing.assert_allclose(full[roi.slices], in_roi, atol=0.05)
    outside = full.copy()
    outside[roi.slices] = 0
    assert not outside.any(), "the full-frame warp has alpha outside the quad's ROI"
    assert in_roi.max() == 1.0


def test_roi_warp_of_a_texture_matches_a_full_frame_warp():
    texture = np.random.default_rng(1).integers(0, 255, (40, 30), np.uint8)
    frame_shape = (480, 640)
    roi = quad_roi(TILTED, frame_shape)
    in_roi = warp_into_roi(texture, TILTED, roi)
    full = warp_into_roi(texture, TILTED, Roi(0, 0, 640, 480))
    np.testing.assert_array_equal(full[roi.slices], in_roi)


def test_texture_centre_lands_at_quad_centre_pixel():
    texture = np.zeros((9, 9), np.uint8)
    texture[4, 4] = 255
    square = np.array([[100, 100], [109, 100], [109, 109], [100, 109]], np.float32)
    roi = quad_roi(square, (200, 200))
    warped = warp_into_roi(texture, square, roi)
    peak = np.unravel_index(np.argmax(warped), warped.shape)
    assert (peak[0] + roi.y0, peak[1] + roi.x0) == (104, 104)
    matrix = roi_homography((9, 9), square, roi)
    assert matrix.shape == (3, 3)
