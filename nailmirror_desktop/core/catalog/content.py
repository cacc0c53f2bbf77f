"""A style's visual content, and the style-folder format it travels in.

Style folder (what artwork.render writes and vision.style_textures.load_style / `nailmirror tryon --style` read):
    nail.png                      texture for every finger without its own
    accent.png                    texture for the accent fingers (跳色); style.json names them, default ["ring"]
    thumb.png index.png middle.png ring.png pinky.png   optional per-finger overrides (they win over accent.png)
    style.json                    {"name": "...", "accent_fingers": ["ring", ...], "design": {...}, "seed": 7};
                                  "accent_fingers" only together with accent.png (the loader refuses it otherwise)
    preview.png                   optional preview card (becomes the style's COVER and THUMBNAIL)
Each texture file is one NAIL_TEXTURE asset whose slot is the file's stem.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.catalog.errors import StyleError

GENERIC_SLOT = "nail"
ACCENT_SLOT = "accent"
FINGER_SLOTS = ("thumb", "index", "middle", "ring", "pinky")
TEXTURE_SLOTS = (GENERIC_SLOT, ACCENT_SLOT, *FINGER_SLOTS)
DEFAULT_ACCENT_FINGERS = ("ring",)
STYLE_JSON = "style.json"
PREVIEW_FILE = "preview.png"


@dataclass(frozen=True)
class StyleContent:
    """Image bytes of one content version.

    nail_textures: slot ('nail', 'accent' or a finger name) → encoded image bytes (PNG/JPEG/WebP); a style is
    previewable when every finger gets a texture (see `covers_every_finger`).
    preview: the preview card, or None.
    accent_fingers: the fingers 'accent' paints; must be empty without an 'accent' texture.
    """

    nail_textures: Mapping[str, bytes] = field(default_factory=dict)
    preview: bytes | None = None
    accent_fingers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = set(self.nail_textures) - set(TEXTURE_SLOTS)
        if unknown:
            raise StyleError("UNKNOWN_TEXTURE_SLOT", ",".join(sorted(unknown)))
        object.__setattr__(self, "accent_fingers", normalise_fingers(self.accent_fingers))
        if self.accent_fingers and ACCENT_SLOT not in self.nail_textures:
            raise StyleError("ACCENT_TEXTURE_MISSING", ",".join(self.accent_fingers))

    def covers_every_finger(self) -> bool:
        return textures_cover_hand(set(self.nail_textures), self.accent_fingers)


def textures_cover_hand(slots: set[str], accent_fingers: tuple[str, ...]) -> bool:
    """True when every finger gets a texture from these slots (what try-on needs)."""
    covered = set(slots) & set(FINGER_SLOTS)
    if ACCENT_SLOT in slots:
        covered |= set(accent_fingers)
    return GENERIC_SLOT in slots or covered == set(FINGER_SLOTS)


@dataclass(frozen=True)
class StyleFolder:
    name: str
    content: StyleContent
    # style.json "design" (the renderer's Design dict), kept as the style's design_json
    design: dict[str, Any] | None = None
    seed: int | None = None

    def design_json(self) -> str | None:
        """What the style keeps as design_json: the renderer's design and seed, when the folder has them."""
        if self.design is None and self.seed is None:
            return None
        return json.dumps({"design": self.design, "seed": self.seed}, ensure_ascii=False, sort_keys=True)


def normalise_fingers(fingers: Iterable[str | int] | None) -> tuple[str, ...]:
    """Finger names ('ring', 'RING') or Finger values (3) → sorted lower-case names, in finger order."""
    names: set[str] = set()
    for finger in fingers or ():
        if isinstance(finger, int) and 0 <= finger < len(FINGER_SLOTS):
            names.add(FINGER_SLOTS[finger])
        elif isinstance(finger, str) and finger.strip().lower() in FINGER_SLOTS:
            names.add(finger.strip().lower())
        else:
            raise StyleError("UNKNOWN_FINGER", repr(finger))
    return tuple(f for f in FINGER_SLOTS if f in names)


def read_style_folder(folder: Path) -> StyleFolder:
    """Read a style folder; raises StyleError(STYLE_FOLDER_INVALID) when it is not one."""
    folder = Path(folder)
    if not folder.is_dir():
        raise StyleError("STYLE_FOLDER_INVALID", f"not a folder: {folder}")
    pngs = {slot: folder / f"{slot}.png" for slot in TEXTURE_SLOTS}
    textures = {slot: png.read_bytes() for slot, png in pngs.items() if png.is_file()}
    if not textures:
        raise StyleError("STYLE_FOLDER_INVALID", f"no nail.png or finger textures in {folder}")
    meta = _read_style_json(folder / STYLE_JSON)
    if "accent_fingers" in meta and ACCENT_SLOT not in textures:
        raise StyleError("STYLE_FOLDER_INVALID", f"{folder}: accent_fingers given but no accent.png")
    accent_fingers = meta.get("accent_fingers", DEFAULT_ACCENT_FINGERS) if ACCENT_SLOT in textures else ()
    if not isinstance(accent_fingers, (list, tuple)):
        raise StyleError("STYLE_FOLDER_INVALID", f"{folder}: accent_fingers must be a list")
    preview_path = folder / PREVIEW_FILE
    content = StyleContent(
        nail_textures=textures,
        preview=preview_path.read_bytes() if preview_path.is_file() else None,
        accent_fingers=tuple(accent_fingers),
    )
    name = str(meta.get("name") or folder.name).strip()
    design = meta.get("design") if isinstance(meta.get("design"), dict) else None
    seed = meta.get("seed") if isinstance(meta.get("seed"), int) else None
    return StyleFolder(name=name, content=content, design=design, seed=seed)


def write_style_folder(folder: Path, name: str, textures: Mapping[str, bytes], preview: bytes | None,
                       accent_fingers: tuple[str, ...]) -> Path:
    """Write PNG bytes in the style-folder format (the caller converts to PNG first)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for slot, data in textures.items():
        (folder / f"{slot}.png").write_bytes(data)
    if preview is not None:
        (folder / PREVIEW_FILE).write_bytes(preview)
    meta: dict[str, Any] = {"name": name}
    if ACCENT_SLOT in textures:
        meta["accent_fingers"] = list(accent_fingers)
    (folder / STYLE_JSON).write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return folder


def _read_style_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: {exc}") from None
    if not isinstance(meta, dict):
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: not an object")
    return meta
