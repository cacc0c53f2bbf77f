"""Customer prompt (Chinese or English) → structured nail `Design` (core.generation.design).

How `parse_prompt` reads text (ARCHITECTURE.md §10):
1. Normalise: NFKC (full-width → half-width), a small traditional → simplified map, lowercase, hyphens and
   apostrophes → spaces.
2. Longest-match scan over the vocabulary (core/generation/vocabulary.py); English forms only match whole words.
   What matches nothing is collected into unknown phrases (kept for remote prompts); filler words are dropped.
3. Clauses are split at punctuation (，。、；,.;!?). Inside a clause, from the first finger or 跳色/accent word
   on, terms belong to those fingers (no finger named → the ring finger); 其余/the rest returns to the main
   design. A clause holding only finger names carries them into the next clause ("无名指、中指跳色").
4. A colour directly before a pattern colours that pattern ("金色闪粉", "white french"); otherwise the first
   colour of a scope is its base colour. Tone words (浅/深, light/dark) shift the following colour; size
   words (细/chunky) set the following pattern's variant.
5. A negation (不要/别/无/no/without) removes the next design term within a few characters from the whole
   design ("不要闪粉", "no glitter"); the removed ids are listed in `excluded`.

Accent fingers own their patterns (nothing is inherited); their base colour and finish fall back to the main
design's when not given. An accent named without any colour or design ("无名指跳色") gets a contrasting colour.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum

from nailmirror_desktop.core.generation import vocabulary as vocab
from nailmirror_desktop.core.generation.design import (
    DEFAULT_FINISH,
    Accent,
    Color,
    Design,
    FingerDesign,
    Pattern,
    make_color,
)

DEFAULT_BASE_COLOR_ID = "nude_pink"
CLAUSE_BREAKS = set(",，。.;；!！?？、\n|/")
NEGATION_REACH_CHARS = 4  # non-space characters allowed between a negation and the term it negates
# a one-character negation (不/无/别) only reaches the very next term, so "不规则线条" (irregular lines) keeps its lines
SHORT_NEGATION_REACH_CHARS = 0
# patterns whose colour, when a colour word stands right before them and no base is set yet, is really
# the base colour ("奶白色贝壳碎片" is a milky white nail with shell flakes, not milky white flakes)
BASE_COLORED_PATTERNS = {"shell_flakes", "rhinestones", "pearls", "galaxy", "negative_space", "solid", "marble",
                         "leopard", "tortoiseshell", "blush"}
# "裸粉色法式" is a nude-pink nail with a (white) French tip: these base tones before a French pattern are the base
FRENCH_KINDS = {"french", "micro_french", "chevron_french", "reverse_french"}
NUDE_BASE_COLORS = {"nude", "nude_pink", "flesh_pink", "clear", "milk_tea"}


# ---------------------------------------------------------------------------------------------- colours


def _luma(rgb: tuple[int, int, int]) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def contrast_color(base: Color, themes: tuple[str, ...] = (), excluded: tuple[str, ...] = ()) -> Color:
    """A companion colour for an accent nail named without a colour (跳色): the theme's accent colour when
    there is a theme, else a deep rose on light bases, milky white on mid tones and gold on dark ones."""
    candidates = [vocab.THEMES[t][3] for t in themes]
    luma = _luma(base.rgb)
    candidates += ["dusty_rose", "burgundy"] if luma > 170 else ["milky_white", "gold"] if luma > 90 else ["gold"]
    candidates += ["milky_white", "burgundy", "gold"]
    for color_id in candidates:
        if color_id != base.id and color_id not in excluded:
            return make_color(color_id)
    return make_color("gold")


# ---------------------------------------------------------------------------------------------- scanning


class TokenKind(StrEnum):
    """What a scanned stretch of the prompt is. The first group are vocabulary kinds (vocabulary.py)."""

    COLOR = "color"
    TONE = "tone"
    FINISH = "finish"
    PATTERN = "pattern"
    VARIANT = "variant"
    SHAPE = "shape"
    LENGTH = "length"
    FINGER = "finger"
    ACCENT = "accent"
    OTHERS = "others"
    NEGATION = "negation"
    THEME = "theme"
    FILLER = "filler"
    UNKNOWN = "unknown"  # matched nothing in the vocabulary
    BREAK = "break"  # a clause break (CLAUSE_BREAKS)
    CONSUMED = "consumed"  # a pattern already taken by the colour before it


# the kinds a negation can remove from the design
_DESIGN_KINDS = {TokenKind.COLOR, TokenKind.FINISH, TokenKind.PATTERN, TokenKind.THEME}


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    value: str
    start: int
    end: int
    variant: str | None = None  # a size variant implied by the form itself ("碎闪" → fine)
    color: str | None = None  # a colour implied by the form itself ("金箔" → gold)


def _build_lexicon() -> dict[str, tuple[TokenKind, str]]:
    lexicon: dict[str, tuple[TokenKind, str]] = {}

    def add(kind: TokenKind, value: str, forms: tuple[str, ...]) -> None:
        for form in forms:
            lexicon.setdefault(form, (kind, value))

    for color_id, (_, _, forms) in vocab.COLORS.items():
        add(TokenKind.COLOR, color_id, forms)
    for tone, forms in vocab.TONES.items():
        add(TokenKind.TONE, tone, forms)
    for finish, (_, forms) in vocab.FINISHES.items():
        add(TokenKind.FINISH, finish, forms)
    for kind, (_, forms) in vocab.PATTERNS.items():
        add(TokenKind.PATTERN, kind, forms)
    for variant, forms in vocab.VARIANTS.items():
        add(TokenKind.VARIANT, variant, forms)
    for shape, forms in vocab.SHAPES.items():
        add(TokenKind.SHAPE, shape, forms)
    for length, forms in vocab.LENGTHS.items():
        add(TokenKind.LENGTH, length, forms)
    for finger, forms in vocab.FINGERS.items():
        add(TokenKind.FINGER, finger, forms)
    for theme, (_, forms, _, _) in vocab.THEMES.items():
        add(TokenKind.THEME, theme, forms)
    add(TokenKind.ACCENT, "accent", vocab.ACCENT_FORMS)
    add(TokenKind.OTHERS, "others", vocab.OTHERS_FORMS)
    add(TokenKind.NEGATION, "negation", vocab.NEGATION_FORMS)
    add(TokenKind.FILLER, "filler", vocab.FILLERS)
    return lexicon


_LEXICON = _build_lexicon()
_MAX_FORM_CHARS = max(len(form) for form in _LEXICON)
_WORD_CHAR = re.compile(r"[a-z0-9]")


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = "".join(vocab.TRADITIONAL_TO_SIMPLIFIED.get(ch, ch) for ch in text).lower()
    text = re.sub(r"[-_'’`+&*~]", " ", text)
    return re.sub(r"[ \t]+", " ", text).strip()


def _is_word_char(text: str, index: int) -> bool:
    return 0 <= index < len(text) and bool(_WORD_CHAR.match(text[index]))


def _match_at(text: str, i: int) -> Token | None:
    for length in range(min(_MAX_FORM_CHARS, len(text) - i), 0, -1):
        form = text[i : i + length]
        entry = _LEXICON.get(form)
        if entry is None:
            continue
        # English forms match whole words only ("red" must not match inside "bored")
        if _is_word_char(form, 0) and _is_word_char(text, i - 1):
            continue
        if _is_word_char(form, len(form) - 1) and _is_word_char(text, i + length):
            continue
        return Token(entry[0], entry[1], i, i + length, vocab.PATTERN_FORM_VARIANTS.get(form),
                     vocab.PATTERN_FORM_COLORS.get(form))
    return None


def tokenize(text: str) -> list[Token]:
    """Longest-match scan of normalised text into tokens; unmatched runs become UNKNOWN tokens."""
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == " ":
            i += 1
            continue
        if ch in CLAUSE_BREAKS:
            tokens.append(Token(TokenKind.BREAK, ch, i, i + 1))
            i += 1
            continue
        token = _match_at(text, i)
        if token is None:
            end = i + 1
            if _is_word_char(text, i):
                while _is_word_char(text, end):
                    end += 1
            token = Token(TokenKind.UNKNOWN, text[i:end], i, end)
        tokens.append(token)
        i = token.end
    return tokens


def _unknown_phrases(text: str, tokens: list[Token]) -> list[str]:
    """Adjacent unknown tokens (only spaces between them) joined into phrases, in order, without repeats."""
    phrases: list[str] = []
    run: list[Token] = []

    def flush() -> None:
        if run:
            phrase = text[run[0].start : run[-1].end].strip()
            if phrase and phrase not in phrases:
                phrases.append(phrase)
            run.clear()

    for token in tokens:
        unknown = token.kind is TokenKind.UNKNOWN
        if unknown and (not run or text[run[-1].end : token.start].strip() == ""):
            run.append(token)
        else:
            flush()
            if unknown:
                run.append(token)
    flush()
    return phrases


# ---------------------------------------------------------------------------------------------- negation


def _negated_ids(text: str, tokens: list[Token]) -> tuple[set[int], list[str]]:
    """Indexes of tokens a negation cancels, and the ids removed from the whole design."""
    cancelled: set[int] = set()
    excluded: list[str] = []
    for n, token in enumerate(tokens):
        if token.kind is not TokenKind.NEGATION:
            continue
        negated = _negation_target(text, tokens, n)
        if not negated:
            continue
        cancelled.update(negated)
        value = tokens[negated[-1]].value
        if value not in excluded:
            excluded.append(value)
    for n, token in enumerate(tokens):
        if token.value in excluded and token.kind in _DESIGN_KINDS:
            cancelled.add(n)
    return cancelled, excluded


def _negation_target(text: str, tokens: list[Token], negation: int) -> list[int]:
    """The indexes a negation at `negation` cancels, the negated term last; [] when it reaches no term."""
    token = tokens[negation]
    reach = SHORT_NEGATION_REACH_CHARS if token.end - token.start == 1 else NEGATION_REACH_CHARS
    for m in range(negation + 1, len(tokens)):
        target = tokens[m]
        if target.kind is TokenKind.BREAK:
            return []
        if len(text[token.end : target.start].replace(" ", "")) > reach:
            return []
        if target.kind not in _DESIGN_KINDS:
            continue
        # "no gold glitter": the colour belongs to the pattern right after it, so the pattern goes
        follower = _next_meaningful(tokens, m)
        if target.kind is TokenKind.COLOR and follower is not None and tokens[follower].kind is TokenKind.PATTERN:
            return [m, follower]
        return [m]
    return []


def _next_meaningful(tokens: list[Token], index: int) -> int | None:
    """The next token in the same clause that is not filler, or None."""
    for m in range(index + 1, len(tokens)):
        if tokens[m].kind is TokenKind.BREAK:
            return None
        if tokens[m].kind is not TokenKind.FILLER:
            return m
    return None


# ---------------------------------------------------------------------------------------------- scopes


@dataclass
class _Scope:
    """The design being collected for the main nails or for one group of accent fingers."""

    base: Color | None = None
    finish: str | None = None
    patterns: list[Pattern] = field(default_factory=list)
    spare_colors: list[Color] = field(default_factory=list)
    accent_word: bool = False
    touched: bool = False

    def add_pattern(self, pattern: Pattern) -> None:
        for n, existing in enumerate(self.patterns):
            if existing.kind == pattern.kind:
                # the same pattern named twice: keep one, with whatever colour/variant either gave
                self.patterns[n] = Pattern(
                    pattern.kind, existing.color or pattern.color, existing.variant or pattern.variant
                )
                return
        self.patterns.append(pattern)

    def settle_spare_colors(self) -> None:
        """Extra colours with no pattern right after them go to colourless patterns, then are dropped."""
        for color in self.spare_colors:
            for n, pattern in enumerate(self.patterns):
                if pattern.color is None and pattern.kind not in BASE_COLORED_PATTERNS:
                    self.patterns[n] = Pattern(pattern.kind, color, pattern.variant)
                    break
        self.spare_colors.clear()

    def absorb(self, other: _Scope) -> None:
        """Merge another scope for the same finger into this one; what this one already has wins."""
        self.base = self.base or other.base
        self.finish = self.finish or other.finish
        for pattern in other.patterns:
            self.add_pattern(pattern)
        self.spare_colors += other.spare_colors
        self.accent_word = self.accent_word or other.accent_word
        self.touched = self.touched or other.touched


@dataclass
class _Reading:
    """What the clauses read so far add up to."""

    main: _Scope = field(default_factory=_Scope)
    accent_scopes: dict[str, _Scope] = field(default_factory=dict)
    shape: str | None = None
    length: str | None = None
    themes: list[str] = field(default_factory=list)
    carried_fingers: list[str] = field(default_factory=list)  # from a clause of finger names only

    def merge_accent(self, fingers: list[str], scope: _Scope) -> None:
        for finger in fingers or ["ring"]:  # 跳色 with no finger named: the ring finger, as in salons
            existing = self.accent_scopes.get(finger)
            if existing is None:
                self.accent_scopes[finger] = scope
            else:
                existing.absorb(scope)


@dataclass
class _ClauseState:
    """Where one clause's terms go while it is read: the scope, the fingers named, the pending tone and size."""

    scope: _Scope
    fingers: list[str] = field(default_factory=list)
    tone: str = ""
    variant: str | None = None


