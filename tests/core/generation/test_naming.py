"""Generated styles are named from what the parser understood, in Chinese and English, never the raw prompt."""

from __future__ import annotations

from nailmirror_desktop.core.generation.naming import NAME_EN_MAX_CHARS, NAME_MAX_CHARS, style_names
from nailmirror_desktop.core.generation.prompt_parser import parse_prompt


def test_a_design_gets_a_chinese_and_an_english_name_from_its_terms():
    names = style_names(parse_prompt("奶白色底胶、贝壳碎片、无名指跳色"))
    assert names.zh == "奶白贝壳碎片·跳色"
    assert names.en == "Milky white iridescent shell flakes + accent"


def test_the_same_design_in_either_language_has_the_same_names():
    english, chinese = parse_prompt("matte burgundy with gold glitter"), parse_prompt("酒红磨砂，金色闪粉")
    assert style_names(english) == style_names(chinese)
    zh = style_names(parse_prompt("酒红磨砂，金色闪粉")).zh
    assert zh == "酒红磨砂金闪粉"


def test_words_the_parser_did_not_understand_never_name_the_style():
    names = style_names(parse_prompt("hello world red"))
    assert "hello" not in names.zh + names.en and "world" not in names.en
    assert names.zh == "正红" and names.en == "Classic red"


def test_tones_and_themes_are_named_and_names_stay_short():
    assert style_names(parse_prompt("浅蓝")).zh == "浅蓝"
    assert style_names(parse_prompt("圣诞")).zh.startswith("圣诞")
    long = style_names(parse_prompt("深酒红猫眼，金色闪粉，白色波点，银色线条，星星，无名指跳色"))
    assert len(long.zh) <= NAME_MAX_CHARS and len(long.en) <= NAME_EN_MAX_CHARS
    assert long.en.endswith("…") and not long.en[:-1].endswith(" ")


def test_a_taken_name_gets_the_designs_details_then_a_number():
    from nailmirror_desktop.core.generation.naming import StyleNames, own_names

    design = parse_prompt("酒红色猫眼，杏仁形长甲")
    plain = style_names(design)
    taken = {plain.zh}
    first = own_names(design, lambda n: n.zh in taken or n.en in taken)
    assert first.zh != plain.zh and first.zh.startswith("酒红猫眼") and "杏仁" in first.zh
    taken |= {"酒红猫眼·杏仁形", "酒红猫眼·杏仁形长甲"}
    second = own_names(design, lambda n: n.zh in taken or n.en in taken)
    assert second == StyleNames("酒红猫眼 2号", f"{plain.en} No. 2")
    assert own_names(design, lambda n: False) == plain


def test_a_colour_its_pattern_already_names_is_not_said_twice():
    assert style_names(parse_prompt("红色 金箔")).zh == "正红金箔"
