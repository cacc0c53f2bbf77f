"""What a nail's polish looks like to the compositor: its finish (how it takes the light) and its salon layout
(a French tip at the free edge, a half-moon at the cuticle), taken from a style's design where it has one.

A `NailLook` rides on each prepared texture (`compositor.prepare_texture(image, look)`). Two kinds:
- textured (`base_bgr` None): the texture is the polish's colour (patterns, florals, a remote swatch), and the
  finish adds only its light (curvature, specular, matte, jelly's sheerness comes from the texture's alpha);
- laid out (`base_bgr` set): the design is simple enough to paint from its data (a colour, a finish, a French
  tip, a half-moon, glitter), so the compositor paints it in the nail's own coordinates, anchored to the edges
  of what is actually painted. The texture is not used: its French tip or half-moon sits at the texture
  rectangle's edge, which is not where the nail's free edge or cuticle is (a half-moon "floating mid-nail").

The finishes are physical caricatures, chosen to read apart at kiosk size: crème/gloss is opaque with a
cylinder's shading and a sharp streak along the nail's axis; jelly is sheer (the nail and its lunula show
through); matte has no specular at all (the real nail's highlights are held back too) and a flatter shading;
chrome is a mirror (the colour's brightness follows bright and dark reflection bands across the nail);
cat-eye is a dark base with one bright velvet line along the axis; glitter is a crème with sparkles fixed to
the nail. Finish ids are the vocabulary's (core/generation/vocabulary.py FINISHES).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from nailmirror_desktop.core.generation.design import Color, Design, FingerDesign

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class Finish:
    """How a polish takes the light. Every amount is in [0, 1] unless said otherwise.

    opacity: how much of the nail is hidden (1 crème, ~0.6 jelly); used for laid-out looks (a texture's own
    alpha says it for textured ones). curvature: how much darker the nail's sides are than its crown.
    specular: the synthetic highlight streak's strength; streak_width: its half-width across the nail (a fraction
    of the nail's width). real_highlights: gain on the real nail's own highlights. detail: how much of the real
    nail's fine luminance detail stays. chrome, cat_eye, glitter: the strength of those effects.
    """

    name: str
    opacity: float = 1.0
    curvature: float = 0.22
    specular: float = 0.55
    streak_width: float = 0.07
    real_highlights: float = 1.0
    detail: float = 0.2
    chrome: float = 0.0
    cat_eye: float = 0.0
    glitter: float = 0.0


GLOSS = Finish("gloss")
FINISHES: dict[str, Finish] = {
    "gloss": GLOSS,
    "creme": replace(GLOSS, name="creme"),
    "jelly": Finish("jelly", opacity=0.6, curvature=0.16, specular=0.6, streak_width=0.06, detail=0.0),
    "matte": Finish("matte", curvature=0.1, specular=0.0, real_highlights=0.0, detail=0.1),
    "chrome": Finish("chrome", curvature=0.1, specular=0.85, streak_width=0.045, real_highlights=1.4,
                     detail=0.0, chrome=1.0),
    "metallic": Finish("metallic", curvature=0.15, specular=0.7, streak_width=0.05, real_highlights=1.2,
                       detail=0.0, chrome=0.6),
    "cat_eye": Finish("cat_eye", curvature=0.2, specular=0.45, streak_width=0.05, detail=0.0, cat_eye=1.0),
    "glitter": Finish("glitter", specular=0.5, detail=0.0, glitter=1.0),
    "shimmer": Finish("shimmer", specular=0.5, detail=0.0, glitter=0.45),
    "pearl": Finish("pearl", curvature=0.18, specular=0.45, streak_width=0.09),
    "mother_of_pearl": Finish("mother_of_pearl", curvature=0.18, specular=0.45, streak_width=0.09),
    "aurora": Finish("aurora", specular=0.6),
}


@dataclass(frozen=True)
class Band:
    """A laid-out band of another colour: a French tip (depth: fraction of the nail's length at its centre) or a
    half-moon (depth: fraction of the length it reaches up from the cuticle)."""

    colour_bgr: BGR
    depth: float


@dataclass(frozen=True)
class NailLook:
    """finish: how it takes the light; base_bgr: the polish colour of a laid-out look (None: the texture is the
    colour); tip: a French tip at the free edge; moon: a half-moon at the cuticle."""

    finish: Finish = GLOSS
    base_bgr: BGR | None = None
    tip: Band | None = None
    moon: Band | None = None

    @property
    def laid_out(self) -> bool:
        return self.base_bgr is not None


DEFAULT_LOOK = NailLook()  # an opaque crème with a gloss: what a texture without design data gets

# patterns the compositor lays out itself; any other pattern keeps the texture
_LAID_OUT = {"solid", "french", "micro_french", "reverse_french", "glitter"}
_TIP_DEPTH = {"french": 0.2, "micro_french": 0.08}
_MOON_DEPTH = 0.3
_WHITE_TIP: BGR = (245, 247, 250)
_GOLD_TIP: BGR = (69, 178, 219)


def finish_named(name: str | None) -> Finish:
    """The Finish for a vocabulary finish id; an unknown or missing one is a gloss."""
    return FINISHES.get(name or "gloss", GLOSS)


def look_for_finish(name: str, base_bgr: BGR | None = None) -> NailLook:
    """A look with this finish: on the texture's colour (base_bgr None) or laid out in `base_bgr`."""
    return NailLook(finish_named(name), base_bgr)


def look_for_design(design: FingerDesign) -> NailLook:
    """The look of one finger's resolved design (`Design.finger_design`)."""
    finish = finish_named(design.finish)
    kinds = {pattern.kind for pattern in design.patterns}
    if design.base_color is None or not kinds <= _LAID_OUT:
        return NailLook(finish)
    if "glitter" in kinds and finish.glitter == 0.0:
        finish = replace(finish, glitter=FINISHES["glitter"].glitter, detail=0.0)
    base = _bgr(design.base_color)
    tip = moon = None
    for pattern in design.patterns:
        if pattern.kind in _TIP_DEPTH:
            colour = _bgr(pattern.color) if pattern.color else _default_tip(base)
            tip = Band(colour, _TIP_DEPTH[pattern.kind])
        elif pattern.kind == "reverse_french":
            moon = Band(_bgr(pattern.color) if pattern.color else _default_tip(base), _MOON_DEPTH)
    return NailLook(finish, base, tip, moon)


def looks_for_style(design: Design) -> dict[str, NailLook]:
    """Every finger's look (finger name → NailLook) for a style's design."""
    return {finger: look_for_design(design.finger_design(finger))
            for finger in ("thumb", "index", "middle", "ring", "pinky")}


def design_from_json(text: str | None) -> Design | None:
    """A style's design from what the repository keeps as design_json: the design itself, or an object with it
    under "design" (style folders and the starter catalog). None when there is none or it does not parse."""
    if not text:
        return None
    try:
        data: Any = json.loads(text)
    except (TypeError, ValueError):
        return None
    return design_from_dict(data)


def design_from_dict(data: Any) -> Design | None:
    """A Design from a design dict or an object holding one under "design"; None if it is neither."""
    if isinstance(data, dict) and isinstance(data.get("design"), dict):
        data = data["design"]
    if not isinstance(data, dict) or "base_color" not in data:
        return None
    try:
        return Design.from_dict(data)
    except ValueError:
        return None


def _bgr(color: Color) -> BGR:
    r, g, b = color.rgb
    return (b, g, r)


def _default_tip(base: BGR) -> BGR:
    # what the renderer does (artwork/painters.py _french): a white tip, or gold on a base already near white
    b, g, r = base
    return _WHITE_TIP if 0.114 * b + 0.587 * g + 0.299 * r < 0.86 * 255 else _GOLD_TIP
