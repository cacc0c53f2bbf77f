"""The design model: resolving a finger's design, colour tones, and the JSON round trip of task payloads."""

from __future__ import annotations

import json

import pytest

from nailmirror_desktop.core.generation.design import Design, make_color
from nailmirror_desktop.core.generation.prompt_parser import parse_prompt
from tests.support.prompt_cases import CASES


def test_accent_finger_resolves_to_its_own_design_and_inherits_the_rest() -> None:
    design = parse_prompt("奶白色底，无名指跳色酒红猫眼，其余贝壳碎片加细闪，磨砂封层")
    ring, middle = design.finger_design("ring"), design.finger_design("middle")
    assert (ring.base_color.id, ring.finish, ring.patterns) == ("burgundy", "cat_eye", ())
    assert (middle.base_color.id, middle.finish) == ("milky_white", "matte")
    assert [p.kind for p in middle.patterns] == ["shell_flakes", "glitter"]
    plain_accent = parse_prompt("奶白色 无名指金箔").finger_design("ring")
    assert plain_accent.base_color.id == "milky_white" and [p.kind for p in plain_accent.patterns] == ["foil_flakes"]


def test_tones_shift_rgb() -> None:
    plain, light, dark = make_color("pink"), make_color("pink", "light"), make_color("pink", "dark")
    assert sum(light.rgb) > sum(plain.rgb) > sum(dark.rgb)
    assert parse_prompt("浅粉色").base_color == light


@pytest.mark.parametrize("prompt", [c[0] for c in CASES])
def test_round_trip_through_json(prompt: str) -> None:
    design = parse_prompt(prompt)
    restored = Design.from_dict(json.loads(json.dumps(design.to_dict(), ensure_ascii=False)))
    assert restored == design


def test_from_dict_refuses_other_versions_and_malformed_payloads() -> None:
    data = parse_prompt("红色").to_dict()
    with pytest.raises(ValueError, match="design_version_unsupported"):
        Design.from_dict({**data, "version": 99})
    for broken in ({**data, "base_color": None}, {**data, "base_color": {"id": "red"}},
                   {**data, "patterns": [{"color": None}]}, {**data, "accents": [{"finger": "ring", "patterns": 3}]},
                   [], {}):
        with pytest.raises(ValueError, match="design_invalid"):
            Design.from_dict(broken)
