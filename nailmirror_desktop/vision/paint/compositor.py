"""Paint polish onto a frame, one nail quad at a time, touching only each quad's ROI.

Per nail: the nail-shaped alpha (sized to the quad, so the feather is about a frame pixel) or the nail's mask
(`NailMask`: the refiner's or the segmenter's, stretched toward the tip and anti-aliased by
`polish_mask.painted_mask`), the texture and the nail's (u, v) coordinates are warped into the quad's bounding
rectangle. The colour is the texture's (or, for a laid-out look, the design's own colour with its French tip
and half-moon placed on what is painted); the light is the polish's: an opaque crème hides the nail's colour
and lunula and keeps only its light — exposure, the room's gradient, its highlights — plus a curved plate's
shading and a specular streak along the nail's axis (`polish_shading`). Each texture carries a `NailLook`
(`polish`: finish and layout), the default an opaque gloss crème. Nothing outside the ROIs is touched. The
per-pixel steps run once per frame over all nails at once (see `paint_nails`); benchmarks/compositor.py
measures 10 nails at 1280×720.

Coverage (what `coverage_mask` and `Compositor.composite(..., want_coverage=True)` return) is exactly the pixels
where the painted alpha (warped shape or painted mask) is ≥ 0.5 and the quad's opacity is > 0 (and, in the
compositor, the texture's own alpha is ≥ 0.5 there). For an opaque texture the two agree pixel for pixel.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import replace as replace_field

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.nails.extension import NailExtension
from nailmirror_desktop.vision.nails.nail_refiner import NailMask
from nailmirror_desktop.vision.nails.nail_shape import DEFAULT_FEATHER_PX, nail_alpha
from nailmirror_desktop.vision.nails.warp import Placement, Roi, place_quad
from nailmirror_desktop.vision.paint.polish import DEFAULT_LOOK, NailLook
from nailmirror_desktop.vision.paint.polish_mask import painted_mask
from nailmirror_desktop.vision.paint.polish_shading import NailLight, blend_top_coat, nail_lean, shade_nails
from nailmirror_desktop.vision.types import Finger, NailQuad

_SMALLEST_TEXTURE_LEVEL = 16


@dataclass(frozen=True, eq=False)
class TextureLevel:
    """One pyramid level: colour (h, w, 3) uint8 BGR; alpha (h, w) float32 in [0, 1], None when opaque."""

    colour: NDArray[np.uint8]
    alpha: NDArray[np.float32] | None

    @functools.cached_property
    def size(self) -> tuple[int, int]:
        return self.colour.shape[1], self.colour.shape[0]


@dataclass(frozen=True, eq=False)
class PreparedTexture:
    """A texture ready for warping: levels[0] is full size, each next level half the previous (INTER_AREA),
    down to ~16 px. The compositor warps from the smallest level still at least as large as the nail, so big
    textures do not alias and small nails stay cheap. look: how it is painted (finish, layout)."""

    levels: tuple[TextureLevel, ...]
    look: NailLook = DEFAULT_LOOK

    @property
    def opaque(self) -> bool:
        return self.levels[0].alpha is None

    def with_look(self, look: NailLook) -> PreparedTexture:
        """The same levels (shared, not copied) painted with another look."""
        return replace_field(self, look=look)


def prepare_texture(image: NDArray[np.uint8], look: NailLook = DEFAULT_LOOK) -> PreparedTexture:
    """From (h, w, 3) BGR or (h, w, 4) BGRA uint8 (any size ≥ 1×1, any aspect) to a PreparedTexture."""
    if image.ndim != 3 or image.shape[2] not in (3, 4) or image.dtype != np.uint8:
        raise ValueError(f"a texture must be (h, w, 3|4) uint8, got {image.shape} {image.dtype}")
    colour = np.ascontiguousarray(image[..., :3])
    alpha: NDArray[np.float32] | None = None
    if image.shape[2] == 4 and not np.all(image[..., 3] == 255):
        alpha = image[..., 3].astype(np.float32) / 255.0
    levels = [TextureLevel(colour, alpha)]
    while min(colour.shape[:2]) >= 2 * _SMALLEST_TEXTURE_LEVEL:
        width, height = levels[-1].size
        half = (max(1, width // 2), max(1, height // 2))
        # resize keeps the dtype; asarray only states it (no copy)
        colour = np.asarray(cv2.resize(colour, half, interpolation=cv2.INTER_AREA), np.uint8)
        if alpha is not None:
            alpha = np.asarray(cv2.resize(alpha, half, interpolation=cv2.INTER_AREA), np.float32)
        levels.append(TextureLevel(colour, alpha))
    return PreparedTexture(tuple(levels), look)


def _level_for(texture: PreparedTexture, size: tuple[int, int]) -> TextureLevel:
    width, height = size
    chosen = texture.levels[0]
    for level in texture.levels[1:]:
        level_width, level_height = level.size
        if level_width < width or level_height < height:
            break
        chosen = level
    return chosen


@dataclass(frozen=True)
class NailWarp:
    """One nail's warped alpha inside its ROI: (roi.height, roi.width) float32 in [0, 1]."""

    roi: Roi
    alpha: np.ndarray


