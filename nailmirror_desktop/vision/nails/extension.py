"""Nail extensions (ARCHITECTURE.md §3): the shape a nail is painted in when the customer chose a length.

A pure stage: a nail's found mask (`NailMask`, frame pixels) and its finger's axis (the landmark quad's DIP→TIP
direction, and how much the distal bone is foreshortened from the landmarks' depth) → the extended nail's alpha
in a frame ROI, its drop shadow, and where its tip lies.

The natural part is the nail as found. The extension starts a fifth of the nail's length below its free edge
(so the free edge's white rim is hidden under it), continues the nail's side edges along the axis — where they
run is measured on the mask below its free edge's rounding — and is closed by the chosen tip shape. Its length
is a multiple of the nail's own length in the image (`core.nail_form.LENGTH_MULTIPLES`; the nail plate's length
as the landmark quad measures it, see `extend_nails`), so a finger seen at an angle foreshortens its extension
with it; the tip's depth is a multiple of the nail's width, foreshortened by the distal bone's tilt. Where the
extension would run over another finger (a capsule around each finger's bones from the landmarks) it is cut
away; the frame's edge clips the ROI.

Coverage never includes the extension: scoring counts the natural nail only (`compositor`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.core.nail_form import NailForm, NailShape
from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.warp import Roi
from nailmirror_desktop.vision.types import FINGER_LANDMARKS, Finger, HandObservation, NailQuad


@dataclass(frozen=True)
class TipProfile:
    """A tip shape: depth is the cap's length along the axis in nail widths (before foreshortening); exponent
    the cap's superellipse exponent (2: a half ellipse, large: square corners, near 1: a point); flat the
    half-width left at the very tip, as a share of the sides' (a coffin's flat end: a straight taper to it)."""

    depth: float
    exponent: float
    flat: float = 0.0


PROFILES: dict[NailShape, TipProfile] = {
    NailShape.SQUARE: TipProfile(depth=0.06, exponent=8.0),
    NailShape.SQUOVAL: TipProfile(depth=0.22, exponent=3.5),
    NailShape.ROUND: TipProfile(depth=0.5, exponent=2.0),
    NailShape.ALMOND: TipProfile(depth=0.95, exponent=1.7),
    NailShape.STILETTO: TipProfile(depth=1.8, exponent=1.25),
    NailShape.COFFIN: TipProfile(depth=1.3, exponent=1.0, flat=0.55),
}

UNDERLAP = 0.2  # of the nail's length: where the extension begins below the free edge (hides the free edge)
_MIN_NAIL_PX = 12  # a mask smaller than this (pixels) is too little to continue
_CAP_SAMPLES = 18
SHADOW_STRENGTH = 0.38  # darkening at the shadow's core
_SHADOW_DROP = 0.10  # of the nail's width, straight down the image (the kiosk's light is overhead)
_SHADOW_BLUR = 0.08  # Gaussian sigma, of the nail's width
_FINGER_RADIUS = 0.38  # a finger's half width, of the knuckle spacing beside it
_MIN_FORESHORTENING = 0.35
# how far past its radius a capsule's line reaches: its thickness rounds up by at most a pixel (half a pixel a
# side), the anti-aliasing adds a pixel, the 1/16-pixel rounding of its ends a little more
_LINE_FRINGE = 2.0


@dataclass(frozen=True, eq=False)
class NailExtension:
    """One nail's extension: roi (clipped to the frame); alpha ((roi.height, roi.width) float32 in [0, 1]) the
    extended outline from UNDERLAP below the free edge to the tip, other fingers cut away; shadow (same shape,
    float32 in [0, SHADOW_STRENGTH]) how much the background below it darkens; tip (x, y) the end of the
    extension on the nail's axis and axis the unit direction towards it, in frame pixels (edge coordinates)."""

    roi: Roi
    alpha: NDArray[np.float32]
    shadow: NDArray[np.float32]
    tip: tuple[float, float]
    axis: tuple[float, float]


@dataclass(frozen=True)
class Capsule:
    """A finger as a thick polyline: points (k, 2) frame pixels from its base to past its tip, radius pixels.
    reach: (x0, y0, x1, y1) the box its drawn line can touch, radius and anti-aliased fringe included (made once
    here: every nail of the frame tests every other finger's capsule against its ROI, and four numpy reductions
    a test were a fifth of the extension's cost)."""

    hand_index: int
    finger: Finger
    points: NDArray[np.float64]
    radius: float
    reach: tuple[float, float, float, float] = field(init=False)

    def __post_init__(self) -> None:
        xs, ys = self.points.T.tolist()  # five points: Python's min and max beat numpy's reductions here
        r = self.radius + _LINE_FRINGE
        object.__setattr__(self, "reach", (min(xs) - r, min(ys) - r, max(xs) + r, max(ys) + r))


