"""The offline generator's versions of one prompt, as painted: the main colour of the rendered nail differs by
ΔE00 ≥ 10, or, where a pattern covers the nail (a galaxy, a glitter fade), the pattern visibly falls elsewhere."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from nailmirror_desktop.adapters.providers.offline import OfflineProvider
from nailmirror_desktop.core.colour_difference import delta_e00_rgb
from nailmirror_desktop.core.generation.prompt_parser import parse_prompt
from nailmirror_desktop.core.generation.provider_port import GenerationRequest
from tests.core.generation.test_variations import PROMPTS

pytestmark = pytest.mark.slow
PLAIN = {"solid"}  # a design with only these has no pattern to fall elsewhere: its colour must do it
VISIBLY_ELSEWHERE = 12.0  # mean |Δ| of the 8-bit channels between two textures of one pattern


def rendered_versions(prompt: str) -> list[np.ndarray]:
    provider = OfflineProvider()
    results = [provider.generate(GenerationRequest("", prompt, seed=1000 + v, version=v)) for v in range(3)]
    return [r.rendered.base_texture for r in results if r.rendered is not None]


def main_colour(texture: np.ndarray) -> tuple[int, int, int]:
    """The median colour of a (H, W, 4) BGRA texture as 8-bit RGB."""
    b, g, r = np.median(texture[:, :, :3].reshape(-1, 3), axis=0)
    return int(r), int(g), int(b)


@pytest.mark.parametrize("prompt", PROMPTS)
def test_the_versions_of_a_prompt_look_apart_on_the_offline_generator(prompt):
    textures = rendered_versions(prompt)
    design_kinds = set(parse_prompt(prompt).pattern_kinds)
    for first, second in itertools.combinations(textures, 2):
        colour_apart = delta_e00_rgb(main_colour(first), main_colour(second)) >= 10
        if design_kinds <= PLAIN:
            assert colour_apart, prompt
            continue
        placed_apart = np.abs(first[:, :, :3].astype(np.int16) - second[:, :, :3]).mean() >= VISIBLY_ELSEWHERE
        assert colour_apart or placed_apart, prompt
