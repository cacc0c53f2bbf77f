"""Painting one nail texture: the canvas, pattern painters, the finish pass and raised decorations.

Used by artwork.render (render_design). A texture is (H, W, 4) uint8 BGRA, top row = the nail's free edge
(tip), bottom row = cuticle; the whole rectangle is painted (the try-on compositor applies the nail shape).
Colours inside are float32 RGB in [0, 1]; only at the end are they turned into BGRA bytes.

Render order (ARCHITECTURE.md §10): base colour → gradients → marble/blooming → French
masks → line art, dots, florals → inclusions (shell flakes, foil, glitter) → finish pass (gloss, matte,
chrome, cat-eye, aurora, pearl, jelly) → raised decorations (rhinestones, pearls, studs), which sit on top
of the finish. All randomness comes from the Generator passed in.
"""

from __future__ import annotations

import colorsys
from functools import lru_cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.core.generation.design import Color, FingerDesign, Pattern

RGB = np.ndarray  # (3,) float32 in [0, 1], RGB order
Floats = NDArray[np.floating[Any]]  # an image plane or a grid of coordinates

# ---------------------------------------------------------------------------------------------- helpers


def _rgb(color: Color) -> RGB:
    return np.asarray(color.rgb, dtype=np.float32) / 255.0


def _luma(rgb: RGB) -> float:
    return float(0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2])


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return (a * (1.0 - t) + b * t).astype(np.float32)


WHITE = np.array([0.98, 0.98, 0.98], np.float32)
NEAR_BLACK = np.array([0.16, 0.15, 0.17], np.float32)
GOLD = np.array([0.86, 0.70, 0.27], np.float32)
SILVER = np.array([0.84, 0.85, 0.89], np.float32)


def _contrast(base: RGB) -> RGB:
    """A colour that reads on the base: white on mid/dark bases, soft charcoal on very light ones."""
    return NEAR_BLACK * 0.9 + 0.1 if _luma(base) > 0.72 else WHITE


def _deeper(base: RGB) -> RGB:
    """A deeper, richer shade of the base (for gradients on light bases)."""
    h, s, v = colorsys.rgb_to_hsv(*[float(c) for c in base])
    return np.array(colorsys.hsv_to_rgb(h, min(1.0, s * 1.6 + 0.25), v * 0.62), np.float32)


def _is_cool(base: RGB) -> bool:
    h, s, _ = colorsys.rgb_to_hsv(*[float(c) for c in base])
    return s > 0.12 and 0.45 < h < 0.85


def _default_sparkle(base: RGB) -> RGB:
    return SILVER if _is_cool(base) or _luma(base) < 0.2 else GOLD