def tip_half_width(shape: NailShape, x: NDArray[np.float64]) -> NDArray[np.float64]:
    """The cap's half-width, as a share of the sides', at x in [0, 1] of the cap's depth from the tip (0: tip)."""
    profile = PROFILES[shape]
    x = np.clip(x, 0.0, 1.0)
    if profile.flat > 0.0:
        return np.asarray(profile.flat + (1.0 - profile.flat) * x)
    n = profile.exponent
    return np.asarray((1.0 - (1.0 - x) ** n) ** (1.0 / n))


def _norm(v: NDArray[np.float64]) -> float:
    """A float64 vector's length as np.linalg.norm computes it (sqrt of v·v), without its dispatch: five a
    nail, every frame."""
    return math.sqrt(float(v.dot(v)))


def foreshortening(landmarks: NDArray[np.floating], finger: Finger) -> float:
    """How much of the distal bone's length the image shows (2D over 3D length of DIP→TIP), in
    [_MIN_FORESHORTENING, 1]; landmarks (21, 3) frame pixels with z in pixels too."""
    _, _, dip, tip = FINGER_LANDMARKS[finger]
    bone = np.asarray(landmarks[tip], np.float64) - np.asarray(landmarks[dip], np.float64)
    full = _norm(bone)
    if not full > 1e-6:
        return 1.0
    return min(1.0, max(_MIN_FORESHORTENING, _norm(bone[:2]) / full))


_CAPSULE_IDS = np.array([FINGER_LANDMARKS[f] for f in Finger])  # (5, 4) base → tip per finger


def finger_capsules(hands: Sequence[HandObservation]) -> list[Capsule]:
    """Every finger of every hand as a capsule: its bones from the base joint, reaching most of a finger's half
    width past the tip landmark (the fingertip's flesh), as wide as the knuckle spacing allows."""
    capsules = []
    for index, hand in enumerate(hands):
        points = np.asarray(hand.landmarks, np.float64)[:, :2]
        gaps = points[[5, 9, 13]] - points[[9, 13, 17]]
        radius = _FINGER_RADIUS * float(np.sqrt((gaps * gaps).sum(axis=1)).mean())
        bones = points[_CAPSULE_IDS]  # (5, 4, 2)
        last = bones[:, 3] - bones[:, 2]
        lengths = np.sqrt((last * last).sum(axis=1, keepdims=True))
        ends = bones[:, 3] + last / np.maximum(lengths, 1e-6) * (radius * 0.8)
        for finger in Finger:
            capsules.append(Capsule(index, finger, np.vstack([bones[finger], ends[finger]]), radius))
    return capsules


def extend_nails(quads: Sequence[NailQuad], masks: Sequence[NailMask | None] | None,
                 hands: Sequence[HandObservation], form: NailForm,
                 frame_shape: tuple[int, ...]) -> list[NailExtension | None]:
    """One NailExtension per quad (None where nothing is extended: natural length, no mask, not painted).
    quads: the landmark quads (their axis is the finger's); masks: the found masks, one per quad.

    The length is a multiple of the nail's length as the landmark quad measures it (the nail plate from the
    finger's size, One Euro-smoothed in video), not of the mask's extent: a found mask's length changes by a
    pixel or two from frame to frame, and the tip would wobble by that times the multiple (benchmarks/
    nail_extension.py: tip jitter 1.57× the paint's free edge with the mask's length, 1.0× with the quad's)."""
    if not form.extends or masks is None:
        return [None] * len(quads)
    capsules = finger_capsules(hands)
    result: list[NailExtension | None] = []
    for quad, mask in zip(quads, masks, strict=True):
        if mask is None or quad.opacity <= 0:
            result.append(None)
            continue
        fore = 1.0
        if 0 <= quad.hand_index < len(hands):
            fore = foreshortening(hands[quad.hand_index].landmarks, quad.finger)
        others = [c for c in capsules if (c.hand_index, c.finger) != (quad.hand_index, quad.finger)]
        result.append(extend_nail(mask, _axis(quad.corners), form, frame_shape, foreshortened=fore, others=others,
                                  nail_length=_length(quad.corners)))
    return result


