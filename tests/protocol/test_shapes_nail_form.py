"""The nail shape and length vocabulary the protocol names for a style's design: the kiosk's own is the same
words, and a design from an older side (no shape or length) or with a word outside it recommends nothing."""

from __future__ import annotations

from nailmirror_desktop.core.nail_form import NailLength, NailShape
from nailmirror_protocol.shapes import NAIL_LENGTHS, NAIL_SHAPES, recommended_nail_form


def test_the_kiosk_and_the_protocol_share_the_words():
    assert tuple(s.value for s in NailShape) == NAIL_SHAPES
    assert tuple(n.value for n in NailLength) == NAIL_LENGTHS


def test_a_design_recommends_what_it_names_in_the_vocabulary():
    assert recommended_nail_form({"shape": "coffin", "length": "long"}) == ("coffin", "long")
    assert recommended_nail_form({"base": "milky_white"}) == (None, None)
    assert recommended_nail_form({"shape": "oval", "length": 3}) == (None, None)
    assert recommended_nail_form(None) == (None, None)
