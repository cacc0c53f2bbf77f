"""The per-pixel light of polish on a batch of nails: what colour each painted pixel gets before blending.

Inputs are the compositor's flat batch (see compositor.paint_nails): every nail's ROI pixels one after another,
each nail's (h, w) pixels a contiguous span in row-major order. Per pixel the nail coordinates (u across the
nail 0…1 left to right, v along it 0 at the free edge … 1 at the cuticle) come from the nail's quad.

The model, per nail (why: polish is an opaque coat on a curved plate; only the light on it comes from the
photo, never the plate's own colour or its lunula):
- exposure: the nail's mean brightness against a bare nail's (a dim room gives dim polish);
- the room's light across the nail: a line fitted to the nail's smoothed brightness over u, clipped to
  ±LIGHT_RANGE — a gradient across only, so the lunula (a bright blob at the base) cannot print through;
- curvature: a cylinder's shading, darker towards the sides;
- the real nail's highlights (pixels well above their local mean), away from the free edge and the lunula;
- a synthetic specular streak along the nail's axis on the side the light comes from, which `blend_top_coat`
  lays on top after blending, so it stays bright on a sheer jelly too;
- finishes on top: chrome (mirror bands), cat-eye (a velvet line), glitter (sparkles fixed to the nail);
- laid-out looks first get their French tip and half-moon, measured from the edges of what is painted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.paint.polish import NailLook

NAIL_REFERENCE_LUMA = 170.0  # a bare nail this bright under the kiosk's light shows polish at its own colour
_EXPOSURE_RANGE = (0.45, 1.0)
LIGHT_RANGE = 0.18
_SHADE_RANGE = (0.3, 1.3)
_KNEE = 215.0  # above this, values roll off softly towards 255 so bright polish keeps its highlights
_HIGHLIGHT_THRESHOLD = 14.0  # grey levels above the local mean that count as a real highlight
_HIGHLIGHT_GAIN = 1.5
_GLITTER_CELLS = (13.0, 19.0)  # sparkle cells across and along a nail
_GLITTER_SHARE = 0.16  # of the cells that sparkle


@dataclass(frozen=True)
class NailLight:
    """One nail of the batch as the shading needs it: its ROI's (rows, columns), look, size in frame pixels
    (width across, length along), a seed for its sparkles, and its lean in [-1, 1] towards the kiosk's light
    (`nail_lean`: 0 when it points straight up under the light; the highlight and a cat-eye's band move with it)."""

    shape: tuple[int, int]
    look: NailLook
    width_px: float
    length_px: float
    seed: int
    lean: float = 0.0


LEAN_SHIFT = 0.16  # how far (of the nail's width) the highlight moves across the nail at full lean
CAT_EYE_SHIFT = 0.28  # the magnetic band moves further: it is what a customer turns her hand to see
CAT_EYE_SLANT = 0.35  # and it turns with the finger: its offset across per unit along the nail at full lean


def nail_lean(corners: np.ndarray, frame_width: int) -> float:
    """How a nail ((4, 2) quad corners, tip edge first) leans relative to the kiosk's light, which is above the
    mirror: its axis' angle from straight up (a finger turned right leans +) and its place across the frame (a
    nail on the right sees the light from its left). In [-1, 1]; it changes as the finger turns or moves, so the
    highlights move with it as a real top coat's do."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = np.asarray(corners, np.float64).tolist()
    axis_x, axis_y = (x0 + x1 - x2 - x3) / 2, (y0 + y1 - y2 - y3) / 2
    length = float(np.hypot(axis_x, axis_y))
    turn = axis_x / length if length > 1e-6 else 0.0  # sin of the angle from straight up
    across = (x0 + x1 + x2 + x3) / (2.0 * max(frame_width, 1)) - 1.0  # −1 left edge … 1 right edge
    return float(np.clip(0.7 * turn + 0.5 * across, -1.0, 1.0))


def shade_nails(original: np.ndarray, colour: np.ndarray, nail: np.ndarray, uv: np.ndarray,
                nails: Sequence[NailLight]) -> tuple[np.ndarray, np.ndarray | None]:
    """The polish colour of every pixel, and the specular top coat.

    original, colour: (1, N, 3) uint8 (colour: the texture's or the laid-out base); nail: (1, N) float32 alpha;
    uv: (1, N, 2) float32. Returns painted (1, N, 3) float32 ≥ 0 and top coat (1, N) float32 in [0, 1] or None.
    """
    sizes = [light.shape[0] * light.shape[1] for light in nails]
    starts = np.cumsum([0, *sizes[:-1]])
    flat_nail = nail.reshape(-1)
    u = np.ascontiguousarray(uv[0, :, 0])
    v = np.ascontiguousarray(uv[0, :, 1])
    grey = cv2.cvtColor(original, cv2.COLOR_BGR2GRAY).astype(np.float32).reshape(-1)
    smooth = _local_mean(grey, nails, starts, sizes)
    light, tilt = _room_light(smooth, flat_nail, u, starts, sizes)
    looks = [n.look for n in nails]
    laid_out = any(look.tip is not None or look.moon is not None for look in looks)
    effects = any(look.finish.chrome or look.finish.cat_eye or look.finish.glitter for look in looks)
    paint = colour.reshape(-1, 3).astype(np.float32) if laid_out or effects else None
    if paint is not None and laid_out:
        _lay_out(paint, flat_nail, u, v, nails, starts, sizes)
    x = u * 2.0 - 1.0
    x *= x  # (2u − 1)²: 0 on the nail's crown, 1 at its sides
    curvature = _per_pixel([look.finish.curvature for look in looks], sizes)
    shade = light * (1.0 - curvature * x)  # exposure · room light · (1 − k·x²)
    np.clip(shade, *_SHADE_RANGE, out=shade)
    # (OpenCV multiplies by a 3-channel copy of shade far faster than numpy broadcasts (N, 1) over (N, 3))
    source = colour.reshape(1, -1, 3) if paint is None else paint.reshape(1, -1, 3)
    painted = cv2.multiply(source, _three(shade), dtype=cv2.CV_32F).reshape(-1, 3)
    if paint is not None and effects:
        _finishes(painted, paint, shade, u, v, tilt, looks, nails, sizes)
    lift = _real_highlights(grey, smooth, v, looks, sizes)
    if lift is not None:
        painted += _three(lift).reshape(-1, 3)
    np.maximum(painted, 0.0, out=painted)
    _soft_clip(painted)
    top = _streak(u, v, tilt, nails, sizes, shade)
    return painted.reshape(1, -1, 3), (None if top is None else top.reshape(1, -1))


def blend_top_coat(blended: np.ndarray, top: np.ndarray, nail: np.ndarray) -> None:
    """In place on blended (1, N, 3) float32: the specular streak on top of whatever the polish let through."""
    room = 255.0 - blended
    room *= _three(top * nail)
    blended += room


def _three(values: np.ndarray) -> np.ndarray:
    """(N,) or (1, N) float32 → (1, N, 3): the same value in each channel (for per-channel products)."""
    flat = values.reshape(1, -1)
    return cv2.merge((flat, flat, flat))


def _local_mean(grey: np.ndarray, nails: Sequence[NailLight], starts: NDArray[np.int64],
                sizes: list[int]) -> np.ndarray:
    """Each nail's grey level box-blurred over about a third of its width: its broad shading."""
    smooth = np.empty_like(grey)
    for light, start, size in zip(nails, starts.tolist(), sizes, strict=True):
        rows, columns = light.shape
        box = max(3, (min(rows, columns) // 3) | 1)
        target = smooth[start:start + size].reshape(rows, columns)
        blurred = cv2.blur(grey[start:start + size].reshape(rows, columns), (box, box), dst=target)
        if blurred is not target:  # (OpenCV writes into a matching dst; this only guards that)
            target[...] = blurred
    return smooth


def _room_light(smooth: np.ndarray, weight: np.ndarray, u: np.ndarray, starts: NDArray[np.int64],
                sizes: list[int]) -> tuple[np.ndarray, NDArray[np.float32]]:
    """Per pixel exposure × the room's light across the nail (a line over u fitted to the nail's smoothed
    brightness, weighted by its alpha), and per nail that gradient relative to its mean (for the streak).
    Only across: along the nail the brightness is mostly the nail's own (the lunula, the free edge)."""
    rows = np.empty((5, weight.size), np.float32)  # written in place: no temporaries, no stacking copy
    rows[0] = weight
    wu, wy = np.multiply(weight, u, out=rows[1]), np.multiply(weight, smooth, out=rows[3])
    np.multiply(wu, u, out=rows[2])
    np.multiply(wy, u, out=rows[4])
    sums = np.add.reduceat(rows, starts, axis=1).astype(np.float64)
    s0, su, suu, sy, suy = sums
    present = s0 > 1e-6
    s0 = np.maximum(s0, 1e-6)
    mean_u, mean_y = su / s0, sy / s0
    var_u = suu / s0 - mean_u**2
    slope = np.where(var_u > 1e-6, (suy / s0 - mean_u * mean_y) / np.maximum(var_u, 1e-6), 0.0)
    mean_y = np.where(present, np.maximum(mean_y, 1.0), NAIL_REFERENCE_LUMA)
    exposure = np.clip(mean_y / NAIL_REFERENCE_LUMA, *_EXPOSURE_RANGE)
    # light = exposure · clip(1 + slope·(u − ū) / mean), as one multiply-add per pixel
    gain = slope / mean_y
    relative = _per_pixel(gain.tolist(), sizes) * u
    relative += _per_pixel((1.0 - gain * mean_u).tolist(), sizes)
    np.clip(relative, 1.0 - LIGHT_RANGE, 1.0 + LIGHT_RANGE, out=relative)
    relative *= _per_pixel(exposure.tolist(), sizes)
    return relative.astype(np.float32, copy=False), np.asarray(gain, np.float32)


def _lay_out(paint: np.ndarray, nail: np.ndarray, u: np.ndarray, v: np.ndarray, nails: Sequence[NailLight],
             starts: NDArray[np.int64], sizes: list[int]) -> None:
    """In place on paint (N, 3) float32: French tips and half-moons, in nail coordinates normalised to what is
    painted (v from its free edge to its cuticle, u from side to side), edges anti-aliased over ~1 px."""
    inside = nail >= 0.5
    v_tip = np.minimum.reduceat(np.where(inside, v, 2.0), starts)
    v_base = np.maximum.reduceat(np.where(inside, v, -1.0), starts)
    u_lo = np.minimum.reduceat(np.where(inside, u, 2.0), starts)
    u_hi = np.maximum.reduceat(np.where(inside, u, -1.0), starts)
    span_v = np.maximum(v_base - v_tip, 1e-3)
    span_u = np.maximum(u_hi - u_lo, 1e-3)
    vn = (v - _per_pixel(v_tip.tolist(), sizes)) / _per_pixel(span_v.tolist(), sizes)
    un = (u - _per_pixel(u_lo.tolist(), sizes)) / _per_pixel(span_u.tolist(), sizes)
    x = un * 2.0 - 1.0
    # a pixel, in normalised nail lengths: the width of the anti-aliased edge
    pixel = _per_pixel([1.0 / max(2.0, n.length_px * float(s)) for n, s in zip(nails, span_v.tolist(), strict=True)],
                       sizes)
    tips = [n.look.tip for n in nails]
    if any(tip is not None for tip in tips):
        depth = _per_pixel([tip.depth if tip else -1.0 for tip in tips], sizes)
        edge = depth * (1.0 + 0.45 * x * x)  # the smile line: deeper at the sides, as a salon paints it
        amount = np.clip((edge - vn) / (2.0 * pixel) + 0.5, 0.0, 1.0)
        colour = _per_pixel_colour([tip.colour_bgr if tip else (0, 0, 0) for tip in tips], sizes)
        paint += (colour - paint) * amount[:, None]
    moons = [n.look.moon for n in nails]
    if any(moon is not None for moon in moons):
        depth = _per_pixel([moon.depth if moon else 1e-3 for moon in moons], sizes)
        # an ellipse centred just below the cuticle: its arc rises towards the tip; the cuticle bounds it
        dy = (vn - 1.02) / depth
        distance = np.sqrt((x / 0.84) ** 2 + dy * dy)
        present = _per_pixel([1.0 if moon else 0.0 for moon in moons], sizes)
        amount = np.clip((1.0 - distance) / (2.0 * pixel / depth) + 0.5, 0.0, 1.0) * present
        colour = _per_pixel_colour([moon.colour_bgr if moon else (0, 0, 0) for moon in moons], sizes)
        paint += (colour - paint) * amount[:, None]


def _finishes(painted: np.ndarray, paint: np.ndarray, shade: np.ndarray, u: np.ndarray, v: np.ndarray,
              tilt: NDArray[np.float32], looks: list[NailLook], nails: Sequence[NailLight], sizes: list[int]) -> None:
    """In place on painted (N, 3): chrome, cat-eye and glitter where a nail's finish has them."""
    finishes = [look.finish for look in looks]
    if any(f.chrome > 0 for f in finishes):
        # a mirror: the colour (normalised to its brightest channel) at the brightness of what it reflects —
        # a bright band on the lit side, a fainter one opposite, dark in between
        side = _per_pixel(_lit_side(tilt, nails, LEAN_SHIFT), sizes)
        band = np.exp(-(((u - side) / 0.13) ** 2)) + 0.5 * np.exp(-(((u - (1.0 - side)) / 0.2) ** 2))
        # (the brightest channel as two maximums: numpy's max over a 3-wide axis is several times slower)
        brightest = np.maximum(np.maximum(paint[:, 0], paint[:, 1]), paint[:, 2])
        np.maximum(brightest, 60.0, out=brightest)
        mirror = paint * ((0.38 + 0.8 * band) * shade * 255.0 / brightest)[:, None]
        amount = _per_pixel([f.chrome for f in finishes], sizes)
        painted += (mirror - painted) * np.reshape(amount, (-1, 1))
    if any(f.cat_eye > 0 for f in finishes):
        # magnetic pigment: a dark base, and one soft bright band along each nail's axis that moves across the
        # nail and turns with it as the finger turns (the magnet's field is fixed, the nail moves under it)
        centre = _per_pixel([0.5 + 0.5 * (c - 0.5) for c in _lit_side(tilt, nails, CAT_EYE_SHIFT)], sizes)
        slant = _per_pixel([CAT_EYE_SLANT * light.lean for light in nails], sizes)
        grain = 0.8 + 0.4 * _smooth_noise(u, v, nails, sizes, (14.0, 20.0), 1)  # a velvet sheen, no pixel dots
        line = np.exp(-(((u - centre - slant * (v - 0.5)) / 0.11) ** 2)) * grain
        glow = paint + (255.0 - paint) * 0.55
        velvet = (paint * 0.42 + glow * line[:, None]) * shade[:, None]
        amount = _per_pixel([f.cat_eye for f in finishes], sizes)
        painted += (velvet - painted) * np.reshape(amount, (-1, 1))
    if any(f.glitter > 0 for f in finishes):
        # sparkles fixed to the nail: a share of small cells glint, each at its own brightness, each a round
        # flake at its own place in its cell (a cell-sized square would show its pixels on a large nail)
        noise = _cell_noise(u, v, nails, sizes, _GLITTER_CELLS, 0)
        share = _per_pixel([f.glitter * _GLITTER_SHARE for f in finishes], sizes)
        glint = np.clip((noise - (1.0 - share)) / np.maximum(share, 1e-3), 0.0, 1.0)
        glint *= _flake(u, v, nails, sizes, _GLITTER_CELLS)
        bright = _cell_noise(u, v, nails, sizes, _GLITTER_CELLS, 2)  # each flake catches the light differently
        sparkle = paint + (255.0 - paint) * (0.25 + 0.6 * bright * bright)[:, None]
        painted += (sparkle * shade[:, None] - painted) * glint[:, None]


def _real_highlights(grey: np.ndarray, smooth: np.ndarray, v: np.ndarray, looks: list[NailLook],
                     sizes: list[int]) -> np.ndarray | None:
    """The real nail's highlights (and a little of its fine detail) to add back, or None (all matte, no detail).
    Held back near the free edge and over the lunula: their brightness is the nail's colour, not light."""
    gains = [look.finish.real_highlights for look in looks]
    details = [look.finish.detail for look in looks]
    if not any(gains) and not any(details):
        return None
    detail = grey - smooth
    lift: np.ndarray = detail - _HIGHLIGHT_THRESHOLD
    cv2.threshold(lift, 0.0, 0.0, cv2.THRESH_TOZERO, dst=lift)
    window = np.clip((v - 0.1) * 6.0, 0.0, 1.0)
    window *= np.clip((0.78 - v) * 6.0, 0.0, 1.0)
    lift *= window
    lift *= _per_pixel([g * _HIGHLIGHT_GAIN for g in gains], sizes)
    if any(details):
        detail *= _per_pixel(details, sizes)
        lift += detail
    return lift


def _streak(u: np.ndarray, v: np.ndarray, tilt: NDArray[np.float32], nails: Sequence[NailLight], sizes: list[int],
            shade: np.ndarray) -> np.ndarray | None:
    """The specular streak along the nail's axis: a narrow band across u on the lit side, faded at both ends."""
    looks = [n.look for n in nails]
    strengths = [look.finish.specular for look in looks]
    if not any(strengths):
        return None
    centre = _per_pixel(_lit_side(tilt, nails, LEAN_SHIFT), sizes)
    width = _per_pixel([look.finish.streak_width for look in looks], sizes)
    # on a plate curved both ways the reflection bends towards the crown at both ends of the nail
    bend = (v - 0.5) * 2.0
    bend *= bend
    across = (u - centre - (0.5 - centre) * 0.35 * bend) / width
    streak = np.exp(-(across * across))
    streak *= np.clip((v - 0.05) * 7.0, 0.0, 1.0)
    streak *= np.clip((0.92 - v) * 4.0, 0.0, 1.0)
    streak *= _per_pixel(strengths, sizes)
    streak *= np.clip(shade, 0.0, 1.0)  # a dim nail's highlight is dim too
    return streak


def _lit_side(tilt: NDArray[np.float32], nails: Sequence[NailLight], shift: float) -> list[float]:
    """Per nail, where across it (u) the light is reflected: the side the room's light comes from, moved by
    the nail's lean."""
    return [float(np.clip(centre - shift * light.lean, 0.12, 0.88))
            for centre, light in zip(_streak_centre(tilt).tolist(), nails, strict=True)]


def _streak_centre(tilt: NDArray[np.float32]) -> NDArray[np.float32]:
    # light from the brighter side: left of centre by default, moving to the right when the right is brighter
    return np.asarray(0.34 + 0.3 / (1.0 + np.exp(1.0 - np.clip(tilt * 12.0, -20.0, 20.0))), np.float32)


def _cell_noise(u: np.ndarray, v: np.ndarray, nails: Sequence[NailLight], sizes: list[int],
                cells: tuple[float, float], stream: int) -> np.ndarray:
    """A value in [0, 1) per (cell of the nail, nail seed): the same cell gives the same value every frame."""
    seed = _per_pixel([float((n.seed * 7919 + stream * 104729) % 1000) for n in nails], sizes)
    cu = np.floor(u * cells[0])
    cv = np.floor(v * cells[1])
    phase = np.sin(cu * 12.9898 + cv * 78.233 + seed * 0.1373) * 43758.5453
    return phase - np.floor(phase)


def _smooth_noise(u: np.ndarray, v: np.ndarray, nails: Sequence[NailLight], sizes: list[int],
                  cells: tuple[float, float], stream: int) -> np.ndarray:
    """Value noise in [0, 1): `_cell_noise`'s values at the cell corners, blended smoothly between them, so a
    pattern has no edges at cell or pixel boundaries at any nail size (fixed to the nail like the cells)."""
    su, sv = u * cells[0], v * cells[1]
    fu, fv = su - np.floor(su), sv - np.floor(sv)
    fu = fu * fu * (3.0 - 2.0 * fu)  # smoothstep: no crease at the corners
    fv = fv * fv * (3.0 - 2.0 * fv)
    step_u, step_v = 1.0 / cells[0], 1.0 / cells[1]
    corner = [_cell_noise(u + du * step_u, v + dv * step_v, nails, sizes, cells, stream)
              for du, dv in ((0, 0), (1, 0), (0, 1), (1, 1))]
    top = corner[0] + (corner[1] - corner[0]) * fu
    bottom = corner[2] + (corner[3] - corner[2]) * fu
    return np.asarray(top + (bottom - top) * fv, np.float32)


def _flake(u: np.ndarray, v: np.ndarray, nails: Sequence[NailLight], sizes: list[int],
           cells: tuple[float, float]) -> np.ndarray:
    """Per pixel in [0, 1]: a round flake in each cell, at a place of its own, its edge soft over ~1 px."""
    su, sv = u * cells[0], v * cells[1]
    fu, fv = su - np.floor(su), sv - np.floor(sv)
    cu = 0.35 + 0.3 * _cell_noise(u, v, nails, sizes, cells, 3)  # the flake's centre in its cell
    cv = 0.35 + 0.3 * _cell_noise(u, v, nails, sizes, cells, 4)
    # distance in pixels: a cell is (width / cells[0]) × (length / cells[1]) frame pixels
    cell_w = _per_pixel([max(n.width_px, 1.0) / cells[0] for n in nails], sizes)
    cell_h = _per_pixel([max(n.length_px, 1.0) / cells[1] for n in nails], sizes)
    dx, dy = (fu - cu) * cell_w, (fv - cv) * cell_h
    radius = 0.5 * np.minimum(cell_w, cell_h) + 0.5
    return np.asarray(np.clip(radius - np.sqrt(dx * dx + dy * dy) + 0.5, 0.0, 1.0), np.float32)


def _per_pixel(values: Sequence[float], sizes: list[int]) -> NDArray[np.float32] | np.float32:
    """Per-nail values as what multiplies per pixel: one float32 when all nails share it (the usual case)."""
    first = values[0]
    if all(value == first for value in values):
        return np.float32(first)
    return np.repeat(np.array(values, np.float32), sizes)


def _per_pixel_colour(colours: Sequence[tuple[int, int, int]], sizes: list[int]) -> np.ndarray:
    return np.repeat(np.array(colours, np.float32), sizes, axis=0)


def _soft_clip(values: np.ndarray) -> None:
    """In place: values above _KNEE approach 255 smoothly (x → knee + room·tanh((x − knee)/room)).

    Only the few values above the knee are computed (a highlight is a small part of a nail)."""
    flat = values.reshape(-1)
    above = np.flatnonzero(flat > _KNEE)
    if above.size == 0:
        return
    room = 255.0 - _KNEE
    rolled = flat[above] - _KNEE
    rolled /= room
    np.tanh(rolled, out=rolled)
    rolled *= room
    rolled += _KNEE
    flat[above] = rolled