def _split_clauses(tokens: list[Token], cancelled: set[int]) -> list[list[Token]]:
    skipped = {TokenKind.FILLER, TokenKind.UNKNOWN, TokenKind.NEGATION}
    clauses: list[list[Token]] = [[]]
    for n, token in enumerate(tokens):
        if token.kind is TokenKind.BREAK:
            clauses.append([])
        elif n not in cancelled and token.kind not in skipped:
            clauses[-1].append(token)
    return [clause for clause in clauses if clause]


# ---------------------------------------------------------------------------------------------- reading


def parse_prompt(text: str) -> Design:
    """Parse a customer's description into a Design (see the module docstring for the rules)."""
    normalized = normalize(text)
    tokens = tokenize(normalized)
    cancelled, excluded = _negated_ids(normalized, tokens)
    reading = _Reading()
    for clause in _split_clauses(tokens, cancelled):
        _read_clause(reading, clause)
    return _design_from(reading, tuple(excluded), tuple(_unknown_phrases(normalized, tokens)))


def _read_clause(reading: _Reading, clause: list[Token]) -> None:
    if all(t.kind is TokenKind.FINGER for t in clause):  # "无名指、中指跳色": names alone carry into the next clause
        reading.carried_fingers += [t.value for t in clause]
        return
    state = _ClauseState(reading.main)
    for n in range(len(clause)):
        _read_token(reading, state, clause, n)
    reading.carried_fingers = []
    if state.scope is not reading.main:
        reading.merge_accent(state.fingers, state.scope)


