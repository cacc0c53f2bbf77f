"""Loading a style's nail textures for try-on.

A style is either one texture image (painted on every nail) or a style folder:

    nail.png                      every nail (required unless all five per-finger files are there)
    accent.png                    accent nails (跳色); which fingers: style.json "accent_fingers", default ["ring"]
    thumb.png index.png middle.png ring.png pinky.png
                                  per-finger overrides (they win over the accent)
    style.json                    optional: {"name": "...", "accent_fingers": ["ring", "index"], "design": {...}}

Textures may be any size and aspect; PNG alpha is kept (it multiplies the nail's alpha). The design (what
artwork.render writes: colours, finish, patterns) decides how each finger is painted — its finish, and for a
simple design its French tip or half-moon laid out on the nail (vision/paint/polish.py); a style without one is
painted as an opaque gloss crème. A design that does not parse is ignored (the textures still paint). Every file is read
through image_io, so a corrupt, truncated, empty or huge file gives a StyleError naming it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.paint.polish import NailLook, design_from_dict, looks_for_style
from nailmirror_desktop.vision.sources.image_io import ImageReadError, read_image

MAX_TEXTURE_PIXELS = 4096 * 4096
STYLE_FILE = "style.json"
DEFAULT_TEXTURE = "nail.png"
ACCENT_TEXTURE = "accent.png"
DEFAULT_ACCENT_FINGERS = (Finger.RING,)
FINGER_NAMES = {finger.name.lower(): finger for finger in Finger}


class StyleError(ValueError):
    """A style that cannot be loaded. `code` is stable; str() is one line naming the file at fault."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


@dataclass(frozen=True, eq=False)
class StyleTextures:
    """default: (h, w, 3|4) uint8 BGR(A) for every nail without an override; per_finger: the overrides;
    looks: how each finger is painted (from the style's design; empty: the default look)."""

    name: str
    default: NDArray[np.uint8] | None
    per_finger: dict[Finger, NDArray[np.uint8]] = field(default_factory=dict)
    looks: dict[Finger, NailLook] = field(default_factory=dict)

    def texture_for(self, finger: Finger) -> NDArray[np.uint8]:
        texture = self.per_finger.get(finger, self.default)
        assert texture is not None  # load_style guarantees every finger has one
        return texture

    def compositor(self) -> Compositor:
        return Compositor(self.default, self.per_finger, finger_looks=self.looks)


def load_style(path: str | Path) -> StyleTextures:
    """Load a texture image or a style folder (see the module docstring). Raises StyleError."""
    path = Path(path)
    if path.is_dir():
        return _load_folder(path)
    if path.is_file():
        return StyleTextures(path.stem, _read_texture(path))
    raise StyleError("STYLE_NOT_FOUND", f"{path}: no such style (a texture image or a style folder)")


def _load_folder(folder: Path) -> StyleTextures:
    meta = _read_meta(folder / STYLE_FILE)
    default_path = folder / DEFAULT_TEXTURE
    default = _read_texture(default_path) if default_path.exists() else None
    per_finger: dict[Finger, NDArray[np.uint8]] = {}
    accent_path = folder / ACCENT_TEXTURE
    accent_fingers = _accent_fingers(meta, folder)
    if accent_path.exists():
        accent = _read_texture(accent_path)
        per_finger.update({finger: accent for finger in accent_fingers})
    elif "accent_fingers" in meta:
        raise StyleError("STYLE_ACCENT_MISSING", f"{folder / STYLE_FILE}: accent_fingers given but no {ACCENT_TEXTURE}")
    for name, finger in FINGER_NAMES.items():
        finger_path = folder / f"{name}.png"
        if finger_path.exists():
            per_finger[finger] = _read_texture(finger_path)
    if default is None and len(per_finger) < len(Finger):
        raise StyleError(
            "STYLE_INCOMPLETE", f"{folder}: needs {DEFAULT_TEXTURE} (or one texture for each of the five fingers)"
        )
    name = meta.get("name") or folder.name
    if not isinstance(name, str):
        raise StyleError("STYLE_META_INVALID", f"{folder / STYLE_FILE}: \"name\" must be a string")
    return StyleTextures(name, default, per_finger, finger_looks(meta.get("design")))


def finger_looks(design_data: Any) -> dict[Finger, NailLook]:
    """Each finger's look from a style's design dict (style.json "design", or the repository's design_json
    parsed); {} when there is none or it does not parse."""
    design = design_from_dict(design_data)
    if design is None:
        return {}
    return {FINGER_NAMES[name]: look for name, look in looks_for_style(design).items()}


def _read_meta(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StyleError("STYLE_META_INVALID", f"{path}: not valid JSON ({exc})") from None
    if not isinstance(meta, dict):
        raise StyleError("STYLE_META_INVALID", f"{path}: must be a JSON object")
    return meta


def _accent_fingers(meta: dict[str, Any], folder: Path) -> tuple[Finger, ...]:
    names = meta.get("accent_fingers")
    if names is None:
        return DEFAULT_ACCENT_FINGERS
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise StyleError("STYLE_META_INVALID", f"{folder / STYLE_FILE}: accent_fingers must be a list of finger names")
    unknown = [n for n in names if n.lower() not in FINGER_NAMES]
    if unknown:
        raise StyleError(
            "STYLE_META_INVALID",
            f"{folder / STYLE_FILE}: unknown finger(s) {', '.join(unknown)} (use {', '.join(FINGER_NAMES)})",
        )
    return tuple(FINGER_NAMES[n.lower()] for n in names)


def _read_texture(path: Path) -> NDArray[np.uint8]:
    try:
        return read_image(path, keep_alpha=True, max_pixels=MAX_TEXTURE_PIXELS)
    except ImageReadError as exc:
        raise StyleError(f"TEXTURE_{exc.code}", str(exc)) from None
