"""Paint nail textures onto a frame, one nail quad at a time, touching only each quad's ROI.

Per nail: the nail-shaped alpha (sized to the quad, so the feather is about a frame pixel) and the texture are
warped into the quad's bounding rectangle. The painted colour is the texture's colour shaded by the real nail:
the texture is scaled by the nail's smoothed brightness (so a dim or curved nail stays dim or curved), the
nail's own fine luminance detail (high-pass of its grey level) is added back, and the brightest of that detail
is boosted as a specular highlight — so it reads as polish, not a sticker.

Coverage (what `coverage_mask` and `Compositor.composite(..., want_coverage=True)` return) is exactly the pixels
where the warped nail alpha is ≥ 0.5 and the quad's opacity is > 0 (and, in the compositor, the texture's own
alpha is ≥ 0.5 there). For an opaque texture the two agree pixel for pixel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from nailmirror_desktop.vision.nail_shape import DEFAULT_FEATHER_PX, nail_alpha
from nailmirror_desktop.vision.types import Finger, NailQuad
from nailmirror_desktop.vision.warp import Placement, Roi, place_quad

# Grey level of a bare nail under the kiosk's light: a nail this bright shows the texture at its own colour.
NAIL_REFERENCE_LUMA = 170.0
_SHADE_RANGE = (0.45, 1.25)
_SHADE_FLOOR = 0.3  # shade = floor + (1 - floor)·brightness: polish hides some of the nail's own shading
_DETAIL_GAIN = 0.8  # how much of the nail's fine luminance detail shows through
_SPECULAR_THRESHOLD = 10.0  # grey levels above the local mean that count as a highlight
_SPECULAR_GAIN = 1.6
_SMALLEST_TEXTURE_LEVEL = 16


@dataclass(frozen=True, eq=False)
class PreparedTexture:
    """A texture ready for warping: a pyramid of (h, w, 4) float32 levels, BGR in [0, 255] and alpha in [0, 1].

    levels[0] is full size; each next level is half the previous (INTER_AREA), down to ~16 px. The compositor
    warps from the smallest level still at least as large as the nail, so big textures do not alias.
    """

    levels: tuple[np.ndarray, ...]
    opaque: bool = field(default=True)


def prepare_texture(image: np.ndarray) -> PreparedTexture:
    """From (h, w, 3) BGR or (h, w, 4) BGRA uint8 (any size ≥ 1×1, any aspect) to a PreparedTexture."""
    if image.ndim != 3 or image.shape[2] not in (3, 4) or image.dtype != np.uint8:
        raise ValueError(f"a texture must be (h, w, 3|4) uint8, got {image.shape} {image.dtype}")
    bgra = np.empty(image.shape[:2] + (4,), np.float32)
    bgra[..., :3] = image[..., :3]
    bgra[..., 3] = image[..., 3] / 255.0 if image.shape[2] == 4 else 1.0
    opaque = bool(np.all(bgra[..., 3] >= 1.0))
    levels = [bgra]
    while min(levels[-1].shape[:2]) >= 2 * _SMALLEST_TEXTURE_LEVEL:
        h, w = levels[-1].shape[:2]
        levels.append(cv2.resize(levels[-1], (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA))
    return PreparedTexture(tuple(levels), opaque)


def _level_for(texture: PreparedTexture, size: tuple[int, int]) -> np.ndarray:
    width, height = size
    chosen = texture.levels[0]
    for level in texture.levels[1:]:
        if level.shape[1] < width or level.shape[0] < height:
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


def coverage_mask(quads: list[NailQuad], frame_shape: tuple[int, ...]) -> np.ndarray:
    """(H, W) uint8: 255 where the compositor paints a nail (warped alpha ≥ 0.5, opacity > 0), else 0."""
    mask = np.zeros(frame_shape[:2], np.uint8)
    for quad in quads:
        if quad.opacity <= 0:
            continue
        warped = warp_nail_alpha(quad, frame_shape)
        if warped is not None:
            mask[warped.roi.slices][warped.alpha >= 0.5] = 255
    return mask


@dataclass(frozen=True)
class Composite:
    """The compositor's result: the painted frame ((H, W, 3) uint8 BGR) and optional (H, W) uint8 coverage."""

    frame: np.ndarray
    coverage: np.ndarray | None


