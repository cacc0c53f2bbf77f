"""A generated style's names, made from its `Design` (what was understood), never from the raw prompt.

The customer's raw words make poor names: "hello world" or a half sentence ends up on the mirror, in the staff
review list and in the catalog once published. The design is what the style *is*, so its names say that, in
both languages the kiosk speaks: Chinese from the vocabulary's first (canonical) Chinese form of each term,
English from `prompt_writer.design_title`. Both stay short enough for a tile and the mirror's overlay.
"""

from __future__ import annotations

from dataclasses import dataclass

from nailmirror_desktop.core.generation import vocabulary as vocab
from nailmirror_desktop.core.generation.design import DEFAULT_FINISH, Color, Design, Pattern
from nailmirror_desktop.core.generation.prompt_writer import design_title

NAME_MAX_CHARS = 16  # Chinese characters: about as wide on a tile as the English limit below
NAME_EN_MAX_CHARS = 48
_PATTERNS_NAMED = 2  # a name is not a description: the first two patterns say enough
_ACCENT_ZH = "跳色"


@dataclass(frozen=True)
class StyleNames:
    zh: str
    en: str


def style_names(design: Design) -> StyleNames:
    """The Chinese and English names of a design, e.g. 奶白贝壳碎片·跳色 / Milky white shell flakes + accent."""
    return StyleNames(_shorten(_chinese_name(design), NAME_MAX_CHARS),
                      _shorten(design_title(design), NAME_EN_MAX_CHARS, words=True))


def _chinese_name(design: Design) -> str:
    words = [vocab.THEMES[t][1][0] for t in design.themes[:1] if t in vocab.THEMES]
    words.append(_color_zh(design.base_color))
    if design.finish != DEFAULT_FINISH and design.finish in vocab.FINISHES:
        words.append(vocab.FINISHES[design.finish][1][0])
    words += [_pattern_zh(p) for p in design.patterns[:_PATTERNS_NAMED]]
    name = "".join(words)
    return f"{name}·{_ACCENT_ZH}" if design.accents else name


def _color_zh(color: Color) -> str:
    if color.id not in vocab.COLORS:
        return ""
    tone = vocab.TONES[color.tone][0] if color.tone in vocab.TONES else ""
    return tone + vocab.COLORS[color.id][2][0]


def _pattern_zh(pattern: Pattern) -> str:
    if pattern.kind not in vocab.PATTERNS:
        return ""
    colour = _color_zh(pattern.color) if pattern.color is not None else ""
    return colour + vocab.PATTERNS[pattern.kind][1][0]


def _shorten(name: str, max_chars: int, *, words: bool = False) -> str:
    name = " ".join(name.split())
    if len(name) <= max_chars:
        return name
    cut = name[: max_chars - 1]
    if words and " " in cut:
        cut = cut.rsplit(" ", 1)[0]  # English is cut between words, not inside one
    return cut.rstrip(" ·+") + "…"
