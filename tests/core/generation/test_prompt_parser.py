"""Prompt parser: a table of Chinese and English prompts with their expected structure."""

from __future__ import annotations

import json

import pytest

from nailmirror_desktop.core.generation.prompt_parser import (
    Design,
    english_prompt,
    make_color,
    negative_prompt,
    parse_prompt,
)

# (prompt, expected fields); only the fields named are checked. "accents" maps finger → (colour id or None,
# finish or None, pattern kinds).
CASES = [
    ("奶白色底胶、贝壳碎片、无名指跳色", {
        "base": "milky_white", "finish": "gloss", "patterns": ("shell_flakes",),
        "accents": {"ring": ("dusty_rose", None, ())}, "unknown": ()}),
    ("奶白色底，无名指跳色酒红猫眼，其余贝壳碎片加细闪，磨砂封层", {
        "base": "milky_white", "finish": "matte", "patterns": ("shell_flakes", "glitter"),
        "accents": {"ring": ("burgundy", "cat_eye", ())}}),
    ("milky white base with gold glitter, accent on ring and index", {
        "base": "milky_white", "patterns": ("glitter",), "pattern_colors": {"glitter": "gold"},
        "accents": {"ring": ("dusty_rose", None, ()), "index": ("dusty_rose", None, ())}}),
    ("不要闪粉，裸粉色法式", {"base": "nude_pink", "patterns": ("french",), "excluded": ("glitter",)}),
    ("nude french tips, no glitter", {"base": "nude", "patterns": ("french",), "excluded": ("glitter",)}),
    ("豆沙色 闪粉 但是不要闪粉", {"base": "dusty_rose", "patterns": (), "excluded": ("glitter",), "unknown": ()}),
    ("无闪粉 豆沙色", {"base": "dusty_rose", "patterns": (), "excluded": ("glitter",)}),
    ("不规则线条 黑色", {"patterns": ("lines",), "excluded": ()}),  # 不 only negates what follows at once
    ("without any rhinestones, black chrome", {"base": "black", "excluded": ("rhinestones",), "patterns": ()}),
    ("black chrome without rhinestones", {"base": "black", "finish": "chrome", "excluded": ("rhinestones",)}),
    ("酒紅色貓眼 短 杏仁形", {"base": "burgundy", "finish": "cat_eye", "shape": "almond", "length": "short"}),
    ("long coffin nails, pastel pink jelly with tiny hearts", {
        "base": "pink", "base_tone": "light", "finish": "jelly", "patterns": ("hearts",), "shape": "coffin",
        "length": "long"}),
    ("粉色到白色渐变", {"base": "pink", "patterns": ("ombre",), "pattern_colors": {"ombre": "white"}}),
    ("金色细闪 白色法式", {"patterns": ("glitter", "french"), "pattern_colors": {"glitter": "gold", "french": "white"},
                      "variants": {"glitter": "fine"}}),
    ("white marble with gold lines", {"base": "white", "patterns": ("marble", "lines"),
                                      "pattern_colors": {"lines": "gold"}}),
    ("薄荷绿底 白色小花 食指金箔", {"base": "mint", "patterns": ("florals",), "pattern_colors": {"florals": "white"},
                             "accents": {"index": (None, None, ("foil_flakes",))}}),
    ("无名指、中指跳色", {"accents": {"ring": ("dusty_rose", None, ()), "middle": ("dusty_rose", None, ())}}),
    ("奶白色、小熊图案", {"base": "milky_white", "unknown": ("小熊",)}),
    ("cute bear charms on light pink", {"base": "pink", "unknown": ("bear charms",)}),
    ("圣诞 跳色", {"base": "red", "themes": ("christmas",), "accents": {"ring": ("forest_green", None, ())}}),
    ("雾霾蓝 珍珠光 水钻", {"base": "dusty_blue", "finish": "pearl", "patterns": ("rhinestones",)}),
    ("深蓝色星空", {"base": "blue", "base_tone": "dark", "patterns": ("galaxy",)}),
    ("ＭＩＬＫＹ　ＷＨＩＴＥ ＭＡＴＴＥ", {"base": "milky_white", "finish": "matte"}),  # full-width input
    ("bored red", {"base": "red", "unknown": ("bored",)}),  # 'red' inside 'bored' is not a colour
]


