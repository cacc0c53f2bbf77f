"""Reads a style folder in the kiosk's format (nailmirror_desktop/core/catalog/content.py, `nailmirror styles
import`), bounded the same way, into blobs and an asset list for HQ:

    nail.png  accent.png  thumb.png index.png middle.png ring.png pinky.png   NAIL_TEXTURE, slot = the stem
    preview.png                                                              COVER (primary)
    style.json  {"name": …, "accent_fingers": [...], "design": {...}, "seed": n}
"""

from __future__ import annotations

import hashlib
import json
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nailmirror_hq.images import probe

GENERIC_SLOT = "nail"
ACCENT_SLOT = "accent"
FINGER_SLOTS = ("thumb", "index", "middle", "ring", "pinky")
TEXTURE_SLOTS = (GENERIC_SLOT, ACCENT_SLOT, *FINGER_SLOTS)
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_STYLE_JSON_BYTES = 64 * 1024
MAX_NAME_CHARS = 80


class StyleFolderError(ValueError):
    pass


@dataclass(frozen=True)
class FolderImage:
    type: str
    slot: str
    data: bytes
    format: str
    width: int
    height: int

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass(frozen=True)
class StyleFolder:
    name: str
    accent_fingers: tuple[str, ...]
    design: dict[str, Any] | None
    seed: int | None
    images: tuple[FolderImage, ...] = field(default=())


def read(folder: Path) -> StyleFolder:
    folder = Path(folder)
    if not folder.is_dir():
        raise StyleFolderError(f"not a folder: {folder}")
    images = [img for slot in TEXTURE_SLOTS if (img := _image(folder / f"{slot}.png", "NAIL_TEXTURE", slot))]
    if not images:
        raise StyleFolderError(f"no nail.png or finger textures in {folder}")
    slots = {img.slot for img in images}
    meta = _meta(folder / "style.json")
    if "accent_fingers" in meta and ACCENT_SLOT not in slots:
        raise StyleFolderError(f"{folder}: accent_fingers given but no accent.png")
    accent = meta.get("accent_fingers", ["ring"]) if ACCENT_SLOT in slots else []
    if not isinstance(accent, list) or any(f not in FINGER_SLOTS for f in accent):
        raise StyleFolderError(f"{folder}: accent_fingers must list fingers ({', '.join(FINGER_SLOTS)})")
    covered = slots & set(FINGER_SLOTS) | (set(accent) if ACCENT_SLOT in slots else set())
    if GENERIC_SLOT not in slots and covered != set(FINGER_SLOTS):
        raise StyleFolderError(f"{folder}: the textures do not cover every finger (add nail.png)")
    preview = _image(folder / "preview.png", "COVER", "")
    if preview:
        images.append(preview)
    name = meta.get("name") or folder.name
    if not isinstance(name, str) or len(" ".join(name.split())) > MAX_NAME_CHARS:
        raise StyleFolderError(f"{folder / 'style.json'}: name must be text of at most {MAX_NAME_CHARS} characters")
    design = meta.get("design") if isinstance(meta.get("design"), dict) else None
    seed = meta.get("seed") if isinstance(meta.get("seed"), int) else None
    return StyleFolder(" ".join(name.split()), tuple(f for f in FINGER_SLOTS if f in accent), design, seed,
                       tuple(images))


def _read_regular(path: Path, limit: int) -> bytes | None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise StyleFolderError(f"{path}: not a regular file (links and folders are refused)")
    if info.st_size > limit:
        raise StyleFolderError(f"{path}: {info.st_size:,} bytes (limit {limit:,})")
    data = path.read_bytes()
    if len(data) > limit:
        raise StyleFolderError(f"{path}: over {limit:,} bytes")
    return data


def _image(path: Path, asset_type: str, slot: str) -> FolderImage | None:
    data = _read_regular(path, MAX_IMAGE_BYTES)
    if data is None:
        return None
    info = probe(data[:65536])
    if info is None:
        raise StyleFolderError(f"{path}: not a PNG, JPEG or WebP image")
    return FolderImage(asset_type, slot, data, info.format, info.width, info.height)


def _meta(path: Path) -> dict[str, Any]:
    raw = _read_regular(path, MAX_STYLE_JSON_BYTES)
    if raw is None:
        return {}
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise StyleFolderError(f"{path}: not JSON ({type(exc).__name__})") from None
    if not isinstance(meta, dict):
        raise StyleFolderError(f"{path}: not an object")
    return meta
