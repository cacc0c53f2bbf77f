"""Customer prompt (Chinese or English) → structured nail `Design`, and `Design` → an English image prompt.

How `parse_prompt` reads text (reference/providers_and_sync.md §3c):
1. Normalise: NFKC (full-width → half-width), a small traditional → simplified map, lowercase, hyphens and
   apostrophes → spaces.
2. Longest-match scan over the vocabulary (core/generation/vocabulary.py); English forms only match whole words. What
   matches nothing is collected into unknown phrases (kept for remote prompts); filler words are dropped.
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
from typing import Any

from nailmirror_desktop.core.generation import vocabulary as vocab

DESIGN_FORMAT_VERSION = 1
UNKNOWN_TERMS_MAX_CHARS = 200
DEFAULT_BASE_COLOR_ID = "nude_pink"
DEFAULT_FINISH = "gloss"
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


@dataclass(frozen=True)
class Color:
    """A colour: canonical id (vocabulary.COLORS), its RGB (0–255, tone applied) and the tone modifier."""

    id: str
    rgb: tuple[int, int, int]
    tone: str = ""  # "", "light", "dark" or "muted"


@dataclass(frozen=True)
class Pattern:
    """One pattern or decoration layer (vocabulary.PATTERNS id) with its optional colour and size variant."""

    kind: str
    color: Color | None = None
    variant: str | None = None  # "fine" / "chunky" (glitter) or None


@dataclass(frozen=True)
class FingerDesign:
    """An accent finger's own design. None means "as the main design" (patterns are never inherited)."""

    base_color: Color | None = None
    finish: str | None = None
    patterns: tuple[Pattern, ...] = ()


@dataclass(frozen=True)
class Accent:
    finger: str  # one of vocabulary.FINGER_NAMES
    design: FingerDesign


@dataclass(frozen=True)
class Design:
    """A structured nail design; JSON-safe through to_dict/from_dict (used in task payloads)."""

    base_color: Color
    finish: str = DEFAULT_FINISH
    patterns: tuple[Pattern, ...] = ()
    shape: str | None = None  # vocabulary.SHAPES id, None = not asked for
    length: str | None = None  # short / medium / long, None = not asked for
    accents: tuple[Accent, ...] = ()
    themes: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()  # ids the customer said no to (negative prompt)
    unknown_terms: tuple[str, ...] = ()  # words not understood, passed verbatim to remote providers

    @property
    def accent_fingers(self) -> tuple[str, ...]:
        return tuple(accent.finger for accent in self.accents)

    @property
    def pattern_kinds(self) -> tuple[str, ...]:
        return tuple(pattern.kind for pattern in self.patterns)

    def finger_design(self, finger: str) -> FingerDesign:
        """The resolved design of one finger (every field filled)."""
        for accent in self.accents:
            if accent.finger == finger:
                own = accent.design
                return FingerDesign(
                    base_color=own.base_color or self.base_color,
                    finish=own.finish or self.finish,
                    patterns=own.patterns,
                )
        return FingerDesign(base_color=self.base_color, finish=self.finish, patterns=self.patterns)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": DESIGN_FORMAT_VERSION,
            "base_color": _color_to_dict(self.base_color),
            "finish": self.finish,
            "patterns": [_pattern_to_dict(p) for p in self.patterns],
            "shape": self.shape,
            "length": self.length,
            "accents": [
                {
                    "finger": a.finger,
                    "base_color": _color_to_dict(a.design.base_color),
                    "finish": a.design.finish,
                    "patterns": [_pattern_to_dict(p) for p in a.design.patterns],
                }
                for a in self.accents
            ],
            "themes": list(self.themes),
            "excluded": list(self.excluded),
            "unknown_terms": list(self.unknown_terms),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Design:
        """Inverse of to_dict. Raises ValueError('design_version_unsupported' or 'design_invalid')."""
        if not isinstance(data, dict):
            raise ValueError("design_invalid")
        if data.get("version", DESIGN_FORMAT_VERSION) != DESIGN_FORMAT_VERSION:
            raise ValueError("design_version_unsupported")
        try:
            return cls._from_valid_dict(data)
        except (KeyError, TypeError, ValueError, AttributeError):
            raise ValueError("design_invalid") from None

    @classmethod
    def _from_valid_dict(cls, data: dict[str, Any]) -> Design:
        base = _color_from_dict(data["base_color"])
        if base is None:
            raise ValueError("design_invalid")
        return cls(
            base_color=base,
            finish=str(data.get("finish") or DEFAULT_FINISH),
            patterns=tuple(_pattern_from_dict(p) for p in data.get("patterns", ())),
            shape=data.get("shape"),
            length=data.get("length"),
            accents=tuple(
                Accent(
                    finger=str(a["finger"]),
                    design=FingerDesign(
                        base_color=_color_from_dict(a.get("base_color")),
                        finish=a.get("finish"),
                        patterns=tuple(_pattern_from_dict(p) for p in a.get("patterns", ())),
                    ),
                )
                for a in data.get("accents", ())
            ),
            themes=tuple(data.get("themes", ())),
            excluded=tuple(data.get("excluded", ())),
            unknown_terms=tuple(data.get("unknown_terms", ())),
        )