def _check(design: Design, expected: dict) -> None:
    if "base" in expected:
        assert design.base_color.id == expected["base"]
    if "base_tone" in expected:
        assert design.base_color.tone == expected["base_tone"]
    if "finish" in expected:
        assert design.finish == expected["finish"]
    if "patterns" in expected:
        assert design.pattern_kinds == expected["patterns"]
    for kind, color_id in expected.get("pattern_colors", {}).items():
        pattern = next(p for p in design.patterns if p.kind == kind)
        assert pattern.color is not None and pattern.color.id == color_id
    for kind, variant in expected.get("variants", {}).items():
        assert next(p for p in design.patterns if p.kind == kind).variant == variant
    for key in ("shape", "length"):
        if key in expected:
            assert getattr(design, key) == expected[key]
    if "excluded" in expected:
        assert design.excluded == expected["excluded"]
    if "themes" in expected:
        assert design.themes == expected["themes"]
    if "unknown" in expected:
        assert design.unknown_terms == expected["unknown"]
    if "accents" in expected:
        got = {
            a.finger: (a.design.base_color.id if a.design.base_color else None, a.design.finish,
                       tuple(p.kind for p in a.design.patterns))
            for a in design.accents
        }
        assert got == expected["accents"]


@pytest.mark.parametrize("prompt, expected", CASES, ids=[c[0] for c in CASES])
def test_prompt_table(prompt: str, expected: dict) -> None:
    _check(parse_prompt(prompt), expected)


def test_accent_finger_resolves_to_its_own_design_and_inherits_the_rest() -> None:
    design = parse_prompt("奶白色底，无名指跳色酒红猫眼，其余贝壳碎片加细闪，磨砂封层")
    ring, middle = design.finger_design("ring"), design.finger_design("middle")
    assert (ring.base_color.id, ring.finish, ring.patterns) == ("burgundy", "cat_eye", ())
    assert (middle.base_color.id, middle.finish) == ("milky_white", "matte")
    assert [p.kind for p in middle.patterns] == ["shell_flakes", "glitter"]
    plain_accent = parse_prompt("奶白色 无名指金箔").finger_design("ring")
    assert plain_accent.base_color.id == "milky_white" and [p.kind for p in plain_accent.patterns] == ["foil_flakes"]


def test_no_colour_named_gives_a_default_base_and_finish() -> None:
    design = parse_prompt("")
    assert design.base_color.id == "nude_pink" and design.finish == "gloss"
    assert design.patterns == () and design.accents == () and design.unknown_terms == ()


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


def test_english_prompt_asks_for_a_flat_swatch_and_carries_everything() -> None:
    design = parse_prompt("奶白色底，无名指跳色酒红猫眼，其余贝壳碎片加细闪，磨砂封层，小熊图案，不要水钻")
    text = english_prompt(design)
    assert text.isascii() is False  # the unknown Chinese words are passed on verbatim
    for words in ("Flat, front-on", "milky white", "matte", "shell flakes", "fine glitter", "ring finger",
                  "burgundy", "cat-eye", "小熊", "Avoid: rhinestones", "no hands", "no text"):
        assert words in text, words
    assert "nail tip" in text


def test_long_unknown_text_cannot_push_the_framing_out_of_the_prompt() -> None:
    text = english_prompt(parse_prompt("奶白色 " + "小熊图案很多很多" * 80 + "，不要水钻"))
    assert len(text) < 800 and "no hands" in text and "Avoid: rhinestones" in text


def test_negative_prompt_lists_exclusions() -> None:
    negative = negative_prompt(parse_prompt("不要闪粉 no rhinestones 红色"))
    assert "hands" in negative and "glitter" in negative and "rhinestones" in negative


def test_english_prompt_is_plain_ascii_for_english_input() -> None:
    text = english_prompt(parse_prompt("short almond nails, black and gold marble"))
    assert text.isascii()
    assert "black" in text and "marble" in text and "short almond" in text
