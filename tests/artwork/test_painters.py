"""The nail painters: each finish and each pattern or decoration painted onto one nail texture."""

from __future__ import annotations

import numpy as np
import pytest

from nailmirror_desktop.artwork.painters import DECORATION_PAINTERS, PATTERN_PAINTERS, render_nail_texture
from nailmirror_desktop.core.generation.design import FingerDesign, Pattern, make_color
from tests.support.style_fixtures import SMALL_TEXTURE


def _texture(finish: str = "gloss", patterns: tuple[Pattern, ...] = (), color: str = "dusty_rose") -> np.ndarray:
    design = FingerDesign(base_color=make_color(color), finish=finish, patterns=patterns)
    return render_nail_texture(design, np.random.Generator(np.random.PCG64(4)), SMALL_TEXTURE)


def _assert_valid(texture: np.ndarray) -> None:
    assert texture.shape == (SMALL_TEXTURE[1], SMALL_TEXTURE[0], 4) and texture.dtype == np.uint8
    assert texture[..., :3].std() > 2.0  # not a flat fill


FINISHES = ["gloss", "matte", "chrome", "metallic", "cat_eye", "jelly", "pearl", "aurora", "shimmer", "mother_of_pearl"]


@pytest.mark.parametrize("finish", FINISHES)
def test_each_finish_renders_non_uniform_rgba(finish: str) -> None:
    texture = _texture(finish)
    _assert_valid(texture)
    if finish != "jelly":
        assert (texture[..., 3] == 255).all()


def test_finishes_look_different_from_each_other() -> None:
    textures = {finish: _texture(finish).astype(int) for finish in FINISHES}
    for a in FINISHES:
        for b in FINISHES:
            if a < b:
                assert np.abs(textures[a] - textures[b]).mean() > 1.0, (a, b)


def test_jelly_is_translucent_but_its_paint_is_opaque() -> None:
    plain = _texture("jelly")
    assert plain[..., 3].max() < 255 and plain[..., 3].min() > 80
    with_dots = _texture("jelly", (Pattern("dots", make_color("white")),))
    assert with_dots[..., 3].max() == 255  # the dots themselves are opaque


def test_gloss_has_a_highlight_and_matte_does_not() -> None:
    gloss, matte = _texture("gloss"), _texture("matte")
    gloss_peak = np.percentile(gloss[..., :3].astype(int).sum(axis=2), 99)
    matte_peak = np.percentile(matte[..., :3].astype(int).sum(axis=2), 99)
    assert gloss_peak > matte_peak + 60


@pytest.mark.parametrize("kind", sorted((set(PATTERN_PAINTERS) | set(DECORATION_PAINTERS)) - {"solid"}))
def test_each_pattern_renders_and_changes_the_nail(kind: str) -> None:
    plain = _texture()
    texture = _texture(patterns=(Pattern(kind),))
    _assert_valid(texture)
    changed = np.abs(texture.astype(int) - plain.astype(int)).max(axis=2) > 12
    assert changed.mean() > 0.01, kind


def test_french_tip_is_at_the_top_edge() -> None:
    texture = _texture(patterns=(Pattern("french", make_color("white")),))
    top, bottom = texture[2, SMALL_TEXTURE[0] // 2, :3], texture[-3, SMALL_TEXTURE[0] // 2, :3]
    assert top.min() > 200 and bottom.mean() < top.mean() - 40


def test_pattern_colour_is_used() -> None:
    texture = _texture(patterns=(Pattern("dots", make_color("klein_blue")),), color="milky_white")
    blue_pixels = (texture[..., 0] > 120) & (texture[..., 2] < 60)  # BGR: strong blue, little red
    assert blue_pixels.mean() > 0.03