def _length(corners: NDArray[np.floating]) -> float:
    c = np.asarray(corners, np.float64)
    return _norm((c[0] + c[1] - c[2] - c[3]) / 2.0)


def _axis(corners: NDArray[np.floating]) -> NDArray[np.float64]:
    c = np.asarray(corners, np.float64)
    along = (c[0] + c[1] - c[2] - c[3]) / 2.0
    return np.asarray(along / max(_norm(along), 1e-9))


def extend_nail(mask: NailMask, axis: NDArray[np.floating], form: NailForm, frame_shape: tuple[int, ...], *,
                foreshortened: float = 1.0, others: Sequence[Capsule] = (),
                nail_length: float | None = None) -> NailExtension | None:
    """The extension of one nail: mask in frame pixels; axis (2,) the finger's direction towards the tip (any
    length); foreshortened in (0, 1] (see `foreshortening`); others: capsules of the fingers it may not cross;
    nail_length: the nail's length in pixels the extension is a multiple of (None: the mask's own extent along
    the axis). None when the mask is too small to continue or the extension falls outside the frame."""
    a = np.asarray(axis, np.float64)
    norm = _norm(a)
    if not form.extends or not norm > 1e-9:
        return None
    a = a / norm
    n = np.array((-a[1], a[0]))
    ys, xs = np.nonzero(mask.alpha >= 0.5)
    if xs.size < _MIN_NAIL_PX:
        return None
    px = xs + (mask.roi.x0 + 0.5)
    py = ys + (mask.roi.y0 + 0.5)
    # the sums over the count are what ndarray.mean computes, without its Python-level wrapper (per nail, per frame)
    origin = np.array((float(np.add.reduce(px)) / xs.size, float(np.add.reduce(py)) / xs.size))
    dx, dy = px - origin[0], py - origin[1]
    t = dx * a[0] + dy * a[1]
    s = dx * n[0] + dy * n[1]
    t_free, t_root = float(t.max()) + 0.5, float(t.min()) - 0.5
    length = t_free - t_root
    sides = _side_edges(t, s, t_free, length)
    if sides is None:
        return None
    centre, half = sides
    width = 2.0 * half
    t_base = t_free - UNDERLAP * length
    t_tip = t_free + form.multiple * (length if nail_length is None else nail_length)
    profile = PROFILES[form.shape]
    depth = min(profile.depth * width * max(foreshortened, _MIN_FORESHORTENING), t_tip - t_base)
    outline = _outline(form.shape, t_base - 0.05 * length, t_tip, depth, centre, half)
    points = origin + outline[:, :1] * a + outline[:, 1:] * n
    tip = origin + t_tip * a + centre * n
    margin = 2.5 * _SHADOW_BLUR * width + 2.0  # the blur's reach; _box adds the drop below
    roi = _box(points, frame_shape, margin, _SHADOW_DROP * width)
    if roi is None:
        return None
    alpha = _fill(points, roi)
    if others:
        alpha *= 1.0 - _blocked(others, roi)
    natural = _paste(mask, roi)
    shadow = _shadow(alpha * (1.0 - natural), np.maximum(alpha, natural), width)
    return NailExtension(roi, alpha, shadow, (float(tip[0]), float(tip[1])), (float(a[0]), float(a[1])))


def _side_edges(t: NDArray[np.float64], s: NDArray[np.float64], t_free: float,
                length: float) -> tuple[float, float] | None:
    """Where the nail's side edges run below its free edge's rounding: (centre, half width) across the axis,
    from the mask's extent in a band a quarter to a half of its length below the free edge. The extension
    carries them on parallel to the finger's axis: a side's slope measured over a few pixels of a found mask
    would swing the tip from frame to frame, and salons build extensions with straight sides."""
    inside = (t >= t_free - 0.5 * length) & (t <= t_free - 0.25 * length)
    if np.count_nonzero(inside) < 3:
        return None
    band = s[inside]
    left, right = float(band.min()) - 0.5, float(band.max()) + 0.5
    half = (right - left) / 2.0
    return ((left + right) / 2.0, half) if half >= 1.0 else None


_CAP_X = np.linspace(1.0, 0.0, _CAP_SAMPLES) ** 2  # denser towards the tip, where square corners turn


@functools.lru_cache(maxsize=len(NailShape))
def _cap_widths(shape: NailShape) -> NDArray[np.float64]:
    """(_CAP_SAMPLES + 1,) half-widths of the outline's right side, as shares of the sides': its start, then
    the cap from its base to the tip (the same for every nail of a shape: made once)."""
    return np.concatenate(([1.0], tip_half_width(shape, _CAP_X)))


