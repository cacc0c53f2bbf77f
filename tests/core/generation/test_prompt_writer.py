"""The prompt writer: the English prompt and negative prompt a remote model gets, and a design's title."""

from __future__ import annotations

from nailmirror_desktop.core.generation.prompt_parser import parse_prompt
from nailmirror_desktop.core.generation.prompt_writer import design_title, english_prompt, negative_prompt


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


def test_design_title_names_colour_effect_finish_two_patterns_and_accents() -> None:
    title = design_title(parse_prompt("奶白色 磨砂 贝壳碎片 闪粉 水钻"))
    assert title == "Milky white matte iridescent shell flakes glitter"  # the third pattern is left out
    assert design_title(parse_prompt("红色")) == "Classic red"  # gloss, the default finish, is not named
    assert design_title(parse_prompt("奶白色 无名指跳色")).endswith(" + accent")