def _color_to_dict(color: Color | None) -> dict[str, Any] | None:
    return None if color is None else {"id": color.id, "rgb": list(color.rgb), "tone": color.tone}


def _color_from_dict(data: dict[str, Any] | None) -> Color | None:
    if data is None:
        return None
    r, g, b = (int(v) for v in data["rgb"])
    return Color(id=str(data["id"]), rgb=(r, g, b), tone=str(data.get("tone", "")))


def _pattern_to_dict(pattern: Pattern) -> dict[str, Any]:
    return {"kind": pattern.kind, "color": _color_to_dict(pattern.color), "variant": pattern.variant}


def _pattern_from_dict(data: dict[str, Any]) -> Pattern:
    return Pattern(kind=str(data["kind"]), color=_color_from_dict(data.get("color")), variant=data.get("variant"))


# ---------------------------------------------------------------------------------------------- colours


def make_color(color_id: str, tone: str = "") -> Color:
    """The Color for a canonical id with an optional tone shift (light: 45 % towards white, dark: ×0.6,
    muted: 35 % towards grey)."""
    rgb = vocab.COLORS[color_id][0]
    if tone == "light":
        rgb = tuple(round(c + (255 - c) * 0.45) for c in rgb)
    elif tone == "dark":
        rgb = tuple(round(c * 0.6) for c in rgb)
    elif tone == "muted":
        grey = sum(rgb) / 3
        rgb = tuple(round(c * 0.65 + grey * 0.35) for c in rgb)
    return Color(id=color_id, rgb=(int(rgb[0]), int(rgb[1]), int(rgb[2])), tone=tone)


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


@dataclass(frozen=True)
class Token:
    kind: str  # color, tone, finish, pattern, variant, shape, length, finger, accent, others, negation,
    #            theme, filler, unknown, break
    value: str
    start: int
    end: int
    variant: str | None = None  # a size variant implied by the form itself ("碎闪" → fine)
    color: str | None = None  # a colour implied by the form itself ("金箔" → gold)


