"""A style's English name composed offline from its Chinese one, term by term, from a curated glossary.

A customer reading the kiosk in English must not meet Chinese names, nor pinyin passed off as English. A style
that arrives without an English name (a folder imported by staff, a catalog entry without `name_en`) gets one
here, when it is created: its Chinese name is read longest term first against `resources/glossary/
style_terms.json` (colours, finishes, patterns and a few other words, written by hand), and the English of the
terms is joined in order ("黑金线条" → "Black and Gold Lines": neighbouring colours are joined by "and").

Only a name read whole becomes English: one Chinese character the glossary lacks, or a Latin word inside a
Chinese name (which may well be pinyin), and the style keeps no English name (the screens show the Chinese one)
and the term is listed by `nailmirror styles glossary-gaps`, for someone to add it to the glossary. A name with
no Chinese in it at all is the one staff chose in Latin letters, and stays as it is.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from nailmirror_desktop.core.paths import resources_dir

log = logging.getLogger(__name__)
GLOSSARY_FILE = Path("glossary") / "style_terms.json"
KINDS = ("colours", "tones", "finishes", "patterns", "words")
_SMALL_WORDS = {"and", "with", "of", "de"}


@dataclass(frozen=True)
class Glossary:
    terms: dict[str, tuple[str, str]]  # Chinese term (lower case) → (English, kind)
    ignore: frozenset[str]  # characters that carry no meaning in a name (色, separators)
    longest: int


@dataclass(frozen=True)
class Composed:
    """What the glossary made of a name: its English ("" unless every part was known) and the unknown parts."""

    english: str
    missing: tuple[str, ...]


def default_glossary_path() -> Path:
    return resources_dir() / GLOSSARY_FILE


@cache
def load_glossary(path: Path | None = None) -> Glossary:
    """The glossary at `path` (default: the kiosk's). Raises ValueError on a malformed file."""
    path = path or default_glossary_path()
    data = json.loads(path.read_text(encoding="utf-8"))
    terms: dict[str, tuple[str, str]] = {}
    for kind in KINDS:
        table = data.get(kind, {})
        if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) and k and v.strip()
                                                  for k, v in table.items()):
            raise ValueError(f"{path}: {kind} must map terms to their English")
        terms.update({key.lower(): (value.strip(), kind) for key, value in table.items()})
    ignore = frozenset(str(c) for c in data.get("ignore", ()))
    return Glossary(terms, ignore, max(map(len, terms), default=1))


def english_name_for(name: str) -> str:
    """The English name a new style gets when it came without one ("" when the glossary cannot read it whole, or
    cannot be read: a style is never refused for its English)."""
    try:
        return compose_english(name).english
    except (OSError, ValueError) as exc:
        log.warning("English style names: glossary unusable: %s", exc)
        return ""


def compose_english(name: str, glossary: Glossary | None = None) -> Composed:
    """The English of a Chinese style name, e.g. 豆沙金箔 → "Dusty Rose Gold Foil", 酒红猫眼 2号 → "Burgundy Cat Eye
    No. 2". A name without Chinese characters is already the name to show, and is returned as it is."""
    name = " ".join(name.split())
    if not any(_is_cjk(c) for c in name):
        return Composed(name, ())
    glossary = glossary or load_glossary()
    text = name.lower()
    parts: list[tuple[str, str]] = []  # (English, kind)
    missing: list[str] = []
    unknown = ""
    i = 0
    while i < len(text):
        match = _longest_term(text, i, glossary)
        number = _number_at(text, i)
        if number:
            match = None
            i += len(number[0])
            parts.append((number[1], "number"))
        elif match is not None:
            term, english, kind = match
            parts.append((english, kind))
            i += len(term)
        elif text[i] in glossary.ignore:
            i += 1
        else:
            unknown += text[i]
            i += 1
            if i < len(text) and _longest_term(text, i, glossary) is None and text[i] not in glossary.ignore:
                continue
        if unknown and (match is not None or number or i >= len(text) or text[i] in glossary.ignore
                        or _longest_term(text, i, glossary) is not None or _number_at(text, i)):
            missing.append(unknown)
            unknown = ""
    if unknown:
        missing.append(unknown)
    if missing or not parts:
        return Composed("", tuple(dict.fromkeys(missing)))
    return Composed(_title(_joined(parts)), ())


def _is_cjk(char: str) -> bool:
    return "\u3400" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"


def _number_at(text: str, start: int) -> tuple[str, str] | None:
    """(the text read, its English) for a number at `start`: "2号" → "No. 2", "2" → "2"."""
    end = start
    while end < len(text) and text[end].isascii() and text[end].isdigit():
        end += 1
    if end == start:
        return None
    if end < len(text) and text[end] == "号":
        return text[start:end + 1], f"No. {text[start:end]}"
    return text[start:end], text[start:end]


def _longest_term(text: str, start: int, glossary: Glossary) -> tuple[str, str, str] | None:
    for length in range(min(glossary.longest, len(text) - start), 0, -1):
        piece = text[start:start + length]
        found = glossary.terms.get(piece)
        if found is not None and (not piece.isascii() or _whole_word(text, start, length)):
            return piece, found[0], found[1]
    return None


def _whole_word(text: str, start: int, length: int) -> bool:
    """A Latin term matches whole words only ("red" is not the start of "reddish")."""
    before = text[start - 1] if start > 0 else " "
    after = text[start + length] if start + length < len(text) else " "
    return not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalnum())


def _joined(parts: list[tuple[str, str]]) -> str:
    words: list[str] = []
    previous_kind = ""
    for k, (english, kind) in enumerate(parts):
        following = parts[k + 1][0].lower() if k + 1 < len(parts) else ""
        if kind == "colours" and following.startswith(english.lower() + " "):
            continue  # 金色金箔: "gold foil" says gold already
        if words and kind == "colours" and previous_kind == "colours":
            words.append("and")
        words.append(english)
        previous_kind = kind
    return " ".join(words)


def _title(text: str) -> str:
    words = text.split(" ")
    return " ".join(w if (i and w in _SMALL_WORDS) or not w[:1].islower() else w[:1].upper() + w[1:]
                    for i, w in enumerate(words))


@dataclass(frozen=True)
class GlossaryGap:
    """A term of style names the glossary lacks: the styles it keeps from an English name of their own
    (`untranslated`: those that have none at all; the others were given theirs by hand)."""

    term: str
    style_codes: tuple[str, ...]
    untranslated: tuple[str, ...]


def glossary_gaps(styles: Iterable[tuple[str, str, str]], glossary: Glossary | None = None) -> list[GlossaryGap]:
    """The terms the glossary lacks in these (style code, name, English name) rows, the most used first."""
    codes: dict[str, list[str]] = {}
    untranslated: dict[str, list[str]] = {}
    for code, name, name_en in styles:
        for term in compose_english(name, glossary).missing:
            codes.setdefault(term, []).append(code)
            if not name_en.strip():
                untranslated.setdefault(term, []).append(code)
    return sorted((GlossaryGap(term, tuple(found), tuple(untranslated.get(term, ()))) for term, found in
                   codes.items()), key=lambda gap: (-len(gap.untranslated), -len(gap.style_codes), gap.term))