def _read_token(reading: _Reading, state: _ClauseState, clause: list[Token], n: int) -> None:
    token = clause[n]
    if token.kind in (TokenKind.FINGER, TokenKind.ACCENT):
        _enter_accent(reading, state, token)
    elif token.kind is TokenKind.OTHERS:
        reading.merge_accent(state.fingers, state.scope)
        state.scope, state.fingers = reading.main, []
    elif token.kind is TokenKind.TONE:
        state.tone = token.value
    elif token.kind is TokenKind.VARIANT:
        state.variant = token.value
    else:
        _read_term(reading, state, clause, n)
        # a tone applies to the next term only; a size also survives a colour ("细 金色 闪粉")
        state.tone = ""
        if token.kind is not TokenKind.COLOR:
            state.variant = None


def _enter_accent(reading: _Reading, state: _ClauseState, token: Token) -> None:
    """A finger name or accent word: from here on the clause's terms belong to the accent fingers."""
    if token.kind is TokenKind.FINGER and token.value not in state.fingers:
        state.fingers.append(token.value)
    if state.scope is reading.main:
        state.fingers = reading.carried_fingers + state.fingers
        state.scope = _Scope()
    state.scope.accent_word = state.scope.accent_word or token.kind is TokenKind.ACCENT


def _read_term(reading: _Reading, state: _ClauseState, clause: list[Token], n: int) -> None:
    token = clause[n]
    if token.kind is TokenKind.SHAPE:
        reading.shape = token.value
    elif token.kind is TokenKind.LENGTH:
        reading.length = token.value
    elif token.kind is TokenKind.THEME:
        if token.value not in reading.themes:
            reading.themes.append(token.value)
    elif token.kind in (TokenKind.COLOR, TokenKind.FINISH, TokenKind.PATTERN):
        _apply_term(state.scope, clause, n, state.tone, state.variant)