def _build_lexicon() -> dict[str, tuple[str, str]]:
    lexicon: dict[str, tuple[str, str]] = {}

    def add(kind: str, value: str, forms: tuple[str, ...]) -> None:
        for form in forms:
            lexicon.setdefault(form, (kind, value))

    for color_id, (_, _, forms) in vocab.COLORS.items():
        add("color", color_id, forms)
    for tone, forms in vocab.TONES.items():
        add("tone", tone, forms)
    for finish, (_, forms) in vocab.FINISHES.items():
        add("finish", finish, forms)
    for kind, (_, forms) in vocab.PATTERNS.items():
        add("pattern", kind, forms)
    for variant, forms in vocab.VARIANTS.items():
        add("variant", variant, forms)
    for shape, forms in vocab.SHAPES.items():
        add("shape", shape, forms)
    for length, forms in vocab.LENGTHS.items():
        add("length", length, forms)
    for finger, forms in vocab.FINGERS.items():
        add("finger", finger, forms)
    for theme, (_, forms, _, _) in vocab.THEMES.items():
        add("theme", theme, forms)
    add("accent", "accent", vocab.ACCENT_FORMS)
    add("others", "others", vocab.OTHERS_FORMS)
    add("negation", "negation", vocab.NEGATION_FORMS)
    add("filler", "filler", vocab.FILLERS)
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
    """Longest-match scan of normalised text into tokens; unmatched runs become 'unknown' tokens."""
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == " ":
            i += 1
            continue
        if ch in CLAUSE_BREAKS:
            tokens.append(Token("break", ch, i, i + 1))
            i += 1
            continue
        token = _match_at(text, i)
        if token is None:
            end = i + 1
            if _is_word_char(text, i):
                while _is_word_char(text, end):
                    end += 1
            token = Token("unknown", text[i:end], i, end)
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
        if token.kind == "unknown" and (not run or text[run[-1].end : token.start].strip() == ""):
            run.append(token)
        else:
            flush()
            if token.kind == "unknown":
                run.append(token)
    flush()
    return phrases


# ---------------------------------------------------------------------------------------------- negation


def _negated_ids(text: str, tokens: list[Token]) -> tuple[set[int], list[str]]:
    """Indexes of tokens a negation cancels, and the ids removed from the whole design."""
    design_kinds = {"color", "finish", "pattern", "theme"}
    cancelled: set[int] = set()
    excluded: list[str] = []
    for n, token in enumerate(tokens):
        if token.kind != "negation":
            continue
        reach = SHORT_NEGATION_REACH_CHARS if token.end - token.start == 1 else NEGATION_REACH_CHARS
        for m in range(n + 1, len(tokens)):
            target = tokens[m]
            if target.kind == "break":
                break
            gap = text[token.end : target.start].replace(" ", "")
            if len(gap) > reach:
                break
            if target.kind not in design_kinds:
                continue
            # "no gold glitter": the colour belongs to the pattern right after it, so the pattern goes
            follower = _next_meaningful(tokens, m)
            if target.kind == "color" and follower is not None and tokens[follower].kind == "pattern":
                cancelled.add(m)
                m, target = follower, tokens[follower]
            cancelled.add(m)
            if target.value not in excluded:
                excluded.append(target.value)
            break
    for n, token in enumerate(tokens):
        if token.value in excluded and token.kind in design_kinds:
            cancelled.add(n)
    return cancelled, excluded


def _next_meaningful(tokens: list[Token], index: int) -> int | None:
    """The next token in the same clause that is not filler, or None."""
    for m in range(index + 1, len(tokens)):
        if tokens[m].kind == "break":
            return None
        if tokens[m].kind != "filler":
            return m
    return None


# ---------------------------------------------------------------------------------------------- scopes


@dataclass
class _Scope:
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


def _split_clauses(tokens: list[Token], cancelled: set[int]) -> list[list[Token]]:
    clauses: list[list[Token]] = [[]]
    for n, token in enumerate(tokens):
        if token.kind == "break":
            clauses.append([])
        elif n not in cancelled and token.kind not in ("filler", "unknown", "negation"):
            clauses[-1].append(token)
    return [clause for clause in clauses if clause]


def _apply_term(scope: _Scope, clause: list[Token], n: int, tone: str, variant: str | None) -> None:
    token = clause[n]
    scope.touched = True
    if token.kind == "color":
        color = make_color(token.value, tone)
        follower = clause[n + 1] if n + 1 < len(clause) else None
        while follower is not None and follower.kind == "variant":  # "金色细闪"
            n += 1
            follower = clause[n + 1] if n + 1 < len(clause) else None
        if follower is not None and follower.kind == "pattern" and follower.color is None:
            base_like = follower.value in BASE_COLORED_PATTERNS or (
                follower.value in FRENCH_KINDS and token.value in NUDE_BASE_COLORS
            )
            if base_like and scope.base is None:
                scope.base = color
            else:
                scope.add_pattern(Pattern(follower.value, color, variant or follower.variant))
                clause[n + 1] = Token("consumed", follower.value, follower.start, follower.end)
        elif scope.base is None:
            scope.base = color
        else:
            scope.spare_colors.append(color)
    elif token.kind == "finish":
        # gloss is close to a default: it never overrides an effect finish named in the same scope
        if token.value != "gloss" or scope.finish is None:
            scope.finish = token.value
    elif token.kind == "pattern":
        own_color = make_color(token.color) if token.color else None
        scope.add_pattern(Pattern(token.value, own_color, variant or token.variant))


