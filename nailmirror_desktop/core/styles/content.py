"""A style's visual content, and the style-folder format it travels in.

Style folder (what the offline renderer writes and `nailmirror tryon --style FOLDER` reads):
    nail.png                      texture for every finger without its own
    thumb.png index.png middle.png ring.png pinky.png   optional per-finger textures (accent nails)
    style.json                    {"name": "...", "accent_fingers": ["ring", ...]}
    preview.png                   optional preview card (becomes the style's COVER and THUMBNAIL)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from nailmirror_desktop.core.styles.errors import StyleError

GENERIC_SLOT = "nail"
FINGER_SLOTS = ("thumb", "index", "middle", "ring", "pinky")
TEXTURE_SLOTS = (GENERIC_SLOT, *FINGER_SLOTS)
STYLE_JSON = "style.json"
PREVIEW_FILE = "preview.png"


@dataclass(frozen=True)
class StyleContent:
    """Image bytes of one content version.

    nail_textures: slot ('nail' or a finger name) → encoded image bytes (PNG/JPEG/WebP); at least 'nail' or all
    five fingers for a style to be previewable.
    preview: the preview card, or None.
    """

    nail_textures: Mapping[str, bytes] = field(default_factory=dict)
    preview: bytes | None = None
    accent_fingers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = set(self.nail_textures) - set(TEXTURE_SLOTS)
        if unknown:
            raise StyleError("UNKNOWN_TEXTURE_SLOT", ",".join(sorted(unknown)))
        object.__setattr__(self, "accent_fingers", normalise_fingers(self.accent_fingers))

    def covers_every_finger(self) -> bool:
        return GENERIC_SLOT in self.nail_textures or all(f in self.nail_textures for f in FINGER_SLOTS)


@dataclass(frozen=True)
class StyleFolder:
    name: str
    content: StyleContent


def normalise_fingers(fingers) -> tuple[str, ...]:
    """Finger names ('ring', 'RING') or Finger values (3) → sorted lower-case names, in finger order."""
    names = set()
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
    textures = {slot: (folder / f"{slot}.png").read_bytes() for slot in TEXTURE_SLOTS if (folder / f"{slot}.png").is_file()}
    if not textures:
        raise StyleError("STYLE_FOLDER_INVALID", f"no nail.png or finger textures in {folder}")
    meta = _read_style_json(folder / STYLE_JSON)
    preview_path = folder / PREVIEW_FILE
    content = StyleContent(
        nail_textures=textures,
        preview=preview_path.read_bytes() if preview_path.is_file() else None,
        accent_fingers=tuple(meta.get("accent_fingers") or ()),
    )
    name = str(meta.get("name") or folder.name).strip()
    return StyleFolder(name=name, content=content)


def write_style_folder(folder: Path, name: str, textures: Mapping[str, bytes], preview: bytes | None,
                       accent_fingers: tuple[str, ...]) -> Path:
    """Write PNG bytes in the style-folder format (the caller converts to PNG first)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for slot, data in textures.items():
        (folder / f"{slot}.png").write_bytes(data)
    if preview is not None:
        (folder / PREVIEW_FILE).write_bytes(preview)
    meta = {"name": name, "accent_fingers": list(accent_fingers)}
    (folder / STYLE_JSON).write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return folder


def _read_style_json(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: {exc}") from None
    if not isinstance(meta, dict):
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: not an object")
    return meta
