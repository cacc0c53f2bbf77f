"""Provider results → style content: the quality screen and how a remote swatch becomes nail textures."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nailmirror_desktop.adapters.providers.artwork import make_artwork, quality_problem
from nailmirror_desktop.artwork.render import render_design
from nailmirror_desktop.core.catalog.content import FINGER_SLOTS
from nailmirror_desktop.core.generation.prompt_parser import parse_prompt
from nailmirror_desktop.core.generation.provider_port import ImageFailure, ProviderError, ProviderImage, ProviderResult
from tests.support.fake_providers import blank_png, swatch_png

DESIGN = parse_prompt("奶白色底胶、贝壳碎片、无名指跳色")


def decoded(png: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)


def test_quality_screen():
    assert quality_problem(decoded(swatch_png())) is None
    assert quality_problem(np.full((512, 512, 3), 255, np.uint8)) == "result_blank"
    assert quality_problem(np.zeros((512, 512, 3), np.uint8)) == "result_blank"
    assert quality_problem(np.full((512, 512, 3), (40, 40, 180), np.uint8)) == "result_uniform"
    assert quality_problem(decoded(swatch_png(size=200))) == "result_too_small"


def test_a_lit_single_colour_polish_is_not_called_uniform():
    # A plain red polish photographed under a soft light: one colour, but shaded across the frame.
    y = np.linspace(0.75, 1.15, 512, dtype=np.float32)[:, None, None]
    polish = np.clip(np.array([40, 40, 190], np.float32) * y * np.ones((512, 512, 3), np.float32), 0, 255)
    assert quality_problem(polish.astype(np.uint8)) is None


def test_a_swatch_becomes_five_finger_textures_and_a_preview():
    result = ProviderResult(images=(ProviderImage(data=swatch_png(seed=2)),), provider="openai")
    artwork = make_artwork(result, DESIGN, seed=7)
    slots = set(artwork.content.nail_textures)
    # Five crops, one per finger; the middle finger's is the base ('nail'), the others differ from it.
    assert slots == {"nail", *FINGER_SLOTS} - {"middle"}
    assert artwork.content.covers_every_finger() and artwork.content.preview is not None
    textures = {slot: decoded(data) for slot, data in artwork.content.nail_textures.items()}
    assert all(t.shape[0] > t.shape[1] for t in textures.values())  # nail-shaped: taller than wide
    assert len({t.tobytes() for t in textures.values()}) == 5


def test_the_first_usable_image_wins_and_refusals_are_counted():
    result = ProviderResult(
        images=(ProviderImage(data=blank_png()), ProviderImage(data=swatch_png(seed=3))),
        failures=(ImageFailure("DataInspectionFailed"),),
    )
    artwork = make_artwork(result, DESIGN, seed=1)
    assert artwork.refused_images == 2


def test_no_usable_image_raises_the_first_problem():
    result = ProviderResult(images=(ProviderImage(data=blank_png()), ProviderImage(data=swatch_png(size=128))))
    with pytest.raises(ProviderError) as caught:
        make_artwork(result, DESIGN, seed=1)
    assert caught.value.code == "result_blank"


def test_offline_textures_keep_the_accent_slot():
    rendered = render_design(DESIGN, seed=5)
    artwork = make_artwork(ProviderResult(rendered=rendered, provider="offline"), DESIGN, seed=5)
    assert set(artwork.content.nail_textures) == {"nail", "accent"}
    assert artwork.content.accent_fingers == ("ring",)
