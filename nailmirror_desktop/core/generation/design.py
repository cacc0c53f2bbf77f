"""The structured nail design: what a customer's prompt means, independent of how it was worded.

A `Design` is the main design of all nails plus the accent fingers that differ from it; it is what the prompt
parser produces, what the offline renderer paints and what the prompt writer puts into words for a remote
image model. It is JSON-safe through `to_dict`/`from_dict` (task payloads carry it). Ids are the vocabulary's
canonical ids (ARCHITECTURE.md §10).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nailmirror_desktop.core.generation import vocabulary as vocab

DESIGN_FORMAT_VERSION = 1
DEFAULT_FINISH = "gloss"


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
            "accents": [_accent_to_dict(a) for a in self.accents],
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
            accents=tuple(_accent_from_dict(a) for a in data.get("accents", ())),
            themes=tuple(data.get("themes", ())),
            excluded=tuple(data.get("excluded", ())),
            unknown_terms=tuple(data.get("unknown_terms", ())),
        )


def make_color(color_id: str, tone: str = "") -> Color:
    """The Color for a canonical id with an optional tone shift (light: 45 % towards white, dark: ×0.6,
    muted: 35 % towards grey)."""
    rgb = vocab.COLORS[color_id][0]
    grey = sum(rgb) / 3
    r, g, b = (_toned_channel(c, tone, grey) for c in rgb)
    return Color(id=color_id, rgb=(r, g, b), tone=tone)


def _toned_channel(channel: int, tone: str, grey: float) -> int:
    if tone == "light":
        return round(channel + (255 - channel) * 0.45)
    if tone == "dark":
        return round(channel * 0.6)
    if tone == "muted":
        return round(channel * 0.65 + grey * 0.35)
    return channel


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


def _accent_to_dict(accent: Accent) -> dict[str, Any]:
    return {
        "finger": accent.finger,
        "base_color": _color_to_dict(accent.design.base_color),
        "finish": accent.design.finish,
        "patterns": [_pattern_to_dict(p) for p in accent.design.patterns],
    }


def _accent_from_dict(data: dict[str, Any]) -> Accent:
    return Accent(
        finger=str(data["finger"]),
        design=FingerDesign(
            base_color=_color_from_dict(data.get("base_color")),
            finish=data.get("finish"),
            patterns=tuple(_pattern_from_dict(p) for p in data.get("patterns", ())),
        ),
    )