def _outline(shape: NailShape, t_start: float, t_tip: float, depth: float, centre: float,
             half: float) -> NDArray[np.float64]:
    """(k, 2) (t, s) points around the extended part: up the right side, over the tip, down the left."""
    ts = np.empty(_CAP_SAMPLES + 1)
    ts[0] = t_start
    np.multiply(_CAP_X, -depth, out=ts[1:])
    ts[1:] += t_tip
    widths = _cap_widths(shape) * half
    points = np.empty((2 * ts.size, 2))
    points[:ts.size, 0] = ts
    points[:ts.size, 1] = centre + widths
    points[ts.size:, 0] = ts[::-1]
    points[ts.size:, 1] = centre - widths[::-1]
    return points


def _box(points: NDArray[np.float64], frame_shape: tuple[int, ...], margin: float, drop: float) -> Roi | None:
    height, width = frame_shape[:2]
    low, high = points.min(axis=0), points.max(axis=0)
    x0 = max(0, math.floor(float(low[0]) - margin))
    y0 = max(0, math.floor(float(low[1]) - margin))
    x1 = min(width, math.ceil(float(high[0]) + margin))
    y1 = min(height, math.ceil(float(high[1]) + margin + drop))  # the shadow falls downwards
    if x1 <= x0 or y1 <= y0:
        return None
    return Roi(x0, y0, x1, y1)


def _fill(points: NDArray[np.float64], roi: Roi) -> NDArray[np.float32]:
    """The polygon (edge coordinates) as an anti-aliased (roi.height, roi.width) float32 alpha."""
    canvas = np.zeros((roi.height, roi.width), np.uint8)
    local = (points - (roi.x0 + 0.5, roi.y0 + 0.5)) * 16.0
    cv2.fillPoly(canvas, [np.round(local).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=4)
    return np.asarray(canvas, np.float32) * np.float32(1.0 / 255.0)


def _blocked(capsules: Sequence[Capsule], roi: Roi) -> NDArray[np.float32]:
    """(roi.height, roi.width) float32: 1 over the capsules, anti-aliased."""
    canvas = np.zeros((roi.height, roi.width), np.uint8)
    for capsule in capsules:
        x0, y0, x1, y1 = capsule.reach
        if x1 < roi.x0 or x0 > roi.x1 or y1 < roi.y0 or y0 > roi.y1:
            continue
        local = np.round((capsule.points - (roi.x0 + 0.5, roi.y0 + 0.5)) * 16.0).astype(np.int32)
        thickness = max(1, round(2.0 * capsule.radius))
        for start, end in zip(local[:-1], local[1:], strict=True):
            cv2.line(canvas, (int(start[0]), int(start[1])), (int(end[0]), int(end[1])), 255, thickness,
                     lineType=cv2.LINE_AA, shift=4)
    return np.asarray(canvas, np.float32) * np.float32(1.0 / 255.0)


def _paste(mask: NailMask, roi: Roi) -> NDArray[np.float32]:
    """The mask's alpha on `roi` (0 where the mask has none)."""
    out = np.zeros((roi.height, roi.width), np.float32)
    m = mask.roi
    x0, y0, x1, y1 = max(m.x0, roi.x0), max(m.y0, roi.y0), min(m.x1, roi.x1), min(m.y1, roi.y1)
    if x1 > x0 and y1 > y0:
        out[y0 - roi.y0:y1 - roi.y0, x0 - roi.x0:x1 - roi.x0] = mask.alpha[y0 - m.y0:y1 - m.y0, x0 - m.x0:x1 - m.x0]
    return out


def _shadow(extension_only: NDArray[np.float32], covered: NDArray[np.float32], width: float) -> NDArray[np.float32]:
    """The extension's soft shadow on what lies below it: its own shape dropped and blurred, not under paint.
    covered is overwritten (the caller's temporary: no ROI-sized allocation more than needed, per nail and frame)."""
    drop = max(1, round(_SHADOW_DROP * width))
    moved = np.empty_like(extension_only)
    moved[:drop] = 0.0
    moved[drop:] = extension_only[:-drop]
    sigma = max(0.8, _SHADOW_BLUR * width)
    soft = np.asarray(cv2.GaussianBlur(moved, (0, 0), sigma, borderType=cv2.BORDER_CONSTANT), np.float32)
    soft *= np.subtract(np.float32(1.0), covered, out=covered)
    soft *= np.float32(SHADOW_STRENGTH)
    return soft
