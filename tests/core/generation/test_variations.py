"""Versions of one design: main colours a customer tells apart (ΔE00 ≥ 10), never excluded, never hiding a
pattern, each named apart."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from nailmirror_desktop.core.colour_difference import delta_e00_rgb
from nailmirror_desktop.core.generation.naming import style_names
from nailmirror_desktop.core.generation.prompt_parser import parse_prompt
from nailmirror_desktop.core.generation.variations import vary_design

ROOT = Path(__file__).resolve().parents[3]
STARTER_PROMPTS = [s["prompt"] for s in json.loads(
    (ROOT / "resources/starter_catalog/catalog.json").read_text(encoding="utf-8"))["styles"]]
PROMPTS = [*STARTER_PROMPTS, "酒红猫眼", "红", "pink", "黑色", "白色", "透明果冻", "金色 金箔", "深酒红", "nude matte"]


@pytest.mark.parametrize("prompt", PROMPTS)
def test_three_versions_of_a_prompt_differ_by_at_least_10_in_their_main_colour(prompt):
    design = parse_prompt(prompt)
    versions = [vary_design(design, v) for v in range(3)]
    assert versions[0] == design
    for first, second in itertools.combinations(versions, 2):
        assert delta_e00_rgb(first.base_color.rgb, second.base_color.rgb) >= 10
    names = [style_names(v) for v in versions]
    assert len({n.zh for n in names}) == 3 and len({n.en for n in names}) == 3, names


def test_a_version_keeps_the_rest_of_the_design():
    design = parse_prompt("奶白色底胶、贝壳碎片、无名指跳色，杏仁形")
    version = vary_design(design, 2)
    assert (version.finish, version.pattern_kinds, version.accent_fingers, version.shape) == (
        design.finish, design.pattern_kinds, design.accent_fingers, design.shape)


def test_a_colour_the_customer_said_no_to_is_never_a_version():
    design = parse_prompt("酒红猫眼，不要车厘子红，不要可可")
    assert {"cherry_red", "chocolate"} <= set(design.excluded)
    assert all(vary_design(design, v).base_color.id not in design.excluded for v in range(1, 4))


def test_a_version_never_hides_its_pattern_in_the_base():
    design = parse_prompt("金色 金箔")
    for v in range(1, 4):
        base = vary_design(design, v).base_color.rgb
        assert all(delta_e00_rgb(base, p.color.rgb) >= 10 for p in design.patterns if p.color is not None)


def test_a_negative_version_is_refused():
    with pytest.raises(ValueError):
        vary_design(parse_prompt("红"), -1)