def warp_nail_alpha(quad: NailQuad, frame_shape: tuple[int, ...], feather_px: float = DEFAULT_FEATHER_PX,
                    placement: Placement | None = None) -> NailWarp | None:
    """The nail-shaped alpha warped onto `quad`, or None when nothing of it lands in the frame."""
    placement = placement or place_quad(quad.corners, frame_shape)
    if placement is None:
        return None
    alpha = placement.warp(nail_alpha(*placement.size, feather_px))
    return NailWarp(placement.roi, alpha)


def coverage_mask(quads: list[NailQuad], frame_shape: tuple[int, ...],
                  masks: Sequence[NailMask | None] | None = None) -> np.ndarray:
    """(H, W) uint8: 255 where the compositor paints a nail (nail alpha ≥ 0.5, opacity > 0), else 0.

    masks: optional, one per quad (None where a quad has no mask); a mask replaces its quad's shape, painted
    as `polish_mask.painted_mask` makes it (stretched toward the tip, anti-aliased).
    """
    mask = np.zeros(frame_shape[:2], np.uint8)
    for quad, refined in zip(quads, _masks_for(quads, masks), strict=True):
        if quad.opacity <= 0:
            continue
        if refined is not None:
            painted = painted_mask(refined, frame_shape)
            mask[painted.roi.slices][painted.alpha >= 0.5] = 255
            continue
        warped = warp_nail_alpha(quad, frame_shape)
        if warped is not None:
            mask[warped.roi.slices][warped.alpha >= 0.5] = 255
    return mask


def _masks_for(quads: list[NailQuad], masks: Sequence[NailMask | None] | None) -> Sequence[NailMask | None]:
    if masks is None:
        return [None] * len(quads)
    if len(masks) != len(quads):
        raise ValueError(f"{len(masks)} nail masks for {len(quads)} quads")
    return masks


@dataclass(frozen=True)
class Composite:
    """The compositor's result: the painted frame ((H, W, 3) uint8 BGR) and optional (H, W) uint8 coverage."""

    frame: NDArray[np.uint8]
    coverage: NDArray[np.uint8] | None


TextureInput = NDArray[np.uint8] | PreparedTexture


