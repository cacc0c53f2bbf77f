"""How different two colours look: sRGB → CIELAB (D65) and the CIEDE2000 colour difference ΔE00.

Pure Python (core imports no numpy), for a handful of colours at a time: the AI variations are chosen so that
their main colours differ by ΔE00 ≥ 10, which people see at a glance (ΔE00 ≈ 1 is the just-noticeable
difference, ≈ 2–3 what a trained eye sees side by side). Formulas: Sharma, Wu and Dalal, "The CIEDE2000
colour-difference formula" (2005), checked against their published test pairs in the tests.
"""

from __future__ import annotations

from math import atan2, cos, degrees, exp, hypot, radians, sin, sqrt

Lab = tuple[float, float, float]
_WHITE_D65 = (0.95047, 1.0, 1.08883)
_POW7_25 = 25.0**7


def srgb_to_lab(rgb: tuple[int, int, int]) -> Lab:
    """An 8-bit sRGB colour (R, G, B) as CIELAB (L*, a*, b*) under D65."""
    r, g, b = (_linear(c / 255.0) for c in rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / _WHITE_D65[0]
    y = (0.2126729 * r + 0.7151522 * g + 0.0721750 * b) / _WHITE_D65[1]
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / _WHITE_D65[2]
    fx, fy, fz = _f(x), _f(y), _f(z)
    return 116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)


def delta_e00_rgb(first: tuple[int, int, int], second: tuple[int, int, int]) -> float:
    """ΔE00 between two 8-bit sRGB colours."""
    return delta_e00(srgb_to_lab(first), srgb_to_lab(second))


def delta_e00(lab1: Lab, lab2: Lab) -> float:
    """The CIEDE2000 difference of two CIELAB colours (kL = kC = kH = 1)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_mean = (hypot(a1, b1) + hypot(a2, b2)) / 2.0
    g = 0.5 * (1.0 - sqrt(c_mean**7 / (c_mean**7 + _POW7_25)))
    a1p, a2p = (1.0 + g) * a1, (1.0 + g) * a2
    c1p, c2p = hypot(a1p, b1), hypot(a2p, b2)
    h1p, h2p = _hue(b1, a1p), _hue(b2, a2p)
    dl = l2 - l1
    dc = c2p - c1p
    dh = 0.0
    if c1p * c2p != 0.0:
        dh = h2p - h1p
        if dh > 180.0:
            dh -= 360.0
        elif dh < -180.0:
            dh += 360.0
    dhh = 2.0 * sqrt(c1p * c2p) * sin(radians(dh) / 2.0)
    l_mean = (l1 + l2) / 2.0
    cp_mean = (c1p + c2p) / 2.0
    if c1p * c2p == 0.0:
        hp_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180.0:
        hp_mean = (h1p + h2p) / 2.0
    elif h1p + h2p < 360.0:
        hp_mean = (h1p + h2p + 360.0) / 2.0
    else:
        hp_mean = (h1p + h2p - 360.0) / 2.0
    t = (1.0 - 0.17 * cos(radians(hp_mean - 30.0)) + 0.24 * cos(radians(2.0 * hp_mean))
         + 0.32 * cos(radians(3.0 * hp_mean + 6.0)) - 0.20 * cos(radians(4.0 * hp_mean - 63.0)))
    d_theta = 30.0 * exp(-(((hp_mean - 275.0) / 25.0) ** 2))
    rc = 2.0 * sqrt(cp_mean**7 / (cp_mean**7 + _POW7_25))
    sl = 1.0 + 0.015 * (l_mean - 50.0) ** 2 / sqrt(20.0 + (l_mean - 50.0) ** 2)
    sc = 1.0 + 0.045 * cp_mean
    sh = 1.0 + 0.015 * cp_mean * t
    rt = -sin(radians(2.0 * d_theta)) * rc
    return sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dhh / sh) ** 2 + rt * (dc / sc) * (dhh / sh))


def _hue(b: float, a: float) -> float:
    if a == 0.0 and b == 0.0:
        return 0.0
    angle = degrees(atan2(b, a))
    return angle + 360.0 if angle < 0.0 else angle


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _f(t: float) -> float:
    return t ** (1.0 / 3.0) if t > (6.0 / 29.0) ** 3 else t / (3.0 * (6.0 / 29.0) ** 2) + 4.0 / 29.0