def _apply_term(scope: _Scope, clause: list[Token], n: int, tone: str, variant: str | None) -> None:
    token = clause[n]
    scope.touched = True
    if token.kind is TokenKind.COLOR:
        _apply_color(scope, clause, n, make_color(token.value, tone), variant)
    elif token.kind is TokenKind.FINISH:
        # gloss is close to a default: it never overrides an effect finish named in the same scope
        if token.value != "gloss" or scope.finish is None:
            scope.finish = token.value
    elif token.kind is TokenKind.PATTERN:
        own_color = make_color(token.color) if token.color else None
        scope.add_pattern(Pattern(token.value, own_color, variant or token.variant))


def _apply_color(scope: _Scope, clause: list[Token], n: int, color: Color, variant: str | None) -> None:
    """A colour colours the pattern right after it (size words may stand between: "金色细闪"), else it is the
    scope's base, else a spare colour for a colourless pattern."""
    token = clause[n]
    while n + 1 < len(clause) and clause[n + 1].kind is TokenKind.VARIANT:
        n += 1
    follower = clause[n + 1] if n + 1 < len(clause) else None
    if follower is not None and follower.kind is TokenKind.PATTERN and follower.color is None:
        base_like = follower.value in BASE_COLORED_PATTERNS or (
            follower.value in FRENCH_KINDS and token.value in NUDE_BASE_COLORS
        )
        if base_like and scope.base is None:
            scope.base = color
        else:
            scope.add_pattern(Pattern(follower.value, color, variant or follower.variant))
            clause[n + 1] = Token(TokenKind.CONSUMED, follower.value, follower.start, follower.end)
    elif scope.base is None:
        scope.base = color
    else:
        scope.spare_colors.append(color)


