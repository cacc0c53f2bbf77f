"""Paint nail textures onto a frame, one nail quad at a time, touching only each quad's ROI.

Per nail: the nail-shaped alpha (sized to the quad, so the feather is about a frame pixel) and the texture are
warped into the quad's bounding rectangle. The painted colour is the texture's colour shaded by the real nail:
scaled by the nail's exposure (its mean brightness against a bare nail's, so polish in a dim room is dim) and
by its smoothed local brightness (so a curved nail stays curved), with the nail's own fine luminance detail
(high-pass of its grey level) added back and the brightest of that detail boosted as a specular highlight;
values near white roll off rather than clip. So it reads as polish, not a sticker. Nothing outside the ROIs is
touched. The per-pixel steps run once per frame over all nails at once (see `paint_nails`); the cost is about
0.1 ms per nail at 1280×720 on this machine, mostly the two warps.

A nail may come with a refined mask (`nail_refiner.NailMask`, stills): then its alpha is painted instead of the
warped nail shape, and the texture is warped onto the mask's own quad (its finger-aligned bounding rectangle).

Coverage (what `coverage_mask` and `Compositor.composite(..., want_coverage=True)` return) is exactly the pixels
where the nail alpha (warped shape or refined mask) is ≥ 0.5 and the quad's opacity is > 0 (and, in the
compositor, the texture's own alpha is ≥ 0.5 there). For an opaque texture the two agree pixel for pixel.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.nail_shape import DEFAULT_FEATHER_PX, nail_alpha
from nailmirror_desktop.vision.types import Finger, NailQuad
from nailmirror_desktop.vision.warp import Placement, Roi, place_quad

if TYPE_CHECKING:
    from nailmirror_desktop.vision.nail_refiner import NailMask

# Grey level of a bare nail under the kiosk's light: a nail this bright shows the texture at its own colour.
NAIL_REFERENCE_LUMA = 170.0
_EXPOSURE_RANGE = (0.45, 1.0)  # a dim nail darkens the polish; a bright one shows it at its own colour
_LOCAL_SHADING = 0.7  # how much of the nail's broad shading (curvature, light fall-off) the polish keeps
_SHADE_RANGE = (0.35, 1.3)
_KNEE = 210.0  # above this, values roll off softly towards 255 so bright polish keeps its highlights
_DETAIL_GAIN = 0.8  # how much of the nail's fine luminance detail shows through
_SPECULAR_THRESHOLD = 10.0  # grey levels above the local mean that count as a highlight
_SPECULAR_GAIN = 1.6
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
    textures do not alias and small nails stay cheap."""

    levels: tuple[TextureLevel, ...]

    @property
    def opaque(self) -> bool:
        return self.levels[0].alpha is None