class Compositor:
    """Paints a default texture on every nail, with per-finger overrides (accents).

    look / finger_looks: how the default texture / each finger's is painted (finish, French tip, half-moon);
    a finger without its own look takes `look`; a PreparedTexture passed in keeps its own look unless one is
    given. Textures are prepared once (set_style); `composite` copies the frame and touches only the ROIs.
    """

    def __init__(self, texture: TextureInput | None = None, per_finger: Mapping[Finger, TextureInput] | None = None,
                 *, look: NailLook | None = None, finger_looks: Mapping[Finger, NailLook] | None = None) -> None:
        self._default: PreparedTexture | None = None
        self._per_finger: dict[Finger, PreparedTexture] = {}
        if texture is not None or per_finger:
            self.set_style(texture, per_finger or {}, look=look, finger_looks=finger_looks)

    def set_style(self, texture: TextureInput | None, per_finger: Mapping[Finger, TextureInput] | None = None, *,
                  look: NailLook | None = None, finger_looks: Mapping[Finger, NailLook] | None = None) -> None:
        looks = {Finger(f): v for f, v in (finger_looks or {}).items()}
        self._default = _as_prepared(texture, look) if texture is not None else None
        self._per_finger = {Finger(f): _as_prepared(t, looks.get(Finger(f), look))
                            for f, t in (per_finger or {}).items()}
        # a finger with its own look but the default texture (an accent finish on the same colour); fingers that
        # share a look share one prepared texture, and a look equal to the default's is the default itself
        if self._default is not None:
            shared: list[PreparedTexture] = [self._default]
            for finger, finger_look in looks.items():
                if finger in self._per_finger:
                    continue
                same = next((t for t in shared if t.look == finger_look), None)
                if same is None:
                    same = self._default.with_look(finger_look)
                    shared.append(same)
                self._per_finger[finger] = same

    def with_look(self, look: NailLook) -> Compositor:
        """A compositor with the same textures, every one painted with `look`."""
        other = Compositor()
        other._default = self._default.with_look(look) if self._default is not None else None
        other._per_finger = {f: t.with_look(look) for f, t in self._per_finger.items()}
        return other

    def texture_for(self, finger: Finger) -> PreparedTexture | None:
        return self._per_finger.get(finger, self._default)

    def composite(self, frame: NDArray[np.uint8], quads: list[NailQuad], *, want_coverage: bool = False,
                  in_place: bool = False, masks: Sequence[NailMask | None] | None = None,
                  extensions: Sequence[NailExtension | None] | None = None) -> Composite:
        """Paint `quads` onto `frame` ((H, W, 3) uint8 BGR). Pixels outside every nail's ROI are untouched.

        masks: optional nail masks, one per quad (None: the quad's own nail shape); extensions: optional, one
        per quad (`vision/nails/extension.py`), painted with the nail's texture continued; never in coverage."""
        out = frame if in_place else frame.copy()
        coverage = np.zeros(frame.shape[:2], np.uint8) if want_coverage else None
        extended = list(extensions) if extensions is not None else [None] * len(quads)
        if len(extended) != len(quads):
            raise ValueError(f"{len(extended)} nail extensions for {len(quads)} quads")
        nails = []
        for quad, refined, extension in zip(quads, _masks_for(quads, masks), extended, strict=True):
            texture = self.texture_for(quad.finger)
            if texture is None or quad.opacity <= 0:
                continue
            nails.append((quad, texture, refined, extension))
        paint_nails(out, nails, coverage)
        return Composite(out, coverage)


def _as_prepared(texture: TextureInput, look: NailLook | None) -> PreparedTexture:
    if isinstance(texture, PreparedTexture):
        return texture if look is None else texture.with_look(look)
    return prepare_texture(texture, look or DEFAULT_LOOK)


def paint_nail(frame: NDArray[np.uint8], quad: NailQuad, texture: PreparedTexture,
               coverage: NDArray[np.uint8] | None = None, refined: NailMask | None = None) -> None:
    """Paint one nail in place on `frame` ((H, W, 3) uint8 BGR); mark its painted pixels in `coverage`.

    refined: the nail's mask; it is painted (stretched and anti-aliased) and the texture maps onto its quad."""
    paint_nails(frame, [(quad, texture, refined, None)], coverage)


NailToPaint = tuple[NailQuad, PreparedTexture, NailMask | None, NailExtension | None]


