"""Nail shape and length, one vocabulary for every flow: the customer picks them on the style card, a style may
recommend them (style.json, HQ's style fields), the still CLI takes them, and vision builds the extension.

Lengths are multiples of the nail's own length (as seen in the image) that the extension adds beyond its free
edge; natural adds nothing and paints the nail as found, whatever the shape (ARCHITECTURE.md §3).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class NailShape(StrEnum):
    ROUND = "round"
    SQUARE = "square"
    SQUOVAL = "squoval"
    ALMOND = "almond"
    COFFIN = "coffin"
    STILETTO = "stiletto"


class NailLength(StrEnum):
    NATURAL = "natural"
    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"
    EXTRA_LONG = "extra-long"


# Extension beyond the free edge, in nail lengths. Why these: a salon's "short" extension shows about a quarter
# of the nail again past the fingertip, "extra long" is a little over the nail's own length again.
LENGTH_MULTIPLES: dict[NailLength, float] = {
    NailLength.NATURAL: 0.0,
    NailLength.SHORT: 0.25,
    NailLength.MEDIUM: 0.5,
    NailLength.LONG: 0.8,
    NailLength.EXTRA_LONG: 1.2,
}


@dataclass(frozen=True)
class NailForm:
    """What the customer chose: the tip's shape and the extension's length. The default paints nails as found."""

    shape: NailShape = NailShape.ROUND
    length: NailLength = NailLength.NATURAL

    @property
    def extends(self) -> bool:
        return self.length is not NailLength.NATURAL

    @property
    def multiple(self) -> float:
        return LENGTH_MULTIPLES[self.length]


NATURAL = NailForm()


def parse_form(shape: str | None, length: str | None) -> NailForm:
    """A NailForm from its two words (None: the default); ValueError naming the word for anything else."""
    try:
        chosen_shape = NailShape(shape) if shape is not None else NailShape.ROUND
    except ValueError:
        raise ValueError(f"unknown nail shape {shape!r}: one of {', '.join(s.value for s in NailShape)}") from None
    try:
        chosen_length = NailLength(length) if length is not None else NailLength.NATURAL
    except ValueError:
        raise ValueError(f"unknown nail length {length!r}: one of {', '.join(v.value for v in NailLength)}") from None
    return NailForm(chosen_shape, chosen_length)


def recommended_form(design: object) -> NailForm | None:
    """The shape and length a style's design asks for (its "shape" and "length" words, as the prompt parser and
    style.json write them), or None when it names neither. A shape alone comes at medium length, a length
    alone as round; words outside the vocabulary (an "oval" the painter has no tip for) are left out."""
    if not isinstance(design, dict):
        return None
    shape = _member(NailShape, design.get("shape"))
    length = _member(NailLength, design.get("length"))
    if shape is None and length is None:
        return None
    return NailForm(shape or NailShape.ROUND, length or NailLength.MEDIUM)


def _member[E: StrEnum](kind: type[E], word: object) -> E | None:
    if not isinstance(word, str):
        return None
    try:
        return kind(word)
    except ValueError:
        return None
