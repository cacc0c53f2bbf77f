"""Versions of one design to choose between: the same idea in main colours a customer tells apart at a glance.

"Show me more versions" used to render the same design with other seeds, and a solid or cat-eye design came
back three times the same (glitter and flakes only fell elsewhere). A version here is the design with another
main colour: the nearest shade of the vocabulary (a named colour or a tone of one) that differs from the
customer's colour and from every earlier version by at least `MIN_DELTA_E` (CIEDE2000), so the versions are
related yet clearly apart, and each is named for its own colour (core/generation/naming.py). Version 0 is the
design as asked. Colours the customer said no to, and colours that would hide a pattern (gold foil on a gold
base), are never chosen. Where a pattern covers most of the nail (an ombre's tip colour, watercolour pools,
tortoiseshell) its colour moves the same way, or the versions would still look alike; a galaxy keeps its night
sky, and its versions differ in where the nebulae and stars fall (each version has its own seed).
"""

from __future__ import annotations

from dataclasses import replace

from nailmirror_desktop.core.colour_difference import delta_e00_rgb
from nailmirror_desktop.core.generation import vocabulary as vocab
from nailmirror_desktop.core.generation.design import Color, Design, Pattern, make_color

# ΔE00 asked of a version's colours: 10 is the promise for the rendered nail, and finishes (cat-eye, matte,
# jelly) and patterns pull rendered colours closer together than the polish's own
MIN_DELTA_E = 18.0
PATTERN_DELTA_E = 10.0  # a base this close to a pattern's colour would hide the pattern
_TONES = ("", "dark", "light", "muted")
_NO_TONES = {"clear", "white", "black"}  # "dark white" or "light black" name no real polish
# patterns that cover most of the nail, and the colour they paint when the prompt named none
COVERING_PATTERNS = {"ombre": None, "blooming": None, "blush": None, "tortoiseshell": "caramel"}


def vary_design(design: Design, version: int) -> Design:
    """The `version`-th version of a design (0: the design itself); raises ValueError for a negative version."""
    if version < 0:
        raise ValueError("version must be 0 or more")
    if version == 0:
        return design
    excluded = set(design.excluded)
    hidden = [p.color.rgb for p in design.patterns if p.color is not None and p.kind not in COVERING_PATTERNS]
    base = shades(design.base_color, version, avoid=hidden, excluded=excluded)[version]
    patterns = tuple(_varied_pattern(p, version, base, excluded) for p in design.patterns)
    return replace(design, base_color=base, patterns=patterns)


def shades(colour: Color, versions: int, *, avoid: list[tuple[int, int, int]] | None = None,
           excluded: set[str] | None = None) -> list[Color]:
    """`colour` and the `versions` shades after it: each the nearest (by ΔE00) named colour or tone of one at
    least MIN_DELTA_E from all before it, and at least PATTERN_DELTA_E from every colour in `avoid`."""
    chosen = [colour]
    avoid, excluded = avoid or [], excluded or set()
    candidates = sorted(_candidates(colour, excluded), key=lambda c: (delta_e00_rgb(colour.rgb, c.rgb), c.id,
                                                                      c.tone))
    for candidate in candidates:
        if len(chosen) > versions:
            break
        if all(delta_e00_rgb(candidate.rgb, c.rgb) >= MIN_DELTA_E for c in chosen) and all(
                delta_e00_rgb(candidate.rgb, rgb) >= PATTERN_DELTA_E for rgb in avoid):
            chosen.append(candidate)
    if len(chosen) <= versions:  # the vocabulary has far more colours than MAX_VARIATIONS: never in practice
        raise ValueError(f"no {versions} colours apart from {colour.id}")
    return chosen


def _varied_pattern(pattern: Pattern, version: int, base: Color, excluded: set[str]) -> Pattern:
    if pattern.kind not in COVERING_PATTERNS:
        return pattern
    default = COVERING_PATTERNS[pattern.kind]
    colour = pattern.color or (make_color(default) if default is not None else None)
    if colour is None:  # painted from the base colour, which already moved
        return pattern
    return replace(pattern, color=shades(colour, version, avoid=[base.rgb], excluded=excluded)[version])


def _candidates(colour: Color, excluded: set[str]) -> list[Color]:
    return [make_color(colour_id, tone) for colour_id in vocab.COLORS if colour_id not in excluded
            for tone in _TONES if not (tone and colour_id in _NO_TONES)
            if (colour_id, tone) != (colour.id, colour.tone)]