def paint_nails(frame: NDArray[np.uint8], nails: Sequence[NailToPaint],
                coverage: NDArray[np.uint8] | None = None) -> None:
    """Paint nails in place on `frame` ((H, W, 3) uint8 BGR), in order, as `paint_nail` one after another would.

    A nail is a few hundred pixels, so what costs is the number of numpy/OpenCV calls, not arithmetic. So the
    per-pixel steps run once over all nails: each nail's ROI-sized arrays lie one after another in shared flat
    buffers (each nail's part contiguous, exactly the array it would have on its own), and only the warps, the
    blur and per-nail sums are per nail. Every step is elementwise or per nail, so the result is the same as
    painting each nail alone. A nail whose ROI overlaps one already in the batch must see that one painted
    first: the batch is painted and a new one started.
    """
    batch: list[_NailJob] = []
    for quad, texture, refined, extension in nails:
        job = _prepare_nail(frame, quad, texture, coverage, refined, extension)
        if job is None:
            continue
        if any(job.overlaps(other) for other in batch):
            _paint_batch(frame, batch)
            batch = []
        batch.append(job)
    _paint_batch(frame, batch)


@dataclass(eq=False)
class _NailJob:
    """One nail ready to paint: where (ROI slices and bounds), its nail alpha (h, w) float32, the alpha to blend
    with (nail × texture alpha × opacity; the same array when those are 1), the colour (h, w, 3) uint8, the
    nail coordinates (h, w, 2) float32 and how its light is shaded."""

    roi: Roi
    nail: np.ndarray
    alpha: np.ndarray
    colour: np.ndarray
    uv: np.ndarray
    light: NailLight
    # an extended nail only: what its light is read from ((h, w, 3) uint8: the frame, with the extension's own
    # pixels — background, not nail — replaced by the nail's mean colour) and its drop shadow ((h, w) float32)
    light_source: np.ndarray | None = None
    shadow: np.ndarray | None = None

    def overlaps(self, other: _NailJob) -> bool:
        a, b = self.roi, other.roi
        return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@functools.lru_cache(maxsize=256)
def _pixel_grid(width: int, height: int) -> np.ndarray:
    """(height, width, 2) float32: each ROI pixel centre's (x, y) (read-only, shared)."""
    grid = np.empty((height, width, 2), np.float32)
    grid[..., 0] = np.arange(width, dtype=np.float32)[None, :]
    grid[..., 1] = np.arange(height, dtype=np.float32)[:, None]
    grid.setflags(write=False)
    return grid


def _nail_coordinates(placement: Placement) -> np.ndarray:
    """(h, w, 2) float32 over the ROI: each pixel's (u, v) on the quad (0…1 inside it; extrapolated outside),
    from the inverse of the quad's homography in one OpenCV call (cheaper than warping a (u, v) texture)."""
    roi = placement.roi
    grid = _pixel_grid(roi.width, roi.height)
    a, b, c, d, e, f, g, h, i = placement.to_roi
    if abs(g) + abs(h) < 1e-5 * abs(i):  # affine (what the geometry makes): invert the 2×3 in closed form
        a, b, c, d, e, f = a / i, b / i, c / i, d / i, e / i, f / i
        det = a * e - b * d
        inverse = np.array(((e / det, -b / det, (b * f - c * e) / det),
                            (-d / det, a / det, (c * d - a * f) / det)), np.float64)
        return np.asarray(cv2.transform(grid, inverse), np.float32)
    matrix = np.linalg.inv(placement.unit_to_roi)
    return np.asarray(cv2.perspectiveTransform(grid, matrix), np.float32)


