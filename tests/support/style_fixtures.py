"""Helpers shared by the style-domain tests: real images, style folders and small catalogs on disk, and the small
texture size the rendering tests paint at."""

from __future__ import annotations

import io
import json
from pathlib import Path

from PIL import Image

from nailmirror_desktop.adapters.style_store import open_style_repository
from nailmirror_desktop.core.catalog import StyleRepository

SMALL_TEXTURE = (64, 96)  # (width, height): small textures keep the rendering tests fast


def image_bytes(size=(48, 72), color=(240, 220, 210, 255), fmt="PNG") -> bytes:
    mode = "RGB" if fmt == "JPEG" else "RGBA"
    image = Image.new(mode, size, color[: len(mode)])
    # A little structure so different colours give different files and JPEG has real content.
    for x in range(0, size[0], 7):
        image.putpixel((x, x % size[1]), (10, 20, 30, 255)[: len(mode)])
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


def make_style_folder(folder: Path, name="奶白贝壳", accent=("ring",), base=(245, 235, 225, 255),
                      accent_color=(200, 40, 80, 255), preview=True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nail.png").write_bytes(image_bytes(color=base))
    meta = {"name": name, "design": {"base": "milky_white"}, "seed": 7}
    if accent:
        (folder / "accent.png").write_bytes(image_bytes(color=accent_color))
        meta["accent_fingers"] = list(accent)
    if preview:
        (folder / "preview.png").write_bytes(image_bytes(size=(400, 300), color=base))
    (folder / "style.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    return folder


CATEGORIES = [("solid", "纯色", "Solid"), ("french", "法式", "French"), ("glitter", "闪粉", "Glitter")]


def make_catalog(folder: Path, count=6) -> Path:
    styles = []
    for i in range(count):
        code = f"style-{i:02d}"
        category = CATEGORIES[i % len(CATEGORIES)]
        make_style_folder(folder / code, name=f"款式{i}", accent=("ring",) if i % 2 else (),
                          base=(200 + i, 180 + 3 * i, 170, 255))
        styles.append({
            "code": code, "name_zh": f"款式{i}", "name_en": f"Style {i}",
            "category": {"code": category[0], "name_zh": category[1], "name_en": category[2]},
            "tags": ["通勤"] if i % 2 else ["约会", "通勤"], "prompt": f"prompt {i}", "seed": i,
        })
    (folder / "catalog.json").write_text(json.dumps({"styles": styles}, ensure_ascii=False), encoding="utf-8")
    return folder


def repository(load_catalog=False) -> StyleRepository:
    """A repository over the test's own data directory (NAILMIRROR_HOME from conftest)."""
    return open_style_repository(load_catalog=load_catalog)
