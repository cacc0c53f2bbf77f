"""A stored style exported as a style folder loads in try-on (vision.style_textures) with the right textures."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from nailmirror_desktop.adapters.style_store import resolve_style_argument
from nailmirror_desktop.core.catalog import StyleContent, StyleError, StyleSource
from nailmirror_desktop.core.catalog.try_on_assets import export_style_folder, try_on_assets
from nailmirror_desktop.vision.paint.style_textures import load_style
from nailmirror_desktop.vision.types import Finger
from tests.support.style_fixtures import image_bytes, repository


def _decode(data: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)


def test_exported_folder_loads_with_accent_and_per_finger_textures():
    repo = repository()
    nail, accent, pinky = (image_bytes(color=c) for c in ((240, 230, 220, 255), (150, 20, 60, 255), (1, 90, 200, 255)))
    content = StyleContent({"nail": nail, "accent": accent, "pinky": pinky},
                           image_bytes(size=(200, 100)), ("ring", "middle"))
    style = repo.create_style_with_content("跳色", StyleSource.MANUAL, content, actor="t")
    folder = export_style_folder(repo, style.style_code)
    assert json.loads((folder / "style.json").read_text(encoding="utf-8")) == {
        "name": "跳色", "accent_fingers": ["middle", "ring"]}
    loaded = load_style(folder)
    assert loaded.name == "跳色"
    np.testing.assert_array_equal(loaded.texture_for(Finger.INDEX), _decode(nail))
    np.testing.assert_array_equal(loaded.texture_for(Finger.RING), _decode(accent))
    np.testing.assert_array_equal(loaded.texture_for(Finger.MIDDLE), _decode(accent))
    np.testing.assert_array_equal(loaded.texture_for(Finger.PINKY), _decode(pinky))
    assert (folder / "preview.png").is_file()


def test_style_without_accent_writes_no_accent_key_and_jpeg_becomes_png():
    repo = repository()
    jpeg = image_bytes(size=(60, 90), fmt="JPEG")
    style = repo.create_style_with_content("纯色", StyleSource.MANUAL, StyleContent({"nail": jpeg}), actor="t")
    folder = export_style_folder(repo, style.style_code)
    assert json.loads((folder / "style.json").read_text(encoding="utf-8")) == {"name": "纯色"}
    assert (folder / "nail.png").read_bytes().startswith(b"\x89PNG")
    assert load_style(folder).texture_for(Finger.THUMB).shape[:2] == (90, 60)


def test_export_is_made_once_per_version_and_follows_edits():
    repo = repository()
    style = repo.create_style_with_content("a", StyleSource.MANUAL, StyleContent({"nail": image_bytes()}), actor="t")
    first = export_style_folder(repo, style.style_code)
    stamp = (first / "nail.png").stat().st_mtime_ns
    assert export_style_folder(repo, style.style_code) == first
    assert (first / "nail.png").stat().st_mtime_ns == stamp
    new_nail = image_bytes(color=(0, 0, 250, 255))
    repo.edit_content(style.style_code, StyleContent({"nail": new_nail}), actor="t")
    second = export_style_folder(repo, style.style_code)
    assert second != first and second.name.endswith("-v2")
    np.testing.assert_array_equal(load_style(second).texture_for(Finger.INDEX), _decode(new_nail))


def test_a_style_without_textures_cannot_be_tried_on():
    repo = repository()
    style = repo.create_style("空", StyleSource.MANUAL, actor="t")
    with pytest.raises(StyleError) as info:
        try_on_assets(repo, style.style_code)
    assert info.value.code == "NO_NAIL_TEXTURE"


def test_style_argument_accepts_a_folder_or_a_code(tmp_path):
    repo = repository()
    style = repo.create_style_with_content("a", StyleSource.MANUAL, StyleContent({"nail": image_bytes()}), actor="t")
    assert resolve_style_argument(str(tmp_path), repo) == tmp_path
    folder = resolve_style_argument(style.style_code.lower(), repo)
    assert load_style(folder).name == "a"
    with pytest.raises(StyleError) as info:
        resolve_style_argument("AB-ZZZZZZ", repo)
    assert info.value.code == "STYLE_NOT_FOUND"


def test_export_to_a_chosen_folder_never_overwrites_files(tmp_path):
    repo = repository()
    style = repo.create_style_with_content("a", StyleSource.MANUAL, StyleContent({"nail": image_bytes()}), actor="t")
    target = export_style_folder(repo, style.style_code, tmp_path / "out")
    assert load_style(target).name == "a"
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("mine")
    with pytest.raises(StyleError) as info:
        export_style_folder(repo, style.style_code, tmp_path / "busy")
    assert info.value.code == "DESTINATION_NOT_EMPTY"
    assert (tmp_path / "busy" / "keep.txt").read_text() == "mine"


def test_a_styles_design_reaches_try_on():
    """The finish and layout a style was designed with (its design_json, either form) reach try-on: in
    TryOnAssets.design and in the exported style.json, so the painted look follows them."""

    repo = repository()
    design = {"version": 1, "base_color": {"id": "nude_pink", "rgb": [232, 188, 180], "tone": ""},
              "finish": "jelly", "patterns": [{"kind": "reverse_french", "color": {"id": "burgundy",
                                                                                  "rgb": [112, 18, 40], "tone": ""}}]}
    content = StyleContent({"nail": image_bytes()}, None, ())
    for design_json in (json.dumps(design), json.dumps({"catalog_code": "NM-X", "design": design, "seed": 3})):
        style = repo.create_style_with_content("半月", StyleSource.MANUAL, content, actor="t", design_json=design_json)
        assert try_on_assets(repo, style.style_code).design == design
        folder = export_style_folder(repo, style.style_code)
        assert json.loads((folder / "style.json").read_text(encoding="utf-8"))["design"] == design
        look = load_style(folder).looks[Finger.INDEX]
        assert look.finish.name == "jelly" and look.base_bgr == (180, 188, 232)
        assert look.moon is not None and look.moon.colour_bgr == (40, 18, 112) and look.tip is None
    plain = repo.create_style_with_content("无设计", StyleSource.MANUAL, content, actor="t")
    assert try_on_assets(repo, plain.style_code).design is None
    assert load_style(export_style_folder(repo, plain.style_code)).looks == {}