def _prepare_nail(frame: NDArray[np.uint8], quad: NailQuad, texture: PreparedTexture,
                  coverage: NDArray[np.uint8] | None, refined: NailMask | None,
                  extension: NailExtension | None = None) -> _NailJob | None:
    """Warp one nail's alpha, colour and coordinates and mark its coverage; None when nothing would change."""
    painted = None if refined is None else painted_mask(refined, frame.shape)
    if painted is not None and extension is not None:
        return _prepare_extended(frame, quad, texture, coverage, painted, extension)
    if painted is None:
        placement = place_quad(quad.corners, frame.shape)
    else:
        placement = place_quad(painted.quad.corners, frame.shape, painted.roi)
    if placement is None:
        return None
    nail = placement.warp(nail_alpha(*placement.size)) if painted is None else painted.alpha
    look = texture.look
    alpha = nail
    tex_alpha = None
    level = None
    if not look.laid_out:
        level = _level_for(texture, placement.size)
        if level.alpha is not None:
            tex_alpha = placement.warp(level.alpha, border=cv2.BORDER_REPLICATE)
            alpha = nail * tex_alpha
    opacity = float(quad.opacity) * (look.finish.opacity if look.laid_out else 1.0)
    if opacity < 1.0:
        alpha = alpha * opacity
    if coverage is not None:
        painted_where = nail >= 0.5
        if tex_alpha is not None:
            painted_where &= tex_alpha >= 0.5
        coverage[placement.roi.slices][painted_where] = 255
    if not cv2.hasNonZero(alpha):
        return None  # (blending with alpha 0 would round back to the frame's own pixels anyway)
    roi = placement.roi
    if level is None:
        assert look.base_bgr is not None  # a laid-out look has no texture level
        colour = np.empty((roi.height, roi.width, 3), np.uint8)
        colour[:] = look.base_bgr
    else:
        colour = placement.warp(level.colour, border=cv2.BORDER_REPLICATE)
    uv = _nail_coordinates(placement)
    light = NailLight((roi.height, roi.width), look, float(placement.size[0]), float(placement.size[1]),
                      int(quad.finger) + 5 * quad.hand_index, nail_lean(quad.corners, frame.shape[1]))
    return _NailJob(roi, nail, alpha, colour, uv, light)


def _prepare_extended(frame: NDArray[np.uint8], quad: NailQuad, texture: PreparedTexture,
                      coverage: NDArray[np.uint8] | None, painted: NailMask,
                      extension: NailExtension) -> _NailJob | None:
    """`_prepare_nail` for a nail with an extension: the painted shape is the nail's mask and the extension
    together, over both ROIs; the texture's quad is the mask's, lengthened past the free edge to the extension's
    tip, and the texture gains as many rows on top (continued by wrapping), so its pattern keeps its scale and
    direction across the free edge. Coverage is the natural nail only."""
    roi = _union(painted.roi, extension.roi)
    natural = _on_roi(painted.alpha, painted.roi, roi)
    nail = np.maximum(natural, _on_roi(extension.alpha, extension.roi, roi))
    shadow = _on_roi(extension.shadow, extension.roi, roi)
    corners = np.asarray(painted.quad.corners, np.float64)
    top, bottom = (corners[0] + corners[1]) / 2.0, (corners[2] + corners[3]) / 2.0
    along = top - bottom
    length = float(np.hypot(along[0], along[1]))
    if not length > 1e-6:
        return None
    reach = max(0.0, float(np.dot(np.asarray(extension.tip) - top, along)) / (length * length)) + 0.02
    look = texture.look
    level = None
    factor = 1.0 + reach
    if not look.laid_out:
        width = float(np.hypot(*(corners[1] - corners[0])))
        level = _level_for(texture, (math.ceil(width), math.ceil(length)))
        rows = math.ceil(level.size[1] * reach)
        factor = 1.0 + rows / level.size[1]  # whole rows: the quad grows exactly as the texture does
        level = _extended_level(level, rows)
    lengthened = corners.copy()
    lengthened[0] = corners[3] + (corners[0] - corners[3]) * factor
    lengthened[1] = corners[2] + (corners[1] - corners[2]) * factor
    placement = place_quad(lengthened.astype(np.float32), frame.shape, roi)
    if placement is None:
        return None
    alpha = nail
    tex_alpha = None
    if level is not None and level.alpha is not None:
        tex_alpha = placement.warp(level.alpha, border=cv2.BORDER_REPLICATE)
        alpha = nail * tex_alpha
    opacity = float(quad.opacity) * (look.finish.opacity if look.laid_out else 1.0)
    if opacity < 1.0:
        alpha = alpha * opacity
    if coverage is not None:
        painted_where = natural >= 0.5
        if tex_alpha is not None:
            painted_where &= tex_alpha >= 0.5
        coverage[roi.slices][painted_where] = 255
    if not cv2.hasNonZero(alpha):
        return None
    if level is None:
        assert look.base_bgr is not None  # a laid-out look has no texture level
        colour = np.empty((roi.height, roi.width, 3), np.uint8)
        colour[:] = look.base_bgr
    else:
        colour = placement.warp(level.colour, border=cv2.BORDER_REPLICATE)
    original = frame[roi.slices]
    light_source = original.copy()
    on_nail = natural >= 0.5
    if on_nail.any():
        light_source[nail > natural] = np.asarray(cv2.mean(original, on_nail.astype(np.uint8))[:3], np.uint8)
    uv = _nail_coordinates(placement)
    light = NailLight((roi.height, roi.width), look, float(placement.size[0]), float(placement.size[1]),
                      int(quad.finger) + 5 * quad.hand_index)
    return _NailJob(roi, nail, alpha, colour, uv, light, light_source, shadow)


