"""Prompt parser: a table of Chinese and English prompts (tests/support/prompt_cases.py) with their expected
structure, and the tokenizer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from nailmirror_desktop.core.generation.design import Design
from nailmirror_desktop.core.generation.prompt_parser import TokenKind, normalize, parse_prompt, tokenize
from tests.support.prompt_cases import CASES

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
