"""CIEDE2000 against the published test pairs of Sharma, Wu and Dalal (2005), and sRGB → CIELAB."""

from __future__ import annotations

import pytest

from nailmirror_desktop.core.colour_difference import delta_e00, delta_e00_rgb, srgb_to_lab

# (Lab 1, Lab 2, ΔE00) from the paper's table of 34 pairs: hue wrap-around, grey axis, blue region, large steps
SHARMA_PAIRS = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 3.1571, -77.2803), (50.0, 0.0, -82.7485), 2.8615),
    ((50.0, -1.3802, -84.2814), (50.0, 0.0, -82.7485), 1.0),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, -1.0, 2.0), (50.0, 0.0, 0.0), 2.3669),
    ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0009), 7.1792),
    ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0011), 7.2195),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (58.0, 24.0, 15.0), 19.4535),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((22.7233, 20.0904, -46.694), (23.0331, 14.973, -42.5619), 2.0373),
    ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize(("lab1", "lab2", "expected"), SHARMA_PAIRS)
def test_ciede2000_matches_the_published_pairs(lab1, lab2, expected):
    assert delta_e00(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert delta_e00(lab2, lab1) == pytest.approx(expected, abs=1e-4)


def test_srgb_white_black_and_red_in_lab():
    assert srgb_to_lab((255, 255, 255)) == pytest.approx((100.0, 0.0, 0.0), abs=0.01)
    assert srgb_to_lab((0, 0, 0)) == pytest.approx((0.0, 0.0, 0.0), abs=0.01)
    assert srgb_to_lab((255, 0, 0)) == pytest.approx((53.24, 80.09, 67.20), abs=0.05)


def test_the_same_colour_differs_by_nothing_and_black_from_white_by_a_lot():
    assert delta_e00_rgb((112, 18, 40), (112, 18, 40)) == 0.0
    assert delta_e00_rgb((0, 0, 0), (255, 255, 255)) == pytest.approx(100.0, abs=0.01)
