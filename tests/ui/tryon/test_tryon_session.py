"""The try-on session paints each finger with its style's design: the main finish everywhere, the accent's own
finish on whichever fingers carry the accent now."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.ui.tryon.tryon_session import TryOnSession, load_style_textures

DESIGN = {"version": 1, "base_color": {"id": "nude_pink", "rgb": [232, 188, 180], "tone": ""}, "finish": "matte",
          "patterns": [], "accents": [{"finger": "ring", "finish": "cat_eye", "patterns": [],
                                       "base_color": {"id": "burgundy", "rgb": [112, 18, 40], "tone": ""}}]}


def _textures(folder) -> dict:
    paths = {}
    for slot, colour in (("nail", (180, 188, 232)), ("accent", (40, 18, 112))):
        path = folder / f"{slot}.png"
        assert cv2.imwrite(str(path), np.full((24, 16, 3), colour, np.uint8))
        paths[slot] = path
    return paths


def test_the_accent_finish_follows_the_accent_fingers(tmp_path):
    pipeline = SimpleNamespace(compositor=None)
    session = TryOnSession(pipeline)
    session.apply(load_style_textures("NM-1", "半月", _textures(tmp_path), ("ring",), DESIGN))

    def finish(finger: Finger) -> str:
        texture = pipeline.compositor.texture_for(finger)
        assert texture is not None
        return texture.look.finish.name

    assert finish(Finger.RING) == "cat_eye" and finish(Finger.INDEX) == "matte"
    session.set_accent_fingers({Finger.INDEX})
    assert finish(Finger.INDEX) == "cat_eye" and finish(Finger.RING) == "matte"
    session.set_accent_fingers(set())
    assert {finish(f) for f in Finger} == {"matte"}


def test_a_style_without_a_design_is_a_gloss_creme(tmp_path):
    pipeline = SimpleNamespace(compositor=None)
    session = TryOnSession(pipeline)
    session.apply(load_style_textures("NM-2", "plain", _textures(tmp_path), ("ring",)))
    texture = pipeline.compositor.texture_for(Finger.INDEX)
    assert texture is not None and texture.look.finish.name == "gloss" and not texture.look.laid_out