def parse_prompt(text: str) -> Design:
    """Parse a customer's description into a Design (see the module docstring for the rules)."""
    normalized = normalize(text)
    tokens = tokenize(normalized)
    cancelled, excluded = _negated_ids(normalized, tokens)
    unknown_terms = _unknown_phrases(normalized, tokens)

    main = _Scope()
    accent_scopes: dict[str, _Scope] = {}
    shape: str | None = None
    length: str | None = None
    themes: list[str] = []
    carried_fingers: list[str] = []

    for clause in _split_clauses(tokens, cancelled):
        kinds = {t.kind for t in clause}
        if kinds <= {"finger"}:  # "无名指、中指跳色": names alone carry into the next clause
            carried_fingers += [t.value for t in clause]
            continue
        scope = main
        fingers: list[str] = []
        tone = ""
        variant: str | None = None
        for n, token in enumerate(clause):
            if token.kind in ("finger", "accent"):
                if token.kind == "finger" and token.value not in fingers:
                    fingers.append(token.value)
                if scope is main:
                    fingers = carried_fingers + fingers
                    scope = _Scope()
                    scope.touched = False
                scope.accent_word = scope.accent_word or token.kind == "accent"
                continue
            if token.kind == "others":
                _merge_accent(accent_scopes, fingers, scope)
                scope, fingers = main, []
                continue
            if token.kind == "tone":
                tone = token.value
                continue
            if token.kind == "variant":
                variant = token.value
                continue
            if token.kind == "shape":
                shape = token.value
            elif token.kind == "length":
                length = token.value
            elif token.kind == "theme":
                if token.value not in themes:
                    themes.append(token.value)
            elif token.kind in ("color", "finish", "pattern"):
                _apply_term(scope, clause, n, tone, variant)
            tone, variant = ("", variant) if token.kind == "color" else ("", None)
        carried_fingers = []
        if scope is not main:
            _merge_accent(accent_scopes, fingers, scope)

    main.settle_spare_colors()
    base = main.base
    if base is None:
        theme_base = next((vocab.THEMES[t][2] for t in themes if vocab.THEMES[t][2] not in excluded), None)
        base = make_color(theme_base or DEFAULT_BASE_COLOR_ID)
    accents = _build_accents(accent_scopes, base, tuple(themes), tuple(excluded))
    return Design(
        base_color=base,
        finish=main.finish or DEFAULT_FINISH,
        patterns=tuple(main.patterns),
        shape=shape,
        length=length,
        accents=accents,
        themes=tuple(themes),
        excluded=tuple(excluded),
        unknown_terms=tuple(unknown_terms),
    )


def _merge_accent(accent_scopes: dict[str, _Scope], fingers: list[str], scope: _Scope) -> None:
    for finger in fingers or ["ring"]:  # 跳色 with no finger named: the ring finger, as in salons
        existing = accent_scopes.get(finger)
        if existing is None:
            accent_scopes[finger] = scope
            continue
        existing.base = existing.base or scope.base
        existing.finish = existing.finish or scope.finish
        for pattern in scope.patterns:
            existing.add_pattern(pattern)
        existing.spare_colors += scope.spare_colors
        existing.accent_word = existing.accent_word or scope.accent_word
        existing.touched = existing.touched or scope.touched


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


# ---------------------------------------------------------------------------------------------- prompts


def _color_words(color: Color) -> str:
    name = vocab.COLORS[color.id][1] if color.id in vocab.COLORS else color.id.replace("_", " ")
    return f"{color.tone} {name}" if color.tone else name