def _union(a: Roi, b: Roi) -> Roi:
    return Roi(min(a.x0, b.x0), min(a.y0, b.y0), max(a.x1, b.x1), max(a.y1, b.y1))


def _on_roi(values: np.ndarray, source: Roi, target: Roi) -> np.ndarray:
    """(target.height, target.width) float32: `values` (on `source`, which lies inside target), 0 elsewhere."""
    out = np.zeros((target.height, target.width), np.float32)
    out[source.y0 - target.y0:source.y1 - target.y0, source.x0 - target.x0:source.x1 - target.x0] = values
    return out


@functools.lru_cache(maxsize=64)
def _extended_level(level: TextureLevel, rows: int) -> TextureLevel:
    """`level` with `rows` more rows on top: the texture continued past its free edge, wrapped (a pattern
    keeps its period and direction; a plain colour stays plain)."""
    if rows <= 0:
        return level
    order = np.arange(-rows, level.size[1]) % level.size[1]
    colour = np.ascontiguousarray(level.colour[order])
    alpha = None if level.alpha is None else np.ascontiguousarray(level.alpha[order])
    return TextureLevel(colour, alpha)


def _paint_batch(frame: NDArray[np.uint8], jobs: list[_NailJob]) -> None:
    """Paint nails whose ROIs do not overlap (see paint_nails)."""
    if not jobs:
        return
    sizes = [job.nail.size for job in jobs]
    total = sum(sizes)
    ends = list(itertools.accumulate(sizes))
    spans = [(end - size, end) for size, end in zip(sizes, ends, strict=True)]
    # one row of `total` pixels: OpenCV loops over rows, so a column of 1-pixel rows would be slow
    original = np.empty((1, total, 3), np.uint8)
    for job, (start, end) in zip(jobs, spans, strict=True):
        original[0, start:end].reshape(job.colour.shape)[...] = frame[job.roi.slices]
    colour = _gather([job.colour for job in jobs], (1, total, 3))
    nail = _gather([job.nail for job in jobs], (1, total))
    uv = _gather([job.uv for job in jobs], (1, total, 2))
    alpha = nail if all(job.alpha is job.nail for job in jobs) else _gather(
        [job.alpha for job in jobs], (1, total))
    light_source = original
    background = original.astype(np.float32)
    if any(job.light_source is not None for job in jobs):
        light_source = original.copy()
        for job, (start, end) in zip(jobs, spans, strict=True):
            if job.light_source is not None:
                light_source[0, start:end].reshape(job.colour.shape)[...] = job.light_source
            if job.shadow is not None:
                background[0, start:end] *= (1.0 - job.shadow.reshape(-1))[:, None]
    painted, top = shade_nails(light_source, colour, nail, uv, [job.light for job in jobs])
    # blendLinear: (a·painted + (1−a)·original) / (1 + 1e-5); where a = 0 that rounds back to the original
    blended = cv2.blendLinear(painted, background, alpha, 1.0 - alpha)
    if top is not None:
        blend_top_coat(blended, top, nail)
    result = cv2.convertScaleAbs(blended)  # rounds and saturates to uint8 (blended is ≥ 0)
    for job, (start, end) in zip(jobs, spans, strict=True):
        frame[job.roi.slices] = result[0, start:end].reshape(job.colour.shape)


def _gather(arrays: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    """The arrays' elements one after another, as one array of `shape`."""
    if len(arrays) == 1:
        return arrays[0].reshape(shape)
    return np.concatenate([array.reshape(-1) for array in arrays]).reshape(shape)
