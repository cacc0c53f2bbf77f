"""Prompt parser: a table of Chinese and English prompts with their expected structure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from nailmirror_desktop.core.generation.design import Design
from nailmirror_desktop.core.generation.prompt_parser import TokenKind, normalize, parse_prompt, tokenize

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


# expected key → how to read it from a Design
_FIELDS: dict[str, Callable[[Design], object]] = {
    "base": lambda d: d.base_color.id,
    "base_tone": lambda d: d.base_color.tone,
    "finish": lambda d: d.finish,
    "patterns": lambda d: d.pattern_kinds,
    "shape": lambda d: d.shape,
    "length": lambda d: d.length,
    "excluded": lambda d: d.excluded,
    "themes": lambda d: d.themes,
    "unknown": lambda d: d.unknown_terms,
}


def _check(design: Design, expected: dict[str, Any]) -> None:
    for key, read in _FIELDS.items():
        if key in expected:
            assert read(design) == expected[key], key
    for kind, color_id in expected.get("pattern_colors", {}).items():
        pattern = next(p for p in design.patterns if p.kind == kind)
        assert pattern.color is not None and pattern.color.id == color_id
    for kind, variant in expected.get("variants", {}).items():
        assert next(p for p in design.patterns if p.kind == kind).variant == variant
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


def test_no_colour_named_gives_a_default_base_and_finish() -> None:
    design = parse_prompt("")
    assert design.base_color.id == "nude_pink" and design.finish == "gloss"
    assert design.patterns == () and design.accents == () and design.unknown_terms == ()


def test_tokens_carry_their_kind_and_the_form_s_own_variant() -> None:
    tokens = tokenize(normalize("不要 金色细闪，其余"))
    assert [t.kind for t in tokens] == [TokenKind.NEGATION, TokenKind.COLOR, TokenKind.FILLER, TokenKind.PATTERN,
                                        TokenKind.BREAK, TokenKind.OTHERS]
    assert tokens[3].value == "glitter" and tokens[3].variant == "fine"  # "细闪" is fine glitter by itself