def _pattern_words(pattern: Pattern) -> str:
    words = vocab.PATTERNS[pattern.kind][0] if pattern.kind in vocab.PATTERNS else pattern.kind.replace("_", " ")
    if pattern.variant:
        words = f"{pattern.variant} {words}"
    if pattern.color is not None:
        words = f"{_color_words(pattern.color)} {words}"
    return words


def _finish_words(finish: str) -> str:
    return vocab.FINISHES[finish][0] if finish in vocab.FINISHES else finish.replace("_", " ")


def describe_finger_design(design: FingerDesign) -> str:
    """English words for one (resolved) finger design, e.g. 'matte milky white with gold glitter'."""
    parts = []
    if design.base_color:
        parts.append(f"{_color_words(design.base_color)} polish")
    if design.finish:
        parts.append(f"{_finish_words(design.finish)} finish")
    text = ", ".join(parts) or "same colour"
    if design.patterns:
        text += " with " + ", ".join(_pattern_words(p) for p in design.patterns)
    return text


def design_title(design: Design) -> str:
    """A short English name for a design (used when a generated style needs a name)."""
    words = [_color_words(design.base_color)]
    if design.finish != DEFAULT_FINISH:
        words.append(_finish_words(design.finish))
    words += [vocab.PATTERNS.get(p.kind, (p.kind,))[0] for p in design.patterns[:2]]
    title = " ".join(words)
    if design.accents:
        title += " + accent"
    return title[:1].upper() + title[1:]


def english_prompt(design: Design) -> str:
    """A clean English prompt for a remote image model asking for a flat, front-on design swatch.

    The swatch is what `vision.nail_art.textures_from_swatch` cuts nail textures from, so the prompt asks for
    the design to fill the frame with the nail tip at the top edge, and for no hands, outlines or text.
    """
    main = design.finger_design("middle" if "middle" not in design.accent_fingers else "thumb")
    sentences = [
        "Flat, front-on close-up swatch of a nail polish design that fills the entire square frame edge to edge",
        f"Design: {describe_finger_design(main)}",
    ]
    if design.accents:
        by_design: dict[str, list[str]] = {}
        for accent in design.accents:
            words = describe_finger_design(design.finger_design(accent.finger))
            by_design.setdefault(words, []).append(accent.finger)
        for words, fingers in by_design.items():
            sentences.append(f"Accent nail ({' and '.join(fingers)} finger): {words}")
    if design.shape or design.length:
        sentences.append(f"For {design.length or ''} {design.shape or ''} nails".replace("  ", " "))
    if design.themes:
        sentences.append("Theme: " + ", ".join(vocab.THEMES[t][0] for t in design.themes if t in vocab.THEMES))
    if design.unknown_terms:
        # capped so that a long free-text request cannot push the framing instructions past a provider's
        # prompt limit (DashScope takes 800 characters)
        sentences.append("Also: " + ", ".join(design.unknown_terms)[:UNKNOWN_TERMS_MAX_CHARS])
    sentences.append("The top edge of the image is the nail tip (free edge), the bottom edge is the cuticle")
    sentences.append("Even soft studio lighting, photorealistic polish texture, no hands, no fingers, "
                     "no nail outline, no background, no text, no watermark")
    if design.excluded:
        sentences.append("Avoid: " + ", ".join(_excluded_words(e) for e in design.excluded))
    return ". ".join(sentences) + "."


def _excluded_words(term_id: str) -> str:
    for table in (vocab.PATTERNS, vocab.FINISHES):
        if term_id in table:
            return table[term_id][0]
    if term_id in vocab.COLORS:
        return vocab.COLORS[term_id][1]
    if term_id in vocab.THEMES:
        return vocab.THEMES[term_id][0]
    return term_id.replace("_", " ")


def negative_prompt(design: Design) -> str:
    """What a remote model should not draw (for providers with a negative-prompt field): the framing
    mistakes that break swatch cropping plus everything the customer said no to."""
    words = ["hands", "fingers", "nail outline", "text", "watermark", "background objects"]
    words += [_excluded_words(e) for e in design.excluded]
    return ", ".join(words)
