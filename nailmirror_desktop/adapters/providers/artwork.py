"""Provider results → style content: the quality screen, nail textures from a remote swatch, PNG encoding.

How a remote image becomes nail textures: the remote prompt (core.generation.prompt_writer.english_prompt) asks
for a flat, front-on swatch of the design filling the frame, tip at the top edge. `artwork.render.textures_from_swatch`
cuts five nail-aspect crops from it (one per finger, spread across the swatch so the nails differ a little,
as hand-painted ones do), and `rendered_from_textures` draws the preview card from them, exactly as for an
offline design. The offline renderer's result already has its textures and is used as it is.

Quality screen (remote images only; on a 128 × 128 area-downscale of the decoded image):
- `result_too_small`: shorter side under MIN_SIDE pixels (textures would be upscaled mush);
- `result_blank`: ≥ 98 % of pixels within ±8 levels of the median colour, and that colour near white or black
  (an empty canvas, a failed render);
- `result_uniform`: the same, any other colour (a flat fill: no design to try on).
A polish swatch with real lighting varies by far more than ±8 levels across the frame; the screen only catches
images with nothing in them. Of several images (DashScope partial results, n > 1) the first that passes wins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from nailmirror_desktop.adapters.providers.image_bytes import decode_bgr
from nailmirror_desktop.core.catalog.content import ACCENT_SLOT, GENERIC_SLOT, StyleContent
from nailmirror_desktop.core.generation.design import Design
from nailmirror_desktop.core.generation.flow import Artwork
from nailmirror_desktop.core.generation.provider_port import ProviderError, ProviderResult
from nailmirror_desktop.core.generation.provider_port import ProviderErrorClass as C

if TYPE_CHECKING:  # the renderer is imported when first used
    from nailmirror_desktop.artwork.render import RenderedStyle

MIN_SIDE = 256
NEAR_LEVELS = 8
UNIFORM_FRACTION = 0.98


def quality_problem(image_bgr: np.ndarray) -> str | None:
    """None if the image may become a style, else a `result_*` code. image_bgr: (H, W, 3) uint8."""
    import cv2

    height, width = image_bgr.shape[:2]
    if min(height, width) < MIN_SIDE:
        return "result_too_small"
    small = cv2.resize(image_bgr, (128, 128), interpolation=cv2.INTER_AREA).astype(np.int16)
    median = np.median(small.reshape(-1, 3), axis=0)
    near = np.abs(small - median).max(axis=2) <= NEAR_LEVELS
    if near.mean() < UNIFORM_FRACTION:
        return None
    return "result_blank" if median.mean() >= 240 or median.mean() <= 15 else "result_uniform"


def make_artwork(result: ProviderResult, design: Design, seed: int) -> Artwork:
    """The style content for a provider result; raises ProviderError (INVALID_REQUEST) if no image is usable."""
    if result.rendered is not None:
        return Artwork(result.rendered.name, style_content(result.rendered))
    from nailmirror_desktop.artwork.render import rendered_from_textures, textures_from_swatch

    problems: list[str] = []
    for image in result.images:
        if image.data is None:
            continue
        pixels = decode_bgr(image.data)
        problem = quality_problem(pixels)
        if problem is not None:
            problems.append(problem)
            continue
        rendered = rendered_from_textures(textures_from_swatch(pixels), design, seed=seed)
        return Artwork(rendered.name, style_content(rendered), refused_images=len(result.failures) + len(problems))
    code = problems[0] if problems else "result_empty"
    raise ProviderError(code, f"no usable image among {len(result.images)}", C.INVALID_REQUEST)


def style_content(rendered: RenderedStyle) -> StyleContent:
    """artwork.render.RenderedStyle → StyleContent, slot for slot as `write_style_folder` lays out a style
    folder: 'nail' = the base texture, 'accent' = the accent fingers' texture, a finger slot only where that
    finger's texture differs from what 'nail'/'accent' already give it (two accent designs, or the five crops
    of a remote swatch); the preview card as PNG."""
    base = rendered.base_texture
    accent = rendered.textures[rendered.accent_fingers[0]] if rendered.accent_fingers else None
    textures = {GENERIC_SLOT: _png(base)}
    if accent is not None:
        textures[ACCENT_SLOT] = _png(accent)
    for finger, texture in rendered.textures.items():
        given = base if accent is None or finger not in rendered.accent_fingers else accent
        if texture is not given and not np.array_equal(texture, given):
            textures[finger.name.lower()] = _png(texture)
    accents = tuple(finger.name.lower() for finger in rendered.accent_fingers)
    return StyleContent(nail_textures=textures, preview=_png(rendered.preview), accent_fingers=accents)


def _png(image: np.ndarray) -> bytes:
    import cv2

    ok, encoded = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, 3])
    if not ok:
        raise ProviderError("result_encode_failed", "PNG encoding failed", C.INVALID_REQUEST)
    return encoded.tobytes()
