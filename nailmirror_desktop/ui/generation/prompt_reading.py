"""What the prompt parser made of the customer's words, before anything is queued (ARCHITECTURE.md §10).

A generation is paid for (or at least waited for), so words the parser cannot read are caught here: nothing
understood ("hello world") is refused with words to try instead, and words partly understood are named so the
result screen can say what was left out rather than claim success with a default nude.
"""

from __future__ import annotations

from dataclasses import dataclass

from nailmirror_desktop.core.generation.prompt_parser import TokenKind, normalize, parse_prompt, tokenize

# the kinds of term that change what is painted (fingers, tones, negations alone paint nothing)
_DESIGN_KINDS = {TokenKind.COLOR, TokenKind.FINISH, TokenKind.PATTERN, TokenKind.THEME, TokenKind.SHAPE,
                 TokenKind.LENGTH, TokenKind.ACCENT}
SUGGESTED_WORDS = {"zh_CN": ("奶白", "酒红", "猫眼", "法式", "贝壳碎片", "无名指跳色"),
                   "en": ("milky white", "burgundy", "cat eye", "french", "shell flakes", "ring finger accent")}


@dataclass(frozen=True)
class PromptReading:
    empty: bool
    understood: tuple[str, ...]  # the vocabulary ids of the design terms found, in order
    not_understood: tuple[str, ...]  # the customer's phrases that matched nothing

    @property
    def understood_nothing(self) -> bool:
        return not self.understood


def read_prompt(text: str) -> PromptReading:
    normalized = normalize(text)
    if not normalized:
        return PromptReading(True, (), ())
    understood = tuple(t.value for t in tokenize(normalized) if t.kind in _DESIGN_KINDS)
    return PromptReading(False, understood, parse_prompt(text).unknown_terms)


def suggested_words(language: str) -> tuple[str, ...]:
    return SUGGESTED_WORDS["en" if language == "en" else "zh_CN"]
