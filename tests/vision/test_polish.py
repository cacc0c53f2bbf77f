"""A style's design → how each nail is painted: the finish, and for simple designs the laid-out colour, French
tip and half-moon; designs with other patterns keep their texture."""

from __future__ import annotations

import json
from pathlib import Path

from nailmirror_desktop.core.generation.design import Accent, Design, FingerDesign, Pattern, make_color
from nailmirror_desktop.vision.paint.polish import (
    DEFAULT_LOOK,
    FINISHES,
    design_from_json,
    finish_named,
    look_for_design,
    looks_for_style,
)
from nailmirror_desktop.vision.paint.style_textures import load_style
from nailmirror_desktop.vision.types import Finger

ROOT = Path(__file__).resolve().parents[2]


def test_the_starter_half_moon_is_laid_out_from_its_design():
    style = load_style(ROOT / "resources" / "starter_catalog" / "NM-FRE-005")  # 酒红半月
    look = style.looks[Finger.MIDDLE]
    assert look.laid_out and look.base_bgr == (180, 188, 232)  # nude pink, BGR
    assert look.moon is not None and look.moon.colour_bgr == (40, 18, 112)  # burgundy at the cuticle
    assert look.tip is None and look.finish.name == "gloss" and look.finish.opacity == 1.0


def test_french_glitter_and_finishes_map_to_their_looks():
    french = look_for_design(FingerDesign(make_color("nude_pink"), "gloss", (Pattern("french"),)))
    assert french.tip is not None and french.tip.depth > 0.1 and french.moon is None
    micro = look_for_design(FingerDesign(make_color("nude_pink"), "gloss", (Pattern("micro_french"),)))
    assert micro.tip is not None and micro.tip.depth < french.tip.depth
    glitter = look_for_design(FingerDesign(make_color("burgundy"), "gloss", (Pattern("glitter"),)))
    assert glitter.laid_out and glitter.finish.glitter > 0
    for name in ("jelly", "matte", "chrome", "cat_eye"):
        look = look_for_design(FingerDesign(make_color("burgundy"), name, ()))
        assert look.laid_out and look.finish is FINISHES[name]
    assert finish_named("jelly").opacity < 1.0 and finish_named("matte").specular == 0.0
    assert finish_named("no_such_finish") is finish_named(None) is FINISHES["gloss"]


def test_a_patterned_design_keeps_its_texture_but_takes_its_finish():
    florals = look_for_design(FingerDesign(make_color("white"), "matte", (Pattern("florals"),)))
    assert not florals.laid_out and florals.base_bgr is None and florals.finish.name == "matte"


def test_accent_fingers_get_their_own_look():
    design = Design(make_color("nude_pink"), "gloss", (Pattern("french"),),
                    accents=(Accent("ring", FingerDesign(make_color("burgundy"), "cat_eye", ())),))
    looks = looks_for_style(design)
    assert looks["ring"].finish.name == "cat_eye" and looks["ring"].tip is None
    assert looks["index"].tip is not None and looks["index"].finish.name == "gloss"


def test_design_json_in_either_stored_form_or_none():
    design = Design(make_color("burgundy"), "matte")
    assert design_from_json(json.dumps(design.to_dict())) == design
    assert design_from_json(json.dumps({"design": design.to_dict(), "seed": 4})) == design
    for bad in (None, "", "not json", "[]", json.dumps({"design": {"finish": "matte"}})):
        assert design_from_json(bad) is None


def test_a_plain_texture_is_an_opaque_gloss_creme():
    assert DEFAULT_LOOK.finish.opacity == 1.0 and DEFAULT_LOOK.finish.specular > 0 and not DEFAULT_LOOK.laid_out