@lru_cache(maxsize=8)
def coordinate_grid(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """u (x / width) and v (y / height) in [0, 1), each (H, W) float32; v = 0 is the tip."""
    u = (np.arange(width, dtype=np.float32) + 0.5) / width
    v = (np.arange(height, dtype=np.float32) + 0.5) / height
    uu, vv = np.meshgrid(u, v)
    uu.setflags(write=False)
    vv.setflags(write=False)
    return uu, vv


def _smoothstep(edge0: float | Floats, edge1: float | Floats, x: Floats) -> Floats:
    t: Floats = np.clip((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def _fbm(rng: np.random.Generator, width: int, height: int, cells: int = 3, octaves: int = 4) -> np.ndarray:
    """Fractal value noise in [0, 1], (H, W) float32: random grids upsampled bicubically and summed."""
    total = np.zeros((height, width), np.float32)
    amplitude, weight = 1.0, 0.0
    for octave in range(octaves):
        n = cells * (2**octave)
        grid = rng.random((max(2, round(n * height / width)) + 1, n + 1), dtype=np.float32)
        total += cv2.resize(grid, (width, height), interpolation=cv2.INTER_CUBIC) * amplitude
        weight += amplitude
        amplitude *= 0.5
    total /= weight
    low, high = float(total.min()), float(total.max())
    return (total - low) / max(high - low, 1e-6)


class _Canvas:
    """The nail being painted: rgb (H, W, 3) float32 RGB in [0, 1]; cover (H, W) float32 = how much of
    each pixel is opaque paint laid by patterns (jelly alpha is lifted there); bare (H, W) = negative space."""

    def __init__(self, width: int, height: int, base: RGB) -> None:
        self.width, self.height = width, height
        self.u, self.v = coordinate_grid(width, height)
        self.rgb = np.empty((height, width, 3), np.float32)
        self.rgb[:] = base
        self.cover = np.zeros((height, width), np.float32)
        self.bare = np.zeros((height, width), np.float32)

    def paint(self, color: RGB | np.ndarray, mask: np.ndarray, opaque: float = 1.0) -> None:
        """Lays `color` with per-pixel weight `mask` (H, W) in [0, 1]; `opaque` scales how much that paint
        counts as opaque coverage (1 for line art and inclusions, less for tints that stay sheer on jelly)."""
        m = mask[..., None]
        self.rgb *= 1.0 - m
        self.rgb += m * color
        if opaque > 0.0:
            np.maximum(self.cover, mask * opaque, out=self.cover)

    def new_mask(self) -> np.ndarray:
        return np.zeros((self.height, self.width), np.uint8)


AA = cv2.LINE_AA
SHIFT = 4  # sub-pixel precision for OpenCV drawing
SCALE = 1 << SHIFT


def _pt(x: float, y: float) -> tuple[int, int]:
    return int(round(x * SCALE)), int(round(y * SCALE))


def _to_float(mask: np.ndarray) -> np.ndarray:
    return mask.astype(np.float32) * (1.0 / 255.0)


# ---------------------------------------------------------------------------------------------- patterns


def _ombre(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    tip = _rgb(p.color) if p.color else (_deeper(base) if _luma(base) > 0.55 else WHITE)
    start = 0.25 + 0.1 * rng.random()
    t = _smoothstep(0.95, start, c.v)  # 1 at the tip, fading to 0 towards the cuticle
    c.paint(tip, t.astype(np.float32) * 0.97, opaque=0.5)


def _blush(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    tone = _rgb(p.color) if p.color else mix(base, np.array([0.92, 0.4, 0.5], np.float32), 0.85)
    cx, cy = 0.5 + 0.04 * (rng.random() - 0.5), 0.5 + 0.06 * (rng.random() - 0.5)
    d = np.sqrt(((c.u - cx) / 0.42) ** 2 + ((c.v - cy) / 0.5) ** 2)
    c.paint(tone, (np.exp(-2.6 * d * d) * 0.85).astype(np.float32), opaque=0.6)


def _blooming(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator,
              palette: list[RGB] | None = None) -> None:
    main = _rgb(p.color) if p.color else _deeper(base)
    colors = palette or [main, WHITE if _luma(base) < 0.8 else mix(main, WHITE, 0.45)]
    small_w, small_h = max(16, c.width // 4), max(24, c.height // 4)
    for k, tone in enumerate(colors):
        noise = _fbm(rng, small_w, small_h, cells=2 + k, octaves=4)
        level = 0.58 + 0.08 * rng.random()
        blob: np.ndarray = _smoothstep(level - 0.12, level + 0.02, noise)
        blob = cv2.resize(blob, (c.width, c.height), interpolation=cv2.INTER_CUBIC)
        blob = cv2.GaussianBlur(np.clip(blob, 0, 1), (0, 0), c.width * 0.045)
        # watercolour pools darker at their rim
        rim = np.clip(blob * (1.0 - blob) * 4.0, 0, 1) * 0.25
        c.paint(tone, (blob * 0.72).astype(np.float32), opaque=0.5)
        c.paint(tone * 0.75, rim.astype(np.float32), opaque=0.5)


def _marble(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    vein = _rgb(p.color) if p.color else (np.array([0.35, 0.35, 0.38], np.float32) if _luma(base) > 0.6 else GOLD)
    small_w, small_h = c.width // 2, c.height // 2
    warp = _fbm(rng, small_w, small_h, cells=2, octaves=5)
    angle = rng.uniform(0.5, 1.1)
    su, sv = coordinate_grid(small_w, small_h)
    phase = (su * np.cos(angle) + sv * np.sin(angle)) * 3.2 + warp * 4.5
    line = np.abs(np.sin(phase * np.pi))
    veins = np.exp(-line / 0.06) + 0.35 * np.exp(-np.abs(np.sin(phase * 2.3 * np.pi + 1.7)) / 0.05)
    cloud = _fbm(rng, small_w, small_h, cells=3, octaves=3)
    veins = np.clip(veins * (0.55 + 0.6 * cloud), 0, 1)
    veins = cv2.resize(veins.astype(np.float32), (c.width, c.height), interpolation=cv2.INTER_LINEAR)
    c.paint(vein, veins * 0.85)


def _french(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    tip = _rgb(p.color) if p.color else (WHITE if _luma(base) < 0.86 else GOLD)
    depth = {"micro_french": 0.07, "french": 0.2}.get(p.kind, 0.2) + 0.02 * rng.random()
    px = 1.2 / c.height
    if p.kind == "chevron_french":
        edge = 0.05 + 0.42 * (1.0 - np.abs(c.u - 0.5) * 2.0) ** 1.0 * 0.6
        mask = _smoothstep(edge + px, edge - px, c.v)
    elif p.kind == "reverse_french":  # half moon at the cuticle
        d = np.sqrt(((c.u - 0.5) / 0.42) ** 2 + ((c.v - 1.02) / 0.22) ** 2)
        mask = _smoothstep(1.0 + 0.01, 1.0 - 0.01, d)
    else:  # smile line: deeper at the sides than in the middle
        edge = depth + 0.9 * depth * (c.u - 0.5) ** 2 * 4.0 * 0.5
        mask = _smoothstep(edge + px, edge - px, c.v)
    c.paint(tip, mask.astype(np.float32))


def _color_block(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    other = _rgb(p.color) if p.color else _deeper(base)
    slope = rng.uniform(-0.6, 0.6)
    edge = 0.55 + slope * (c.u - 0.5)
    c.paint(other, _smoothstep(edge - 0.004, edge + 0.004, c.v).astype(np.float32))


def _negative_space(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    d = np.sqrt(((c.u - 0.5) / 0.5) ** 2 + ((c.v - 1.0) / 0.32) ** 2)
    window = _smoothstep(1.01, 0.99, d)
    np.maximum(c.bare, window.astype(np.float32), out=c.bare)
    line = (np.abs(d - 1.0) < 0.025).astype(np.float32)
    c.paint(_rgb(p.color) if p.color else GOLD, cv2.GaussianBlur(line, (0, 0), 0.7))


def _lines(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    tone = _rgb(p.color) if p.color else _contrast(base)
    mask = c.new_mask()
    thickness = max(1, round(c.width * 0.018))
    for _ in range(int(rng.integers(2, 4))):
        x0 = rng.uniform(0.05, 0.95) * c.width
        x1 = x0 + rng.uniform(-0.5, 0.5) * c.width
        y0, y1 = -0.05 * c.height, 1.05 * c.height
        if rng.random() < 0.4:  # a gentle curve
            pts = np.array([_pt(x0 + (x1 - x0) * t + np.sin(t * 6.0) * 0.08 * c.width, y0 + (y1 - y0) * t)
                            for t in np.linspace(0, 1, 24)], np.int32)
            cv2.polylines(mask, [pts], False, 255, thickness, AA, SHIFT)
        else:
            cv2.line(mask, _pt(x0, y0), _pt(x1, y1), 255, thickness, AA, SHIFT)
    c.paint(tone, _to_float(mask))


def _plaid(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    tone = _rgb(p.color) if p.color else _deeper(base)
    period = rng.uniform(0.22, 0.3)
    band_u = _smoothstep(0.72, 0.78, np.abs(np.sin(c.u * np.pi / period)))
    band_v = _smoothstep(0.72, 0.78, np.abs(np.sin(c.v * np.pi / (period * 0.66))))
    c.paint(tone, ((band_u + band_v) * 0.35).astype(np.float32))
    thin = _smoothstep(0.985, 0.995, np.abs(np.cos(c.u * np.pi / period)))
    c.paint(_contrast(base), (thin * 0.8).astype(np.float32))


def _dots(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    tone = _rgb(p.color) if p.color else _contrast(base)
    mask = c.new_mask()
    step = c.width * rng.uniform(0.2, 0.26)
    radius = step * rng.uniform(0.16, 0.24)
    offset_x, offset_y = rng.random() * step, rng.random() * step
    for row, y in enumerate(np.arange(-step + offset_y, c.height + step, step * 0.87)):
        shift = step / 2 if row % 2 else 0.0
        for x in np.arange(-step + offset_x + shift, c.width + step, step):
            cv2.circle(mask, _pt(x, y), int(radius * SCALE), 255, -1, AA, SHIFT)
    c.paint(tone, _to_float(mask))


def _shape_points(kind: str, cx: float, cy: float, size: float, angle: float) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    if kind == "hearts":
        x = 16 * np.sin(t) ** 3 / 17.0
        y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t)) / 17.0
    else:  # five-point star
        t = np.linspace(0, 2 * np.pi, 10, endpoint=False) - np.pi / 2
        r = np.where(np.arange(10) % 2 == 0, 1.0, 0.45)
        x, y = r * np.cos(t), r * np.sin(t)
    ca, sa = np.cos(angle), np.sin(angle)
    xs, ys = cx + size * (x * ca - y * sa), cy + size * (x * sa + y * ca)
    return np.stack([np.round(xs * SCALE), np.round(ys * SCALE)], axis=1).astype(np.int32)


HEART_RED = np.array([0.85, 0.2, 0.3], np.float32)


def _motifs(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    """Hearts or stars: one big motif plus a few small ones."""
    if p.color:
        tone = _rgb(p.color)
    elif p.kind == "hearts":
        tone = HEART_RED if _luma(base) > 0.5 else _contrast(base)
    else:
        tone = GOLD
    mask = c.new_mask()
    count = int(rng.integers(2, 5))
    for k in range(count):
        size = c.width * (0.2 if k == 0 else rng.uniform(0.06, 0.11))
        cx, cy = rng.uniform(0.25, 0.75) * c.width, rng.uniform(0.2, 0.8) * c.height
        cv2.fillPoly(mask, [_shape_points(p.kind, cx, cy, size, rng.uniform(-0.4, 0.4))], 255, AA, SHIFT)
    c.paint(tone, _to_float(mask))


def _florals(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    petal = _rgb(p.color) if p.color else _most_distinct(base, FLORAL_PETALS)
    centre = np.array([0.98, 0.80, 0.25], np.float32)
    leaf = np.array([0.45, 0.62, 0.40], np.float32)
    for k in range(int(rng.integers(1, 4))):
        size = c.width * (0.19 if k == 0 else rng.uniform(0.09, 0.13))
        cx = rng.uniform(0.25, 0.75) * c.width
        cy = rng.uniform(0.25, 0.8) * c.height
        rotation = rng.uniform(0, 72)
        petals, leaves, middle = c.new_mask(), c.new_mask(), c.new_mask()
        if rng.random() < 0.6:
            lx = cx + size * 1.1 * np.cos(np.radians(rotation + 20))
            ly = cy + size * 1.1 * np.sin(np.radians(rotation + 20))
            cv2.ellipse(leaves, _pt(lx, ly), _pt(size * 0.55, size * 0.22), rotation + 20, 0, 360, 255, -1, AA, SHIFT)
        for n in range(5):
            a = np.radians(rotation + n * 72)
            px, py = cx + size * 0.55 * np.cos(a), cy + size * 0.55 * np.sin(a)
            cv2.ellipse(petals, _pt(px, py), _pt(size * 0.5, size * 0.3), np.degrees(a), 0, 360, 255, -1, AA, SHIFT)
        cv2.circle(middle, _pt(cx, cy), int(size * 0.24 * SCALE), 255, -1, AA, SHIFT)
        c.paint(leaf, _to_float(leaves))
        petal_mask = _to_float(petals)
        # a soft shade toward the centre gives petals some depth
        shade = cv2.GaussianBlur(_to_float(middle), (0, 0), size * 0.3) * 0.5
        c.paint(petal, petal_mask)
        c.paint(petal * 0.8, petal_mask * np.clip(shade, 0, 1))
        c.paint(centre, _to_float(middle))


FLORAL_PETALS = [WHITE, np.array([0.95, 0.6, 0.7], np.float32), np.array([0.8, 0.3, 0.42], np.float32)]


def _most_distinct(base: RGB, candidates: list[RGB], enough: float = 0.35) -> RGB:
    """The first candidate far enough from the base colour (Euclidean RGB), else the farthest one."""
    for candidate in candidates:
        if float(np.linalg.norm(candidate - base)) > enough:
            return candidate
    return max(candidates, key=lambda c: float(np.linalg.norm(c - base)))


def _leopard(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    """Rosettes: a darker irregular fill broken up by two or three dark arcs around it."""
    spot = _rgb(p.color) if p.color else np.array([0.13, 0.08, 0.06], np.float32)
    inner = mix(base * 0.72, np.array([0.45, 0.26, 0.12], np.float32), 0.45)
    ring, fill = c.new_mask(), c.new_mask()
    # a jittered 3 × 4 grid spreads the rosettes over the nail instead of letting them clump
    cells = [(col, row) for row in range(4) for col in range(3)]
    for col, row in cells:
        cx = (col + rng.uniform(0.15, 0.85)) / 3 * c.width
        cy = (row + rng.uniform(0.15, 0.85)) / 4 * c.height
        r = c.width * rng.uniform(0.07, 0.11)
        axes = _pt(r, r * rng.uniform(0.65, 0.95))
        angle = rng.uniform(0, 180)
        cv2.ellipse(fill, _pt(cx, cy), (int(axes[0] * 0.8), int(axes[1] * 0.8)), angle, 0, 360, 255, -1, AA, SHIFT)
        start = rng.uniform(0, 360)
        for _arc in range(int(rng.integers(2, 4))):
            sweep = rng.uniform(50, 100)
            cv2.ellipse(ring, _pt(cx, cy), axes, angle, start, start + sweep, 255, max(2, round(r * 0.35)), AA, SHIFT)
            start += sweep + rng.uniform(20, 50)
    c.paint(inner, _to_float(fill))
    c.paint(spot, _to_float(ring))


def _tortoiseshell(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    amber = _rgb(p.color) if p.color else np.array([0.72, 0.42, 0.12], np.float32)
    c.paint(mix(amber, WHITE, 0.15), np.full((c.height, c.width), 0.6, np.float32), opaque=0.0)
    _blooming(c, p, base, rng, palette=[amber * 0.55, np.array([0.22, 0.1, 0.05], np.float32)])


def _galaxy(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    night = np.array([0.07, 0.06, 0.2], np.float32)
    c.paint(night, np.full((c.height, c.width), 0.7, np.float32))
    nebula = [np.array([0.45, 0.2, 0.6], np.float32), np.array([0.15, 0.35, 0.7], np.float32)]
    _blooming(c, p, base, rng, palette=nebula)
    _sparkles(c, WHITE, rng, count=260, sizes=(0.6, 1.2))


def _flake_polygons(c: _Canvas, rng: np.random.Generator, count: int, size: tuple[float, float]) -> list[np.ndarray]:
    polys = []
    for _ in range(count):
        cx, cy = rng.random() * c.width, rng.random() * c.height
        r = c.width * rng.uniform(*size)
        angles = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(3, 6))))
        radii = r * rng.uniform(0.5, 1.0, angles.size)
        pts = np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], axis=1)
        polys.append(np.round(pts * SCALE).astype(np.int32))
    return polys


def _shell_flakes(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    """Iridescent mother-of-pearl chips: pastel hues that shift across each chip, with a bright edge."""
    for poly in _flake_polygons(c, rng, int(rng.integers(22, 32)), (0.05, 0.13)):
        mask = c.new_mask()
        cv2.fillPoly(mask, [poly], 255, AA, SHIFT)
        x, y, w, h = cv2.boundingRect(poly // SCALE)
        x0, y0 = max(0, x - 2), max(0, y - 2)
        x1, y1 = min(c.width, x + w + 3), min(c.height, y + h + 3)
        if x1 <= x0 or y1 <= y0:
            continue
        hue0 = rng.random()
        local_u = c.u[y0:y1, x0:x1] * 3.0 + c.v[y0:y1, x0:x1] * 2.0
        hue = (hue0 + 0.25 * np.sin(local_u * 6.0)) % 1.0
        tint = _hue_to_rgb(hue, saturation=0.38, value=1.0) if p.color is None else np.broadcast_to(
            mix(_rgb(p.color), WHITE, 0.35), hue.shape + (3,))
        m = _to_float(mask[y0:y1, x0:x1])[..., None] * rng.uniform(0.7, 0.92)
        region = c.rgb[y0:y1, x0:x1]
        region *= 1.0 - m
        region += m * tint
        np.maximum(c.cover[y0:y1, x0:x1], m[..., 0], out=c.cover[y0:y1, x0:x1])


def _hue_to_rgb(hue: np.ndarray, saturation: float, value: float) -> np.ndarray:
    """Vectorised HSV → RGB for a hue array (any shape) at fixed saturation/value; returns (..., 3)."""
    k = np.stack([(5.0 + hue * 6.0) % 6.0, (3.0 + hue * 6.0) % 6.0, (1.0 + hue * 6.0) % 6.0], axis=-1)
    rgb = value - value * saturation * np.clip(np.minimum(k, 4.0 - k), 0.0, 1.0)
    return rgb.astype(np.float32)


def _foil_flakes(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    metal = _rgb(p.color) if p.color else GOLD
    mask = c.new_mask()
    cv2.fillPoly(mask, _flake_polygons(c, rng, int(rng.integers(6, 10)), (0.1, 0.22)), 255, AA, SHIFT)
    crinkle = _fbm(rng, c.width // 2, c.height // 2, cells=8, octaves=2)
    crinkle = cv2.resize(crinkle, (c.width, c.height), interpolation=cv2.INTER_NEAREST)
    shaded = metal[None, None, :] * (0.7 + 0.6 * crinkle[..., None])
    m = _to_float(mask)[..., None]
    c.rgb *= 1.0 - m
    c.rgb += m * np.clip(shaded, 0, 1)
    np.maximum(c.cover, m[..., 0], out=c.cover)


def _sparkles(c: _Canvas, tone: RGB, rng: np.random.Generator, count: int, sizes: tuple[float, float]) -> None:
    mask = c.new_mask()
    xs, ys = rng.random(count) * c.width, rng.random(count) * c.height
    radii = rng.uniform(sizes[0], sizes[1], count) * c.width / 128.0
    for x, y, r in zip(xs, ys, radii, strict=True):
        cv2.circle(mask, _pt(x, y), max(1, int(r * SCALE)), 255, -1, AA, SHIFT)
    m = _to_float(mask)
    brightness = rng.uniform(0.6, 1.25, (c.height, c.width)).astype(np.float32)
    sparkle = np.clip(tone[None, None, :] * brightness[..., None] + 0.15 * (brightness[..., None] > 1.15), 0, 1)
    m3 = m[..., None]
    c.rgb *= 1.0 - m3
    c.rgb += m3 * sparkle
    np.maximum(c.cover, m, out=c.cover)


def _glitter(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    tone = _rgb(p.color) if p.color else _default_sparkle(base)
    if p.variant == "chunky":
        count, sizes = 70, (1.6, 3.0)
    elif p.variant == "fine":
        count, sizes = 900, (0.35, 0.7)
    else:
        count, sizes = 380, (0.6, 1.3)
    # glitter settles denser towards the tip, as in a glitter gradient
    _sparkles(c, tone, rng, count, sizes)


def _noop(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    return None


PATTERN_PAINTERS = {
    "solid": _noop, "ombre": _ombre, "blush": _blush, "color_block": _color_block,
    "blooming": _blooming, "marble": _marble, "tortoiseshell": _tortoiseshell, "galaxy": _galaxy,
    "leopard": _leopard, "plaid": _plaid, "negative_space": _negative_space,
    "french": _french, "micro_french": _french, "chevron_french": _french, "reverse_french": _french,
    "lines": _lines, "dots": _dots, "florals": _florals, "hearts": _motifs, "stars": _motifs,
    "shell_flakes": _shell_flakes, "foil_flakes": _foil_flakes, "glitter": _glitter,
}
LAYER_ORDER = {
    "solid": 0, "ombre": 0, "blush": 0, "color_block": 0, "galaxy": 0,
    "blooming": 1, "marble": 1, "tortoiseshell": 1, "leopard": 1, "plaid": 1,
    "french": 2, "micro_french": 2, "chevron_french": 2, "reverse_french": 2, "negative_space": 2,
    "lines": 3, "dots": 3, "florals": 3, "hearts": 3, "stars": 3,
    "shell_flakes": 4, "foil_flakes": 4, "glitter": 4,
    "rhinestones": 6, "pearls": 6, "studs": 6,
}

# ---------------------------------------------------------------------------------------------- finishes


def _gloss_highlight(c: _Canvas, strength: float = 0.5) -> None:
    """A specular streak along the left of the nail's curve plus a small glint near the tip."""
    slant = c.u - (0.27 + 0.06 * (c.v - 0.5))
    streak = np.exp(-((slant / 0.055) ** 2)) * _smoothstep(0.05, 0.22, c.v) * _smoothstep(0.9, 0.62, c.v)
    glint = np.exp(-(((c.u - 0.68) / 0.05) ** 2 + ((c.v - 0.16) / 0.035) ** 2)) * 0.6
    h = (streak + glint) * strength
    c.rgb += (1.0 - c.rgb) * h[..., None]
    # gentle curvature: the sides of a nail turn away from the light
    c.rgb *= (0.9 + 0.1 * np.sin(np.pi * c.u))[..., None]


def _finish_matte(c: _Canvas, rng: np.random.Generator) -> None:
    grey = c.rgb.mean(axis=2, keepdims=True)
    c.rgb[:] = c.rgb * 0.88 + grey * 0.12
    c.rgb *= 0.94
    c.rgb += 0.035
    grain = rng.normal(0.0, 0.018, (c.height, c.width)).astype(np.float32)
    c.rgb += grain[..., None]
    c.rgb *= (0.96 + 0.04 * np.sin(np.pi * c.u))[..., None]


def _finish_chrome(c: _Canvas, rng: np.random.Generator, strength: float = 1.0) -> None:
    """A mirror powder: the colour stays, its brightness follows a sharp environment-reflection map."""
    warp = cv2.resize(_fbm(rng, c.width // 4, c.height // 4, cells=2, octaves=3), (c.width, c.height))
    env = 0.5 + 0.5 * np.sin(2 * np.pi * (1.1 * c.u + 0.25 * c.v) + warp * 2.5 + rng.uniform(0, 2 * np.pi))
    env = env**1.6
    tint = c.rgb / np.maximum(c.rgb.max(axis=2, keepdims=True), 0.2)
    chrome = tint * (0.25 + 0.95 * env[..., None]) + 0.55 * (env**8)[..., None]
    c.rgb[:] = c.rgb * (1.0 - strength) + np.clip(chrome, 0, 1) * strength
    _gloss_highlight(c, 0.55)


def _finish_cat_eye(c: _Canvas, rng: np.random.Generator, base: RGB) -> None:
    """Magnetic polish: a deep base with one bright shimmering band where the magnet pulled the particles."""
    angle = rng.uniform(-0.35, 0.35)
    centre = rng.uniform(0.4, 0.55)
    d = (c.v - centre) * np.cos(angle) - (c.u - 0.5) * np.sin(angle) * 0.66
    band = np.exp(-((d / 0.11) ** 2))
    glow = mix(base, WHITE, 0.55) if _luma(base) < 0.7 else mix(base, SILVER, 0.5)
    speck = rng.random((c.height, c.width), dtype=np.float32)
    shimmer = np.where(speck > 0.82, speck, 0.0).astype(np.float32)
    c.rgb *= 0.5
    light = (band * (0.75 + 0.5 * shimmer))[..., None]
    c.rgb += light * glow
    c.rgb += (shimmer * 0.08)[..., None] * glow
    _gloss_highlight(c, 0.4)


def _finish_aurora(c: _Canvas, rng: np.random.Generator) -> None:
    warp = cv2.resize(_fbm(rng, c.width // 4, c.height // 4, cells=2, octaves=3), (c.width, c.height))
    hue = (0.9 * c.u + 0.6 * c.v + warp * 0.6 + rng.random()) % 1.0
    rainbow = _hue_to_rgb(hue, saturation=0.5, value=1.0)
    sheen = (0.25 + 0.25 * np.sin(2 * np.pi * (c.u * 0.8 - c.v * 0.5) + warp * 3.0))[..., None]
    c.rgb[:] = 1.0 - (1.0 - c.rgb) * (1.0 - rainbow * sheen)  # screen blend
    _gloss_highlight(c, 0.45)


def _finish_pearl(c: _Canvas, rng: np.random.Generator, strength: float = 0.3) -> None:
    diagonal = 0.5 + 0.5 * np.sin(2 * np.pi * (0.6 * c.u - 0.4 * c.v) + rng.uniform(0, 2 * np.pi))
    tint = _hue_to_rgb((0.9 + 0.25 * diagonal) % 1.0, saturation=0.12, value=1.0)
    c.rgb[:] = c.rgb * (1.0 - strength * diagonal[..., None]) + tint * strength * diagonal[..., None]
    speck = rng.random((c.height, c.width), dtype=np.float32)
    c.rgb += (np.where(speck > 0.93, 0.08, 0.0) * diagonal)[..., None].astype(np.float32)
    _gloss_highlight(c, 0.4)


def _finish_shimmer(c: _Canvas, rng: np.random.Generator) -> None:
    speck = rng.random((c.height, c.width), dtype=np.float32)
    c.rgb += np.where(speck > 0.9, (speck - 0.9) * 2.5, 0.0)[..., None].astype(np.float32)
    _gloss_highlight(c, 0.5)


def _apply_finish(c: _Canvas, finish: str, base: RGB, rng: np.random.Generator) -> np.ndarray:
    """Runs the finish pass; returns the base alpha (H, W) float32 (1 everywhere except jelly)."""
    alpha = np.ones((c.height, c.width), np.float32)
    if finish == "matte":
        _finish_matte(c, rng)
    elif finish == "chrome":
        _finish_chrome(c, rng)
    elif finish == "metallic":
        _finish_chrome(c, rng, strength=0.6)
    elif finish == "cat_eye":
        _finish_cat_eye(c, rng, base)
    elif finish == "aurora":
        _finish_aurora(c, rng)
    elif finish == "pearl":
        _finish_pearl(c, rng)
    elif finish == "mother_of_pearl":
        _shell_flakes(c, Pattern("shell_flakes"), base, rng)
        _finish_pearl(c, rng, strength=0.35)
    elif finish == "shimmer":
        _finish_shimmer(c, rng)
    elif finish == "jelly":
        # sheer polish: thicker (more opaque) towards the free edge, like a real jelly coat
        alpha = (0.5 + 0.2 * (1.0 - c.v)).astype(np.float32)
        _gloss_highlight(c, 0.55)
    else:
        _gloss_highlight(c, 0.6)
    return alpha


# ---------------------------------------------------------------------------------------------- decorations


def _gems(c: _Canvas, p: Pattern, base: RGB, rng: np.random.Generator) -> None:
    """Rhinestones (faceted), pearls (smooth spheres) or studs (metal domes) as shaded circles."""
    if p.kind == "pearls":
        tone, size = (_rgb(p.color) if p.color else np.array([0.97, 0.94, 0.88], np.float32)), 0.075
    elif p.kind == "studs":
        tone, size = (_rgb(p.color) if p.color else GOLD), 0.05
    else:
        tone, size = (_rgb(p.color) if p.color else np.array([0.9, 0.92, 0.97], np.float32)), 0.065
    layout = rng.choice(["arc", "line", "cluster"])
    count = int(rng.integers(3, 6))
    if layout == "arc":  # along the cuticle
        t = np.linspace(-0.7, 0.7, count)
        centres = [(0.5 + 0.36 * np.sin(a), 0.84 - 0.1 * np.cos(a) + 0.1) for a in t]
    elif layout == "line":  # down the centre
        centres = [(0.5, 0.3 + 0.55 * k / max(1, count - 1)) for k in range(count)]
    else:
        cx, cy = rng.uniform(0.35, 0.65), rng.uniform(0.55, 0.78)
        centres = [(cx + rng.normal(0, 0.12), cy + rng.normal(0, 0.07)) for _ in range(count)]
    for k, (cu, cv) in enumerate(centres):
        radius = c.width * size * (1.0 if k % 2 == 0 else 0.75)
        _stone(c, cu * c.width, cv * c.height, radius, tone, p.kind)


def _stone(c: _Canvas, cx: float, cy: float, r: float, tone: RGB, kind: str) -> None:
    pad = int(r * 1.6) + 2
    x0, y0 = max(0, int(cx) - pad), max(0, int(cy) - pad)
    x1, y1 = min(c.width, int(cx) + pad), min(c.height, int(cy) + pad)
    if x1 <= x0 or y1 <= y0:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    dx, dy = (xs + 0.5 - cx) / r, (ys + 0.5 - cy) / r
    d = np.sqrt(dx * dx + dy * dy)
    inside = np.clip((1.0 - d) * r + 0.5, 0.0, 1.0)
    shadow = np.clip(1.0 - np.sqrt((dx - 0.18) ** 2 + (dy - 0.3) ** 2), 0.0, 1.0) * 0.45
    region = c.rgb[y0:y1, x0:x1]
    region *= (1.0 - shadow * (1.0 - inside))[..., None]
    z = np.sqrt(np.clip(1.0 - d * d, 0.0, 1.0))
    light = np.clip(-0.5 * dx - 0.6 * dy + 0.62 * z, 0.0, 1.0)  # light from the upper left
    if kind == "rhinestones":
        facets = 0.55 + 0.45 * np.cos(8.0 * np.arctan2(dy, dx)) * (1.0 - d)
        shade = 0.6 + 0.6 * light * facets
        spark = np.exp(-(((dx + 0.35) / 0.18) ** 2 + ((dy + 0.35) / 0.18) ** 2))
    else:
        shade = 0.45 + 0.6 * light
        spark = np.exp(-(((dx + 0.3) / 0.22) ** 2 + ((dy + 0.35) / 0.2) ** 2)) * (0.9 if kind == "pearls" else 1.2)
    rim = np.clip((d - 0.82) / 0.18, 0.0, 1.0) * 0.35
    colour = tone[None, None, :] * (shade * (1.0 - rim))[..., None] + spark[..., None]
    m = inside[..., None]
    region *= 1.0 - m
    region += m * np.clip(colour, 0.0, 1.0)
    np.maximum(c.cover[y0:y1, x0:x1], inside, out=c.cover[y0:y1, x0:x1])


DECORATION_PAINTERS = {"rhinestones": _gems, "pearls": _gems, "studs": _gems}

# ---------------------------------------------------------------------------------------------- one nail


def render_nail_texture(design: FingerDesign, rng: np.random.Generator, size: tuple[int, int]) -> NDArray[np.uint8]:
    """One nail texture for a resolved finger design: (H, W, 4) uint8 BGRA, top row = tip."""
    if design.base_color is None:
        raise ValueError("render_nail_texture needs a resolved finger design (Design.finger_design)")
    width, height = size
    base = _rgb(design.base_color)
    canvas = _Canvas(width, height, base)
    # a faint tonal drift so a solid colour does not look flat-printed
    canvas.rgb *= (1.0 + 0.04 * (0.5 - canvas.v))[..., None]
    layers = sorted(design.patterns, key=lambda p: LAYER_ORDER.get(p.kind, 5))
    for pattern in layers:
        if pattern.kind in DECORATION_PAINTERS:
            continue
        PATTERN_PAINTERS.get(pattern.kind, _noop)(canvas, pattern, base, rng)
    alpha = _apply_finish(canvas, design.finish or "gloss", base, rng)
    for pattern in layers:
        if pattern.kind in DECORATION_PAINTERS:
            DECORATION_PAINTERS[pattern.kind](canvas, pattern, base, rng)
    alpha = alpha + (1.0 - alpha) * canvas.cover
    alpha *= 1.0 - canvas.bare * 0.92
    rgba = np.empty((height, width, 4), np.uint8)
    rgba[..., :3] = np.clip(canvas.rgb[..., ::-1] * 255.0 + 0.5, 0, 255).astype(np.uint8)
    rgba[..., 3] = np.clip(alpha * 255.0 + 0.5, 0, 255).astype(np.uint8)
    return rgba
