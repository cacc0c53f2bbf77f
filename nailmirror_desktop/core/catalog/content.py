"""A style's visual content, and the style-folder format it travels in.

Style folder (what artwork.render writes and vision.style_textures.load_style / `nailmirror tryon --style` read):
    nail.png                      texture for every finger without its own
    accent.png                    texture for the accent fingers (跳色); style.json names them, default ["ring"]
    thumb.png index.png middle.png ring.png pinky.png   optional per-finger overrides (they win over accent.png)
    style.json                    {"name": "...", "accent_fingers": ["ring", ...], "design": {...}, "seed": 7,
                                  "price": 128}; "accent_fingers" only together with accent.png (the loader
                                  refuses it otherwise); "price" optional, in the store's currency (128, 128.5 or
                                  "128.50": read exactly, never as a float; core/catalog/price.py)
    preview.png                   optional preview card (becomes the style's COVER and THUMBNAIL)
Each texture file is one NAIL_TEXTURE asset whose slot is the file's stem.

Reading one is bounded, since a folder comes from a USB stick or a download: each file must be a regular file
(links, FIFOs and folders are refused — a link could point anywhere), its size is checked before a byte is read
(images ≤ MAX_TEXTURE_BYTES, style.json ≤ MAX_STYLE_JSON_BYTES), style.json's nesting depth and integers are
bounded before and while it is parsed, and every field has a type and a size limit. Errors name the file and
the rule, never its contents.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.catalog.errors import StyleError
from nailmirror_desktop.core.catalog.price import DEFAULT_CURRENCY, parse_price

GENERIC_SLOT = "nail"
ACCENT_SLOT = "accent"
FINGER_SLOTS = ("thumb", "index", "middle", "ring", "pinky")
TEXTURE_SLOTS = (GENERIC_SLOT, ACCENT_SLOT, *FINGER_SLOTS)
DEFAULT_ACCENT_FINGERS = ("ring",)
STYLE_JSON = "style.json"
PREVIEW_FILE = "preview.png"
MAX_TEXTURE_BYTES = 20 * 1024 * 1024  # the asset store's own image limit (adapters/pillow_probe.py)
MAX_STYLE_JSON_BYTES = 64 * 1024
MAX_JSON_DEPTH = 32
MAX_INT_DIGITS = 20  # a seed is a 64-bit integer
MAX_NAME_CHARS = 80
MAX_DESIGN_CHARS = 16 * 1024
MAX_SEED = 2**63 - 1


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
    price_minor: int | None = None  # style.json "price" in minor units of the store's currency

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


def read_style_folder(folder: Path, currency_code: str = DEFAULT_CURRENCY) -> StyleFolder:
    """Read a style folder; raises StyleError(STYLE_FOLDER_INVALID) when it is not one (see the module doc).
    `currency_code` is the store's (KioskConfig.currency): style.json's price is read in it."""
    folder = Path(folder)
    if not folder.is_dir():
        raise StyleError("STYLE_FOLDER_INVALID", f"not a folder: {folder}")
    textures = {slot: data for slot in TEXTURE_SLOTS
                if (data := _read_bounded(folder / f"{slot}.png", MAX_TEXTURE_BYTES)) is not None}
    if not textures:
        raise StyleError("STYLE_FOLDER_INVALID", f"no nail.png or finger textures in {folder}")
    meta = _read_style_json(folder / STYLE_JSON)
    if "accent_fingers" in meta and ACCENT_SLOT not in textures:
        raise StyleError("STYLE_FOLDER_INVALID", f"{folder}: accent_fingers given but no accent.png")
    accent_fingers = meta.get("accent_fingers", DEFAULT_ACCENT_FINGERS) if ACCENT_SLOT in textures else ()
    if not isinstance(accent_fingers, (list, tuple)) or len(accent_fingers) > len(FINGER_SLOTS):
        raise StyleError("STYLE_FOLDER_INVALID", f"{folder}: accent_fingers must be a list of at most 5 fingers")
    content = StyleContent(
        nail_textures=textures,
        preview=_read_bounded(folder / PREVIEW_FILE, MAX_TEXTURE_BYTES),
        accent_fingers=tuple(accent_fingers),
    )
    return StyleFolder(name=_name(meta, folder), content=content, design=_design(meta, folder),
                       seed=_seed(meta, folder), price_minor=_price(meta, folder, currency_code))


def _price(meta: dict[str, Any], folder: Path, currency_code: str) -> int | None:
    if meta.get("price") is None:
        return None
    try:
        return parse_price(meta["price"], currency_code)
    except StyleError as exc:
        raise StyleError("STYLE_FOLDER_INVALID", f"{folder / STYLE_JSON}: price: {exc.detail}") from None


def _name(meta: dict[str, Any], folder: Path) -> str:
    name = meta.get("name")
    if name is None or name == "":
        name = folder.name
    if not isinstance(name, str):
        raise StyleError("STYLE_FOLDER_INVALID", f"{folder / STYLE_JSON}: name must be text")
    name = " ".join(name.split())  # no line breaks or control spacing in a name shown on one line
    if len(name) > MAX_NAME_CHARS:
        raise StyleError("STYLE_FOLDER_INVALID", f"{folder / STYLE_JSON}: name is {len(name)} characters "
                                                 f"(limit {MAX_NAME_CHARS})")
    return name[:MAX_NAME_CHARS]


def _design(meta: dict[str, Any], folder: Path) -> dict[str, Any] | None:
    design = meta.get("design")
    if not isinstance(design, dict):
        return None
    size = len(json.dumps(design, ensure_ascii=False))
    if size > MAX_DESIGN_CHARS:
        raise StyleError("STYLE_FOLDER_INVALID", f"{folder / STYLE_JSON}: design is {size} characters "
                                                 f"(limit {MAX_DESIGN_CHARS})")
    return design


def _seed(meta: dict[str, Any], folder: Path) -> int | None:
    seed = meta.get("seed")
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise StyleError("STYLE_FOLDER_INVALID", f"{folder / STYLE_JSON}: seed must be an integer 0..2^63-1")
    return seed


def _read_bounded(path: Path, limit: int) -> bytes | None:
    """The bytes of `path` (None if there is no such file), refusing links, special files and anything over
    `limit` bytes before reading it. Opened without following links and without blocking (a FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        if path.is_symlink():
            raise StyleError("STYLE_FOLDER_INVALID", f"{path}: is a link; copy the file itself in") from None
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP or path.is_symlink():
            raise StyleError("STYLE_FOLDER_INVALID", f"{path}: is a link; copy the file itself in") from None
        if exc.errno == errno.EISDIR:
            raise StyleError("STYLE_FOLDER_INVALID", f"{path}: not a regular file") from None
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: cannot open ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise StyleError("STYLE_FOLDER_INVALID", f"{path}: not a regular file")
        if info.st_size > limit:
            raise StyleError("STYLE_FOLDER_INVALID", f"{path}: {info.st_size:,} bytes (limit {limit:,})")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)  # the file may grow after fstat
    except OSError as exc:
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: cannot read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: over {limit:,} bytes")
    return data


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
    raw = _read_bounded(path, MAX_STYLE_JSON_BYTES)
    if raw is None:
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: not UTF-8 text") from None
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        # Numbers with a fraction are read as Decimal, so a price is exact; every other one goes back to float.
        meta = json.loads(text, parse_int=_bounded_int, parse_float=_bounded_decimal, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:  # its message names a position, not the text
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: not JSON ({exc.msg} at line {exc.lineno} "
                                                 f"column {exc.colno})") from None
    except ValueError as exc:
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: {exc}") from None
    if not isinstance(meta, dict):
        raise StyleError("STYLE_FOLDER_INVALID", f"{path}: not an object")
    return {key: value if key == "price" else _floats(value) for key, value in meta.items()}


def _floats(value: Any) -> Any:
    """Decimals back to floats (the design's numbers are floats to the renderer); depth is bounded already."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {key: _floats(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_floats(item) for item in value]
    return value


def _bounded_decimal(text: str) -> Decimal:
    if len(text) > 2 * MAX_INT_DIGITS:
        raise ValueError(f"a number of {len(text)} characters (limit {2 * MAX_INT_DIGITS})")
    return Decimal(text)


def json_depth(text: str) -> int:
    """The deepest nesting of [ and { outside strings (counted before parsing, so no parser recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(digits.lstrip('-'))} digits (limit {MAX_INT_DIGITS})")
    return int(digits)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")
