"""A stored style as a style folder, so try-on (`nailmirror tryon --style CODE`) loads it like any other folder.

The folder holds the style's current NAIL_TEXTURE assets (`nail.png`, per-finger files), its cover as
`preview.png`, and `style.json` (with the style's design when it has one: try-on paints its finish, French tip
and half-moon from it — vision/paint/polish.py). It is written once per content version under
`data_dir()/try_on/<code>-v<N>/` (built in a temporary folder and renamed into place, so a reader never sees half
of one) and reused afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nailmirror_desktop.core.catalog.assets import AssetStore
from nailmirror_desktop.core.catalog.content import write_style_folder
from nailmirror_desktop.core.catalog.errors import StyleError
from nailmirror_desktop.core.catalog.repository import AssetType, StyleRepository
from nailmirror_desktop.core.nail_form import NailForm, recommended_form
from nailmirror_desktop.core.paths import data_dir, private_dir


@dataclass(frozen=True)
class TryOnAssets:
    """Paths inside the asset store (read-only; formats as stored)."""

    style_code: str
    name: str
    accent_fingers: tuple[str, ...]
    textures: dict[str, Path]  # slot ('nail', 'thumb', …) → stored file
    preview: Path | None
    # the style's design (core.generation.design.Design.to_dict() form) from its design_json, None without one
    design: dict[str, Any] | None = None
    # the shape and length its design names (the designer's choice), also for a style.json whose design holds
    # only those two words (a style folder of textures: no colours for the renderer)
    recommended: NailForm | None = None


def try_on_assets(repo: StyleRepository, style_code: str) -> TryOnAssets:
    """The current textures of a style. Raises StyleNotFound, or StyleError(NO_NAIL_TEXTURE)."""
    store = repo.require_store()
    style = repo.get_by_code(style_code)
    assets = repo.assets(style.id)
    textures = {a.slot: store.path_of(a.storage_path) for a in assets if a.asset_type == AssetType.NAIL_TEXTURE}
    if not textures:
        raise StyleError("NO_NAIL_TEXTURE", style.style_code)
    cover = next((a for a in assets if a.id == style.cover_asset_id), None)
    return TryOnAssets(style.style_code, style.name, style.accent_fingers, textures,
                       store.path_of(cover.storage_path) if cover else None, stored_design(style.design_json),
                       recommended_form(_raw_design(style.design_json)))


def _raw_design(design_json: str | None) -> dict[str, Any] | None:
    """The design dict in design_json whatever it holds (stored_design keeps only a renderer's full design)."""
    try:
        data = json.loads(design_json) if design_json else None
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("design"), dict):
        data = data["design"]
    return data if isinstance(data, dict) else None


def stored_design(design_json: str | None) -> dict[str, Any] | None:
    """The design dict a style's design_json holds: the design itself (generated styles) or the one under
    "design" (style folders, the starter catalog). None when there is none or it is not JSON."""
    if not design_json:
        return None
    try:
        data = json.loads(design_json)
    except ValueError:
        return None
    if isinstance(data, dict) and isinstance(data.get("design"), dict):
        data = data["design"]
    return data if isinstance(data, dict) and "base_color" in data else None


def export_style_folder(repo: StyleRepository, style_code: str, destination: Path | None = None) -> Path:
    """Write (or reuse) the style folder of the style's current version and return its path."""
    store = repo.require_store()
    style = repo.get_by_code(style_code)
    assets = try_on_assets(repo, style.style_code)
    default_folder = data_dir() / "try_on" / f"{style.style_code}-v{style.content_version}"
    folder = Path(destination) if destination else default_folder
    if destination is None and (folder / "style.json").is_file():
        return folder
    if destination is not None and folder.exists() and any(folder.iterdir()):
        raise StyleError("DESTINATION_NOT_EMPTY", str(folder))  # never delete what the caller pointed us at
    if destination is None:
        private_dir(folder.parent)  # the data directory's own cache: owner-only
    else:
        folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".export-"))
    try:
        write_style_folder(
            staging,
            style.name,
            {slot: _as_png(store, path) for slot, path in assets.textures.items()},
            _as_png(store, assets.preview) if assets.preview else None,
            assets.accent_fingers,
        )
        if assets.design is not None:
            _add_design(staging / "style.json", assets.design)
        if folder.exists():  # our own cache folder left half-made by a crash, or an empty destination
            shutil.rmtree(folder)
        os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return folder


def _as_png(store: AssetStore, path: Path) -> bytes:
    data = path.read_bytes()
    return data if path.suffix == ".png" else store.probe.to_png(data)


def _add_design(style_json: Path, design: dict[str, Any]) -> None:
    meta = json.loads(style_json.read_text(encoding="utf-8"))
    meta["design"] = design
    style_json.write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