class Compositor:
    """Paints a default texture on every nail, with per-finger overrides (accents).

    Textures are prepared once (set_style); `composite` copies the frame and touches only the nails' ROIs.
    """

    def __init__(self, texture: np.ndarray | PreparedTexture | None = None,
                 per_finger: dict[Finger, np.ndarray | PreparedTexture] | None = None) -> None:
        self._default: PreparedTexture | None = None
        self._per_finger: dict[Finger, PreparedTexture] = {}
        if texture is not None or per_finger:
            self.set_style(texture, per_finger or {})

    def set_style(self, texture: np.ndarray | PreparedTexture | None,
                  per_finger: dict[Finger, np.ndarray | PreparedTexture] | None = None) -> None:
        self._default = _as_prepared(texture) if texture is not None else None
        self._per_finger = {Finger(f): _as_prepared(t) for f, t in (per_finger or {}).items()}

    def texture_for(self, finger: Finger) -> PreparedTexture | None:
        return self._per_finger.get(finger, self._default)

    def composite(self, frame: np.ndarray, quads: list[NailQuad], *, want_coverage: bool = False,
                  in_place: bool = False) -> Composite:
        """Paint `quads` onto `frame` ((H, W, 3) uint8 BGR). Pixels outside every quad's ROI are untouched."""
        out = frame if in_place else frame.copy()
        coverage = np.zeros(frame.shape[:2], np.uint8) if want_coverage else None
        for quad in quads:
            texture = self.texture_for(quad.finger)
            if texture is None or quad.opacity <= 0:
                continue
            paint_nail(out, quad, texture, coverage)
        return Composite(out, coverage)


def _as_prepared(texture: np.ndarray | PreparedTexture) -> PreparedTexture:
    return texture if isinstance(texture, PreparedTexture) else prepare_texture(texture)


def paint_nail(frame: np.ndarray, quad: NailQuad, texture: PreparedTexture,
               coverage: np.ndarray | None = None) -> None:
    """Paint one nail in place on `frame` ((H, W, 3) uint8 BGR); mark its painted pixels in `coverage`."""
    placement = place_quad(quad.corners, frame.shape)
    if placement is None:
        return
    roi = placement.roi
    nail = placement.warp(nail_alpha(*placement.size))
    tex = placement.warp(_level_for(texture, placement.size), border=cv2.BORDER_REPLICATE)
    if texture.opaque:
        painted_where = nail >= 0.5
        alpha = nail
    else:
        tex_alpha = tex[..., 3]
        painted_where = (nail >= 0.5) & (tex_alpha >= 0.5)
        alpha = nail * tex_alpha
    if quad.opacity < 1.0:
        alpha = alpha * float(quad.opacity)
    if coverage is not None:
        coverage[roi.slices][painted_where] = 255
    if not alpha.any():
        return
    original = frame[roi.slices]
    painted = _shade_like_nail(original, tex[..., :3])
    base = original.astype(np.float32)
    blended = cv2.add(base, cv2.multiply(painted - base, cv2.merge((alpha, alpha, alpha))))
    frame[roi.slices] = np.clip(np.rint(blended), 0, 255).astype(np.uint8)


def _shade_like_nail(original: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """The texture colour ((h, w, 3) float32) lit like the real nail in `original` ((h, w, 3) uint8)."""
    grey = cv2.cvtColor(original, cv2.COLOR_BGR2GRAY).astype(np.float32)
    # a box blur about a third of the nail wide separates the nail's broad shading from its fine detail
    size = max(3, (min(grey.shape) // 3) | 1)
    smooth = cv2.blur(grey, (size, size))
    detail = grey - smooth
    shade = np.clip(_SHADE_FLOOR + (1.0 - _SHADE_FLOOR) * smooth / NAIL_REFERENCE_LUMA, *_SHADE_RANGE)
    lift = detail * _DETAIL_GAIN + np.maximum(detail - _SPECULAR_THRESHOLD, 0.0) * _SPECULAR_GAIN
    return cv2.add(cv2.multiply(colour, cv2.merge((shade, shade, shade))), cv2.merge((lift, lift, lift)))