# ---------------------------------------------------------------------------------------------- the design


def _design_from(reading: _Reading, excluded: tuple[str, ...], unknown_terms: tuple[str, ...]) -> Design:
    main = reading.main
    main.settle_spare_colors()
    themes = tuple(reading.themes)
    base = main.base or _fallback_base(themes, excluded)
    return Design(
        base_color=base,
        finish=main.finish or DEFAULT_FINISH,
        patterns=tuple(main.patterns),
        shape=reading.shape,
        length=reading.length,
        accents=_build_accents(reading.accent_scopes, base, themes, excluded),
        themes=themes,
        excluded=excluded,
        unknown_terms=unknown_terms,
    )


def _fallback_base(themes: tuple[str, ...], excluded: tuple[str, ...]) -> Color:
    """No base colour named: the first theme's base colour not excluded, else the default nude pink."""
    theme_base = next((vocab.THEMES[t][2] for t in themes if vocab.THEMES[t][2] not in excluded), None)
    return make_color(theme_base or DEFAULT_BASE_COLOR_ID)


def _build_accents(
    scopes: dict[str, _Scope], base: Color, themes: tuple[str, ...], excluded: tuple[str, ...]
) -> tuple[Accent, ...]:
    accents = []
    for finger in vocab.FINGER_NAMES:
        scope = scopes.get(finger)
        if scope is None:
            continue
        scope.settle_spare_colors()
        color = scope.base
        if color is None and (scope.accent_word or not scope.touched):
            color = contrast_color(base, themes, excluded)
        accents.append(Accent(finger, FingerDesign(color, scope.finish, tuple(scope.patterns))))
    return tuple(accents)
