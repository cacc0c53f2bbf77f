"""A generated style's names, made from its `Design` (what was understood), never from the raw prompt.

The customer's raw words make poor names: "hello world" or a half sentence ends up on the mirror, in the staff
review list and in the catalog once published. The design is what the style *is*, so its names say that, in
both languages the kiosk speaks: Chinese from the vocabulary's first (canonical) Chinese form of each term,
English from `prompt_writer.design_title`. Both stay short enough for a tile and the mirror's overlay.

A generated style has a name of its own: "酒红猫眼" asked of the kiosk must not come back named exactly like the
catalog's 酒红猫眼, which it only resembles (staff, the card and HQ's review page would mix the two up).
`own_names` adds what the plain name leaves out (the shape, the length), then a number, until neither name is
taken. The "yours" mark the customer sees is the kiosk's label (ui/generation), never part of the name.
"""

from __future__ import annotations

from collections.abc import Callable
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


# the words that make a taken name the customer's own, before a number has to: (Chinese, English) by id
_SHAPE_WORDS = {"squoval": ("方圆", "squoval"), "oval": ("椭圆", "oval"), "round": ("圆头", "round"),
                "almond": ("杏仁形", "almond"), "coffin": ("芭蕾", "coffin"), "stiletto": ("尖形", "stiletto"),
                "square": ("方形", "square")}
_LENGTH_WORDS = {"short": ("短甲", "short"), "medium": ("中长甲", "medium"), "long": ("长甲", "long")}
MAX_NUMBER = 999


def own_names(design: Design, taken: Callable[[StyleNames], bool]) -> StyleNames:
    """The design's names, made its own when `taken` says a style already has them (either of them)."""
    plain = style_names(design)
    zh, en = plain.zh, plain.en
    details = [words for words in (_SHAPE_WORDS.get(design.shape or ""), _LENGTH_WORDS.get(design.length or ""))
               if words is not None]
    candidates = [plain]
    for k in range(1, len(details) + 1):
        extra = details[:k]
        candidates.append(StyleNames(
            _shorten(zh + "·" + "".join(z for z, _ in extra), NAME_MAX_CHARS),
            _shorten(en + ", " + " ".join(e for _, e in extra), NAME_EN_MAX_CHARS, words=True)))
    for names in candidates:
        if not taken(names):
            return names
    for number in range(2, MAX_NUMBER + 1):
        suffix_zh, suffix_en = f" {number}号", f" No. {number}"
        names = StyleNames(_shorten(zh, NAME_MAX_CHARS - len(suffix_zh)) + suffix_zh,
                           _shorten(en, NAME_EN_MAX_CHARS - len(suffix_en), words=True) + suffix_en)
        if not taken(names):
            return names
    raise ValueError("no free name")  # a thousand styles of one design: a catalog problem, not a naming one


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
    word = vocab.PATTERNS[pattern.kind][1][0]
    colour = _color_zh(pattern.color) if pattern.color is not None else ""
    return word if colour and colour in word else colour + word  # 金箔 is gold already, not 金金箔


def _shorten(name: str, max_chars: int, *, words: bool = False) -> str:
    name = " ".join(name.split())
    if len(name) <= max_chars:
        return name
    cut = name[: max_chars - 1]
    if words and " " in cut:
        cut = cut.rsplit(" ", 1)[0]  # English is cut between words, not inside one
    return cut.rstrip(" ·+") + "…"