def prepare_texture(image: NDArray[np.uint8]) -> PreparedTexture:
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
    return PreparedTexture(tuple(levels))


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

    masks: optional, one per quad (None where a quad has no refined mask); a mask replaces its quad's shape.
    """
    mask = np.zeros(frame_shape[:2], np.uint8)
    for quad, refined in zip(quads, _masks_for(quads, masks), strict=True):
        if quad.opacity <= 0:
            continue
        if refined is not None:
            mask[refined.roi.slices][refined.alpha >= 0.5] = 255
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


class Compositor:
    """Paints a default texture on every nail, with per-finger overrides (accents).

    Textures are prepared once (set_style); `composite` copies the frame and touches only the nails' ROIs.
    """

    def __init__(self, texture: NDArray[np.uint8] | PreparedTexture | None = None,
                 per_finger: Mapping[Finger, NDArray[np.uint8] | PreparedTexture] | None = None) -> None:
        self._default: PreparedTexture | None = None
        self._per_finger: dict[Finger, PreparedTexture] = {}
        if texture is not None or per_finger:
            self.set_style(texture, per_finger or {})

    def set_style(self, texture: NDArray[np.uint8] | PreparedTexture | None,
                  per_finger: Mapping[Finger, NDArray[np.uint8] | PreparedTexture] | None = None) -> None:
        self._default = _as_prepared(texture) if texture is not None else None
        self._per_finger = {Finger(f): _as_prepared(t) for f, t in (per_finger or {}).items()}

    def texture_for(self, finger: Finger) -> PreparedTexture | None:
        return self._per_finger.get(finger, self._default)

    def composite(self, frame: NDArray[np.uint8], quads: list[NailQuad], *, want_coverage: bool = False,
                  in_place: bool = False, masks: Sequence[NailMask | None] | None = None) -> Composite:
        """Paint `quads` onto `frame` ((H, W, 3) uint8 BGR). Pixels outside every nail's ROI are untouched.

        masks: optional refined nail masks, one per quad (None: the quad's own nail shape)."""
        out = frame if in_place else frame.copy()
        coverage = np.zeros(frame.shape[:2], np.uint8) if want_coverage else None
        nails = []
        for quad, refined in zip(quads, _masks_for(quads, masks), strict=True):
            texture = self.texture_for(quad.finger)
            if texture is None or quad.opacity <= 0:
                continue
            nails.append((quad, texture, refined))
        paint_nails(out, nails, coverage)
        return Composite(out, coverage)


def _as_prepared(texture: NDArray[np.uint8] | PreparedTexture) -> PreparedTexture:
    return texture if isinstance(texture, PreparedTexture) else prepare_texture(texture)


def paint_nail(frame: NDArray[np.uint8], quad: NailQuad, texture: PreparedTexture,
               coverage: NDArray[np.uint8] | None = None, refined: NailMask | None = None) -> None:
    """Paint one nail in place on `frame` ((H, W, 3) uint8 BGR); mark its painted pixels in `coverage`.

    refined: the nail's refined mask; its alpha is painted and the texture maps onto its quad."""
    paint_nails(frame, [(quad, texture, refined)], coverage)


def paint_nails(frame: NDArray[np.uint8], nails: Sequence[tuple[NailQuad, PreparedTexture, NailMask | None]],
                coverage: NDArray[np.uint8] | None = None) -> None:
    """Paint nails in place on `frame` ((H, W, 3) uint8 BGR), in order, as `paint_nail` one after another would.

    A nail is a few hundred pixels, so what costs is the number of numpy/OpenCV calls, not arithmetic. So the
    per-pixel steps run once over all nails: each nail's ROI-sized arrays lie one after another in shared flat
    buffers (each nail's part contiguous, exactly the array it would have on its own), and only the warps, the
    blur and the nail's mean brightness are per nail. Every step is elementwise or per nail, so the result is
    the same, bit for bit. A nail whose ROI overlaps one already in the batch must see that one painted first:
    the batch is painted and a new one started.
    """
    batch: list[_NailJob] = []
    for quad, texture, refined in nails:
        job = _prepare_nail(frame, quad, texture, coverage, refined)
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
    with (nail × texture alpha × opacity; the same array when those are 1) and the warped colour (h, w, 3)."""

    roi: Roi
    nail: np.ndarray
    alpha: np.ndarray
    colour: np.ndarray

    def overlaps(self, other: _NailJob) -> bool:
        a, b = self.roi, other.roi
        return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _prepare_nail(frame: NDArray[np.uint8], quad: NailQuad, texture: PreparedTexture,
                  coverage: NDArray[np.uint8] | None, refined: NailMask | None) -> _NailJob | None:
    """Warp one nail's alpha and colour and mark its coverage; None when nothing of it would change."""
    if refined is None:
        placement = place_quad(quad.corners, frame.shape)
    else:
        placement = place_quad(refined.quad.corners, frame.shape, refined.roi)
    if placement is None:
        return None
    nail = placement.warp(nail_alpha(*placement.size)) if refined is None else refined.alpha
    level = _level_for(texture, placement.size)
    alpha = nail
    tex_alpha = None
    if level.alpha is not None:
        tex_alpha = placement.warp(level.alpha, border=cv2.BORDER_REPLICATE)
        alpha = nail * tex_alpha
    if quad.opacity < 1.0:
        alpha = alpha * float(quad.opacity)
    if coverage is not None:
        painted_where = nail >= 0.5
        if tex_alpha is not None:
            painted_where &= tex_alpha >= 0.5
        coverage[placement.roi.slices][painted_where] = 255
    if not cv2.hasNonZero(alpha):
        return None  # (blending with alpha 0 would round back to the frame's own pixels anyway)
    colour = placement.warp(level.colour, border=cv2.BORDER_REPLICATE)
    return _NailJob(placement.roi, nail, alpha, colour)


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
    alpha = nail if all(job.alpha is job.nail for job in jobs) else _gather(
        [job.alpha for job in jobs], (1, total))
    painted = _shade_like_nails(original, colour, nail, [job.nail.shape for job in jobs], spans, sizes)
    # blendLinear: (a·painted + (1−a)·original) / (1 + 1e-5); where a = 0 that rounds back to the original
    blended = cv2.blendLinear(painted, original.astype(np.float32), alpha, 1.0 - alpha)
    result = cv2.convertScaleAbs(blended)  # rounds and saturates to uint8 (blended is ≥ 0)
    for job, (start, end) in zip(jobs, spans, strict=True):
        frame[job.roi.slices] = result[0, start:end].reshape(job.colour.shape)


def _gather(arrays: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    """The arrays' elements one after another, as one array of `shape`."""
    if len(arrays) == 1:
        return arrays[0].reshape(shape)
    return np.concatenate([array.reshape(-1) for array in arrays]).reshape(shape)


def _shade_like_nails(original: np.ndarray, colour: np.ndarray, nail: np.ndarray,
                      shapes: list[tuple[int, int]], spans: list[tuple[int, int]], sizes: list[int]) -> np.ndarray:
    """The texture colour lit like each real nail, for a batch of nails.

    Per nail: shade = exposure (the nail's mean brightness, weighted by its alpha, against a bare nail's) ×
    local shading (its smoothed brightness against that mean, tempered); then the fine detail and highlights
    are added back, and values near white roll off instead of clipping, so a white polish still shows its
    highlights.
    original, colour: (1, N, 3) uint8; nail: (1, N) float32; each nail's (h, w) pixels are columns start:end (its
    span) in row-major order. Returns (1, N, 3) float32 ≥ 0.
    """
    grey = cv2.cvtColor(original, cv2.COLOR_BGR2GRAY).astype(np.float32).reshape(-1)
    flat_nail = nail.reshape(-1)
    smooth = np.empty_like(grey)
    gains, offsets = [], []
    for (rows, columns), (start, end) in zip(shapes, spans, strict=True):
        # a box blur about a third of the nail wide separates the nail's broad shading from its fine detail
        size = max(3, (min(rows, columns) // 3) | 1)
        nail_smooth = smooth[start:end].reshape(rows, columns)
        blurred = cv2.blur(grey[start:end].reshape(rows, columns), (size, size), dst=nail_smooth)
        if blurred is not nail_smooth:  # (OpenCV writes into a matching dst; this only guards that)
            nail_smooth[...] = blurred
        nail_alpha_values = flat_nail[start:end]
        weight = cv2.sumElems(nail_alpha_values)[0]
        mean_luma = (float(smooth[start:end].dot(nail_alpha_values)) / weight if weight > 0
                     else NAIL_REFERENCE_LUMA)
        mean_luma = max(mean_luma, 1.0)
        exposure = min(max(mean_luma / NAIL_REFERENCE_LUMA, _EXPOSURE_RANGE[0]), _EXPOSURE_RANGE[1])
        # shade = exposure · (1 + k·(smooth/mean − 1)), written as one multiply-add
        gains.append(exposure * _LOCAL_SHADING / mean_luma)
        offsets.append(exposure * (1.0 - _LOCAL_SHADING))
    detail = np.subtract(grey, smooth, out=grey)
    # per-nail factors as float32 per pixel: what `float32 array * Python float` multiplies by
    shade = np.multiply(smooth, _per_pixel(gains, sizes), out=smooth)
    shade += _per_pixel(offsets, sizes)
    np.minimum(np.maximum(shade, _SHADE_RANGE[0], out=shade), _SHADE_RANGE[1], out=shade)
    lift = detail - _SPECULAR_THRESHOLD
    cv2.threshold(lift, 0.0, 0.0, cv2.THRESH_TOZERO, dst=lift)  # only what stands above the threshold
    lift *= _SPECULAR_GAIN
    detail *= _DETAIL_GAIN
    lift += detail
    shade, lift = shade.reshape(1, -1), lift.reshape(1, -1)
    painted = cv2.multiply(colour, cv2.merge((shade, shade, shade)), dtype=cv2.CV_32F)
    cv2.add(painted, cv2.merge((lift, lift, lift)), dst=painted)
    cv2.threshold(painted, 0.0, 0.0, cv2.THRESH_TOZERO, dst=painted)  # no negative light
    if painted.max() > _KNEE:
        _soft_clip(painted)
    return painted


def _per_pixel(values: list[float], sizes: list[int]) -> NDArray[np.float32] | np.float32:
    if len(values) == 1:
        return np.float32(values[0])
    return np.repeat(np.array(values, np.float32), sizes)


def _soft_clip(values: np.ndarray) -> None:
    """In place: values above _KNEE approach 255 smoothly (x → knee + room·tanh((x − knee)/room)).

    Computed over the whole array and copied back where above the knee: cheaper than boolean indexing twice."""
    room = 255.0 - _KNEE
    rolled = values - _KNEE
    rolled /= room
    np.tanh(rolled, out=rolled)
    rolled *= room
    rolled += _KNEE
    np.copyto(values, rolled, where=values > _KNEE)
