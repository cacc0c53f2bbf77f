"""The offline style generator: a `Design` rendered into per-finger nail textures and a preview card.

Textures are (H, W, 4) uint8 in OpenCV's BGRA channel order (what `cv2.imread(..., IMREAD_UNCHANGED)` gives
for the PNGs `write_style_folder` writes). The top row is the nail's free edge (tip), the bottom row the
cuticle. The whole rectangle is filled with the design: the try-on compositor applies its own nail-shaped
alpha. Alpha below 255 means translucent polish (jelly) or bare nail (negative space).

Each nail is painted by vision.nail_layers (base → gradients → patterns → inclusions → finish → raised
decorations). Everything random comes from `numpy.random.Generator(PCG64(...))` seeded from the caller's
seed, and only deterministic numpy/OpenCV operations are used, so a design + seed gives bit-identical output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.artwork.painters import WHITE, coordinate_grid, mix, render_nail_texture
from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.core.generation.design import Design, FingerDesign
from nailmirror_desktop.core.generation.prompt_writer import design_title

DEFAULT_TEXTURE_SIZE = (256, 384)  # (width, height) pixels, about a real nail's aspect
DEFAULT_PREVIEW_SIZE = (768, 512)  # (width, height) pixels
FINGER_FILE_NAMES = {finger: finger.name.lower() for finger in Finger}
BASE_TEXTURE_NAME = "nail.png"
ACCENT_TEXTURE_NAME = "accent.png"
DEFAULT_PNG_COMPRESSION = 6  # zlib level: ~90 ms for a style folder; 9 saves ~2 % for ~4× the time



@dataclass(frozen=True, eq=False)
class RenderedStyle:
    """One rendered style.

    textures: every Finger → (H, W, 4) uint8 BGRA, top row = tip. Non-accent fingers share `base_texture`.
    preview: (H, W, 3) uint8 BGR card with five nails side by side, no text.
    """

    name: str
    textures: dict[Finger, NDArray[np.uint8]]
    base_texture: NDArray[np.uint8]
    accent_fingers: tuple[Finger, ...]
    preview: NDArray[np.uint8]
    design: Design | None = None
    seed: int | None = None


# ---------------------------------------------------------------------------------------------- the style


def _rng(seed: int, stream: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed) & (2**63 - 1), stream])))


def render_design(
    design: Design,
    seed: int,
    texture_size: tuple[int, int] = DEFAULT_TEXTURE_SIZE,
    preview_size: tuple[int, int] = DEFAULT_PREVIEW_SIZE,
    name: str | None = None,
) -> RenderedStyle:
    """Render a design: five textures of `texture_size` (width, height) and a `preview_size` BGR card.

    Fingers sharing a design share one texture (the non-accent fingers); each distinct accent design gets
    its own random stream, so adding an accent never changes the other nails.
    """
    accent_fingers = tuple(Finger[name_.upper()] for name_ in design.accent_fingers)
    main_finger = next((f for f in (Finger.MIDDLE, Finger.INDEX, Finger.THUMB, Finger.PINKY, Finger.RING)
                        if f not in accent_fingers), Finger.MIDDLE)
    base_texture = render_nail_texture(design.finger_design(main_finger.name.lower()), _rng(seed, 0), texture_size)
    textures: dict[Finger, NDArray[np.uint8]] = {}
    rendered_by_design: dict[FingerDesign, NDArray[np.uint8]] = {}
    for finger in Finger:
        if finger not in accent_fingers:
            textures[finger] = base_texture
            continue
        finger_design = design.finger_design(finger.name.lower())
        if finger_design not in rendered_by_design:
            stream = _rng(seed, 1 + int(finger))
            rendered_by_design[finger_design] = render_nail_texture(finger_design, stream, texture_size)
        textures[finger] = rendered_by_design[finger_design]
    preview = render_preview_card(textures, design, _rng(seed, 99), preview_size)
    return RenderedStyle(
        name=name or design_title(design),
        textures=textures,
        base_texture=base_texture,
        accent_fingers=accent_fingers,
        preview=preview,
        design=design,
        seed=seed,
    )


# ---------------------------------------------------------------------------------------------- preview card

# tip profile per shape: (fraction of the nail length the tip takes, profile exponent, flat tip half-width)
SHAPE_TIPS = {
    "square": (0.06, 0.5, 0.0), "squoval": (0.14, 0.5, 0.0), "round": (0.3, 0.5, 0.0), "oval": (0.38, 0.55, 0.0),
    "almond": (0.42, 0.62, 0.0), "stiletto": (0.6, 1.1, 0.0), "coffin": (0.4, 1.0, 0.55),
}
LENGTH_ASPECT = {"short": 1.15, "medium": 1.42, "long": 1.8}  # nail height / width on the card


def nail_shape_mask(width: int, height: int, shape: str) -> np.ndarray:
    """A nail-shaped mask, (H, W) float32 in [0, 1], tip at the top, anti-aliased by 3× supersampling."""
    s = 3
    tip_length, exponent, flat = SHAPE_TIPS.get(shape, SHAPE_TIPS["almond"])
    tip_length = min(tip_length, 0.6)
    u, v = coordinate_grid(width * s, height * s)
    x = np.abs(u - 0.5) * 2.0  # 0 centre, 1 side
    t = np.clip(v / tip_length, 0.0, 1.0)
    tip_profile = flat + (1.0 - flat) * (1.0 - (1.0 - t) ** 2) ** exponent
    cuticle = 0.14
    c = np.clip((v - (1.0 - cuticle)) / cuticle, 0.0, 1.0)
    cuticle_profile = np.sqrt(np.clip(1.0 - c * c, 0.0, 1.0))
    half_width = np.minimum(tip_profile, cuticle_profile) * (0.94 + 0.06 * (1.0 - v))
    mask = (x < half_width).astype(np.float32)
    return cv2.resize(mask, (width, height), interpolation=cv2.INTER_AREA)


def render_preview_card(
    textures: dict[Finger, NDArray[np.uint8]], design: Design, rng: np.random.Generator, size: tuple[int, int]
) -> NDArray[np.uint8]:
    """Five nails side by side on a soft background: (H, W, 3) uint8 BGR, no text."""
    width, height = size
    base_bgr = np.asarray(design.base_color.rgb[::-1], np.float32) / 255.0
    background_top = mix(base_bgr, WHITE, 0.88)
    background_bottom = mix(base_bgr, np.array([0.85, 0.84, 0.86], np.float32), 0.8)
    _, v = coordinate_grid(width, height)
    gradient = background_top * (1.0 - v[..., None]) + background_bottom * v[..., None]
    card: np.ndarray = gradient.astype(np.float32)
    shape = design.shape or "almond"
    aspect = LENGTH_ASPECT.get(design.length or "medium", LENGTH_ASPECT["medium"])
    slot = width / 5.0
    nail_w = slot * 0.66
    nail_h = min(nail_w * aspect, height * 0.74)
    nail_w = nail_h / aspect
    scale = {Finger.THUMB: 1.12, Finger.INDEX: 1.0, Finger.MIDDLE: 1.04, Finger.RING: 0.98, Finger.PINKY: 0.84}
    lift = {Finger.THUMB: 0.05, Finger.INDEX: 0.0, Finger.MIDDLE: -0.03, Finger.RING: 0.0, Finger.PINKY: 0.05}
    nail_bed = np.array([0.80, 0.83, 0.93], np.float32)  # BGR pinkish bare nail, seen through jelly
    for finger in Finger:
        w = int(round(nail_w * scale[finger]))
        h = int(round(nail_h * scale[finger]))
        cx = slot * (int(finger) + 0.5)
        cy = height * (0.5 + lift[finger])
        x0, y0 = int(round(cx - w / 2)), int(round(cy - h / 2))
        mask = nail_shape_mask(w, h, shape)
        texture = cv2.resize(textures[finger], (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        paint_alpha = texture[..., 3:4]
        nail = texture[..., :3] * paint_alpha + nail_bed * (1.0 - paint_alpha)
        # a thin darker rim gives the nail its edge thickness
        rim = np.clip(mask - cv2.erode(mask, np.ones((3, 3), np.uint8), iterations=2), 0, 1)[..., None]
        nail *= 1.0 - 0.18 * rim
        _drop_shadow(card, mask, x0, y0, offset=(max(2, w // 30), max(3, h // 22)))
        region = card[y0 : y0 + h, x0 : x0 + w]
        m = mask[..., None]
        region *= 1.0 - m
        region += m * nail
    return np.clip(card * 255.0 + 0.5, 0, 255).astype(np.uint8)


def _drop_shadow(card: np.ndarray, mask: np.ndarray, x0: int, y0: int, offset: tuple[int, int]) -> None:
    h, w = mask.shape
    pad = 12
    shadow = np.zeros((h + 2 * pad, w + 2 * pad), np.float32)
    shadow[pad : pad + h, pad : pad + w] = mask
    shadow = cv2.GaussianBlur(shadow, (0, 0), 5.0) * 0.28
    sx, sy = x0 - pad + offset[0], y0 - pad + offset[1]
    cy0, cx0 = max(0, sy), max(0, sx)
    cy1, cx1 = min(card.shape[0], sy + shadow.shape[0]), min(card.shape[1], sx + shadow.shape[1])
    if cy1 > cy0 and cx1 > cx0:
        s = shadow[cy0 - sy : cy1 - sy, cx0 - sx : cx1 - sx][..., None]
        card[cy0:cy1, cx0:cx1] *= 1.0 - s


# ---------------------------------------------------------------------------------------------- remote swatches


def textures_from_swatch(
    image_bgr: NDArray[np.uint8], texture_size: tuple[int, int] = DEFAULT_TEXTURE_SIZE
) -> dict[Finger, NDArray[np.uint8]]:
    """Per-finger nail textures cut from a remote provider's flat design swatch.

    Method: the swatch (asked for by `core.generation.prompt_writer.english_prompt`: flat, front-on, the design
    filling the frame, tip at the top) is treated as a piece of painted nail. A margin is dropped (3 % at the top,
    6 % on the other sides: generators often vignette or frame their edges; the top margin stays small so a French tip
    drawn along the top edge survives). From what is left, five crops with the nail's aspect (texture
    width : height) are taken, all starting at the top, each 94 % of the usable height tall (narrower if the
    swatch is too narrow), their left edges spread evenly from the left to the right of the usable area, so
    the five nails show slightly different parts of the design the way real hand-painted nails differ. Crops
    keep the image's orientation (top = tip). Each crop is resized with area interpolation to `texture_size`
    (width, height); alpha is 255, or the swatch's own alpha when it has one.
    Input: (H, W, 3) BGR or (H, W, 4) BGRA uint8, at least 32 px a side. Output: every Finger → (H, W, 4)
    uint8 BGRA.
    """
    if image_bgr.ndim != 3 or image_bgr.shape[2] not in (3, 4) or image_bgr.dtype != np.uint8:
        raise ValueError("swatch_not_bgr_uint8")
    h, w = image_bgr.shape[:2]
    if min(h, w) < 32:
        raise ValueError("swatch_too_small")
    bgra = image_bgr if image_bgr.shape[2] == 4 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2BGRA)
    margin_x, margin_top, margin_bottom = int(w * 0.06), int(h * 0.03), int(h * 0.06)
    usable_w, usable_h = w - 2 * margin_x, h - margin_top - margin_bottom
    aspect = texture_size[0] / texture_size[1]
    crop_h = usable_h * 0.94
    crop_w = crop_h * aspect
    if crop_w > usable_w * 0.8:  # a tall, narrow swatch: keep some horizontal room for variety
        crop_w = usable_w * 0.8
        crop_h = crop_w / aspect
    crop_w_i, crop_h_i = max(8, int(round(crop_w))), max(8, int(round(crop_h)))
    spare_x = usable_w - crop_w_i
    textures: dict[Finger, NDArray[np.uint8]] = {}
    for finger in Finger:
        x = margin_x + int(round(spare_x * int(finger) / 4))
        crop = bgra[margin_top : margin_top + crop_h_i, x : x + crop_w_i]
        textures[finger] = np.asarray(cv2.resize(crop, texture_size, interpolation=cv2.INTER_AREA), np.uint8)
    return textures


def rendered_from_textures(
    textures: dict[Finger, NDArray[np.uint8]], design: Design, name: str | None = None, seed: int = 0,
    preview_size: tuple[int, int] = DEFAULT_PREVIEW_SIZE,
) -> RenderedStyle:
    """Wraps textures from elsewhere (a remote swatch) as a RenderedStyle with a preview card."""
    base = textures[Finger.MIDDLE]
    preview = render_preview_card(textures, design, _rng(seed, 99), preview_size)
    return RenderedStyle(
        name=name or design_title(design), textures=dict(textures), base_texture=base,
        accent_fingers=(),  # the crops differ slightly by design; none of them is an accent
        preview=preview, design=design, seed=seed,
    )


# ---------------------------------------------------------------------------------------------- style folder


def write_style_folder(
    rendered: RenderedStyle, folder: str | Path, name: str | None = None, png_compression: int = DEFAULT_PNG_COMPRESSION
) -> Path:
    """Writes the style-folder format `vision.style_textures.load_style` (and `nailmirror tryon --style`) reads.

    nail.png: the base texture (BGRA PNG) for every finger; accent.png: the accent fingers' texture, when there
    are accent fingers; thumb.png … pinky.png: only for fingers whose texture differs from what nail.png /
    accent.png already give them (two accents with different designs, or the five crops of a remote swatch);
    style.json: {"name", "accent_fingers": [finger names] (only when there are accents: the loader requires
    accent.png whenever the key is present), "design" (the Design dict, when known), "seed"}; preview.png: the
    BGR card. PNGs use zlib level `png_compression` (0–9). Stale files from an earlier write are removed.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _write_png(folder / BASE_TEXTURE_NAME, rendered.base_texture, png_compression)
    accent_texture = rendered.textures[rendered.accent_fingers[0]] if rendered.accent_fingers else None
    accent_path = folder / ACCENT_TEXTURE_NAME
    if accent_texture is not None:
        _write_png(accent_path, accent_texture, png_compression)
    else:
        accent_path.unlink(missing_ok=True)
    for finger in Finger:
        path = folder / f"{FINGER_FILE_NAMES[finger]}.png"
        texture = rendered.textures[finger]
        given = rendered.base_texture
        if accent_texture is not None and finger in rendered.accent_fingers:
            given = accent_texture
        if np.array_equal(texture, given):
            path.unlink(missing_ok=True)
        else:
            _write_png(path, texture, png_compression)
    meta: dict[str, Any] = {"name": name or rendered.name}
    if rendered.accent_fingers:
        meta["accent_fingers"] = [FINGER_FILE_NAMES[f] for f in rendered.accent_fingers]
    if rendered.design is not None:
        meta["design"] = rendered.design.to_dict()
    if rendered.seed is not None:
        meta["seed"] = rendered.seed
    (folder / "style.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    _write_png(folder / "preview.png", rendered.preview, png_compression)
    return folder


def _write_png(path: Path, image: NDArray[np.uint8], compression: int) -> None:
    ok, encoded = cv2.imencode(".png", image, [cv2.IMWRITE_PNG_COMPRESSION, int(compression)])
    if not ok:
        raise OSError(f"png_encode_failed:{path.name}")
    path.write_bytes(encoded.tobytes())
