"""Offline nail-art renderer: determinism, accents, the preview card, nail-shape masks, swatch cropping, the style
folder and the starter catalog it made. (The finish and pattern painters are in test_painters.py.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from nailmirror_desktop.artwork.render import (
    nail_shape_mask,
    render_design,
    rendered_from_textures,
    textures_from_swatch,
    write_style_folder,
)
from nailmirror_desktop.core.catalog.starter import read_catalog
from nailmirror_desktop.core.generation.design import Design
from nailmirror_desktop.core.generation.prompt_parser import parse_prompt
from nailmirror_desktop.vision.paint.style_textures import load_style
from nailmirror_desktop.vision.types import Finger
from tests.support.style_fixtures import SMALL_TEXTURE

SMALL_PREVIEW = (240, 160)
ACCENT_PROMPT = "奶白色底，无名指跳色酒红猫眼，其余贝壳碎片加细闪，磨砂封层"


def _render(prompt: str, seed: int = 3):
    return render_design(parse_prompt(prompt), seed, texture_size=SMALL_TEXTURE, preview_size=SMALL_PREVIEW)


def test_same_design_and_seed_give_bit_identical_output() -> None:
    first, second = _render(ACCENT_PROMPT, 11), _render(ACCENT_PROMPT, 11)
    for finger in Finger:
        assert np.array_equal(first.textures[finger], second.textures[finger])
    assert np.array_equal(first.preview, second.preview)


def test_different_seeds_differ() -> None:
    a, b = _render(ACCENT_PROMPT, 1), _render(ACCENT_PROMPT, 2)
    assert not np.array_equal(a.base_texture, b.base_texture)


def test_textures_cover_all_fingers_and_the_accent_differs() -> None:
    rendered = _render(ACCENT_PROMPT)
    assert set(rendered.textures) == set(Finger)
    assert rendered.accent_fingers == (Finger.RING,)
    ring = rendered.textures[Finger.RING]
    for finger in (Finger.THUMB, Finger.INDEX, Finger.MIDDLE, Finger.PINKY):
        assert np.array_equal(rendered.textures[finger], rendered.base_texture)
    assert np.abs(ring.astype(int) - rendered.base_texture.astype(int)).mean() > 20
    # the burgundy accent is much darker than the milky white nails
    assert ring[..., :3].mean() < rendered.base_texture[..., :3].mean() - 60


def test_adding_an_accent_leaves_the_other_nails_unchanged() -> None:
    plain = _render("奶白色 贝壳碎片", 5)
    with_accent = _render("奶白色 贝壳碎片 无名指跳色", 5)
    assert np.array_equal(plain.base_texture, with_accent.base_texture)


def test_preview_is_a_bgr_card_of_the_requested_size() -> None:
    rendered = render_design(parse_prompt("酒红猫眼"), 1, texture_size=SMALL_TEXTURE, preview_size=(384, 256))
    assert rendered.preview.shape == (256, 384, 3) and rendered.preview.dtype == np.uint8
    # the nails (dark burgundy) stand out from the light background
    assert rendered.preview[128, 192].mean() < 120 and rendered.preview[5, 5].mean() > 180


@pytest.mark.parametrize("shape", ["square", "squoval", "round", "oval", "almond", "stiletto", "coffin"])
def test_nail_shape_masks(shape: str) -> None:
    mask = nail_shape_mask(60, 90, shape)
    assert mask.shape == (90, 60) and mask.min() >= 0.0 and mask.max() <= 1.0
    assert mask[45, 30] == 1.0 and mask[45, 0] < 0.5 + 0.5 and mask[0, 0] < 0.5
    assert 0.4 < mask.mean() < 0.95


def test_textures_from_swatch_gives_five_nail_aspect_tiles_that_vary() -> None:
    rng = np.random.Generator(np.random.PCG64(0))
    swatch = cv2.GaussianBlur(rng.integers(0, 255, (512, 512, 3), dtype=np.uint8), (0, 0), 6)
    swatch[:60] = 255  # a white "French tip" band along the top edge
    textures = textures_from_swatch(swatch, texture_size=(128, 192))
    assert set(textures) == set(Finger)
    for texture in textures.values():
        assert texture.shape == (192, 128, 4) and (texture[..., 3] == 255).all()
        assert texture[:5, :, :3].min() > 240  # the tip band stays at the top
    assert not np.array_equal(textures[Finger.THUMB], textures[Finger.PINKY])


def test_textures_from_swatch_keeps_alpha_and_refuses_bad_input() -> None:
    swatch = np.full((100, 300, 4), 200, np.uint8)
    swatch[..., 3] = 128
    assert all((t[..., 3] == 128).all() for t in textures_from_swatch(swatch, (32, 48)).values())
    with pytest.raises(ValueError):
        textures_from_swatch(np.zeros((20, 20, 3), np.uint8))
    with pytest.raises(ValueError):
        textures_from_swatch(np.zeros((100, 100), np.uint8))


def test_style_folder_round_trips_through_the_tryon_loader(tmp_path) -> None:
    rendered = _render(ACCENT_PROMPT)
    folder = write_style_folder(rendered, tmp_path / "style", name="奶白贝壳")
    files = sorted(p.name for p in folder.iterdir())
    assert files == ["accent.png", "nail.png", "preview.png", "style.json"]
    meta = json.loads((folder / "style.json").read_text(encoding="utf-8"))
    assert meta["name"] == "奶白贝壳" and meta["accent_fingers"] == ["ring"]
    assert Design.from_dict(meta["design"]) == rendered.design
    loaded = load_style(folder)
    assert loaded.name == "奶白贝壳"
    for finger in Finger:
        assert np.array_equal(loaded.texture_for(finger), rendered.textures[finger]), finger
    preview = cv2.imread(str(folder / "preview.png"))
    assert np.array_equal(preview, rendered.preview)


def test_style_folder_without_accents_and_with_two_accent_designs(tmp_path) -> None:
    plain = _render("裸粉色法式")
    folder = write_style_folder(plain, tmp_path / "plain")
    assert sorted(p.name for p in folder.iterdir()) == ["nail.png", "preview.png", "style.json"]
    assert "accent_fingers" not in json.loads((folder / "style.json").read_text(encoding="utf-8"))
    assert all(np.array_equal(load_style(folder).texture_for(f), plain.base_texture) for f in Finger)

    two = _render("奶白色，无名指酒红，食指金箔")
    assert not np.array_equal(two.textures[Finger.RING], two.textures[Finger.INDEX])
    folder = write_style_folder(two, tmp_path / "plain")  # rewriting over the plain style
    loaded = load_style(folder)
    for finger in Finger:
        assert np.array_equal(loaded.texture_for(finger), two.textures[finger]), finger


def test_swatch_style_folder_writes_per_finger_overrides(tmp_path) -> None:
    swatch = np.zeros((300, 400, 3), np.uint8)
    swatch[:, :, 1] = np.linspace(0, 255, 400, dtype=np.uint8)[None, :]
    textures = textures_from_swatch(swatch, (32, 48))
    rendered = rendered_from_textures(textures, parse_prompt("green ombre"), preview_size=SMALL_PREVIEW)
    folder = write_style_folder(rendered, tmp_path / "remote")
    names = sorted(p.name for p in folder.iterdir())
    assert "accent.png" not in names and "middle.png" not in names and "thumb.png" in names
    loaded = load_style(folder)
    for finger in Finger:
        assert np.array_equal(loaded.texture_for(finger), textures[finger])


# ---------------------------------------------------------------------------------------------- starter catalog

CATALOG = Path(__file__).resolve().parents[2] / "resources" / "starter_catalog"


def _catalog_entries() -> list[dict]:
    return json.loads((CATALOG / "catalog.json").read_text(encoding="utf-8"))["styles"]


def test_starter_catalog_index_is_complete_and_small() -> None:
    entries = _catalog_entries()
    assert len(entries) >= 24
    assert len({e["category"]["code"] for e in entries}) >= 5
    codes = [e["code"] for e in entries]
    assert len(set(codes)) == len(codes)
    assert all(re.fullmatch(r"NM-[A-Z]{3}-\d{3}", code) for code in codes)
    for entry in entries:
        assert entry["name_zh"] and entry["name_en"] and entry["prompt"] and isinstance(entry["seed"], int)
        assert entry["category"]["name_zh"] and entry["category"]["name_en"]
        assert all(tag["code"] and tag["name_zh"] and tag["name_en"] for tag in entry["tags"])
    total = sum(p.stat().st_size for p in CATALOG.rglob("*") if p.is_file())
    assert total < 6 * 1024 * 1024
    # the catalog loader of the style domain reads the same index
    assert [e.code for e in read_catalog(CATALOG)] == codes


def test_starter_catalog_styles_load_for_tryon_and_match_their_prompts() -> None:
    for entry in _catalog_entries():
        folder = CATALOG / entry["folder"]
        loaded = load_style(folder)
        assert loaded.name == entry["name_zh"]
        assert all(loaded.texture_for(f).shape[2] == 4 for f in Finger)
        meta = json.loads((folder / "style.json").read_text(encoding="utf-8"))
        assert Design.from_dict(meta["design"]) == parse_prompt(entry["prompt"]), entry["code"]
        preview = cv2.imread(str(folder / "preview.png"))
        assert preview is not None and preview.shape[2] == 3 and preview.std() > 5


def test_starter_catalog_is_what_the_generator_makes() -> None:
    """Re-render a few catalog styles and compare pixels (tolerant of float rounding on other CPUs)."""
    for entry in _catalog_entries()[::7]:
        folder = CATALOG / entry["folder"]
        nail = cv2.imread(str(folder / "nail.png"), cv2.IMREAD_UNCHANGED)
        rendered = render_design(parse_prompt(entry["prompt"]), entry["seed"],
                                 texture_size=(nail.shape[1], nail.shape[0]), preview_size=SMALL_PREVIEW)
        assert np.abs(rendered.base_texture.astype(int) - nail.astype(int)).mean() < 0.5, entry["code"]
