"""The box around the painted hands (vision/paint/framing.py): on real photos through the still pipeline, and
its widening to a panel's shape."""

from __future__ import annotations

import numpy as np
import pytest

from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.paint.framing import Box, fit_aspect, painted_hands_box
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from nailmirror_desktop.vision.types import HandObservation, NailQuad
from tests.support.hand_photos import nail_mask, photo

# a hand in the middle of a wide room (1079×607), and a hand in a tall photo (607×1079)
PHOTOS = ("2c376c66-9823-4874-869e-1e7f5c54ec7b.jpg", "4252e46c-e40f-4543-91ab-031917d46c5c.jpg")


@pytest.mark.slow
@pytest.mark.parametrize("name", PHOTOS)
def test_the_box_holds_every_painted_nail_and_drops_the_room(nails_eval_dir, name):
    image = photo(nails_eval_dir, name)
    height, width = image.shape[:2]
    with TryOnPipeline(Compositor(np.full((8, 8, 3), (40, 30, 200), np.uint8))) as pipeline:
        found = pipeline.process_still(image)
    painted = [q for q in found.quads if q.opacity > 0]
    assert len(painted) >= 4

    box = painted_hands_box(found.quads, found.hands, (width, height))

    assert box is not None
    corners = np.concatenate([q.corners for q in painted])
    assert (corners[:, 0] >= box.left - 1).all() and (corners[:, 0] <= box.right + 1).all()
    assert (corners[:, 1] >= box.top - 1).all() and (corners[:, 1] <= box.bottom + 1).all()
    truth = nail_mask(nails_eval_dir, name) > 127
    inside = truth[box.top:box.bottom, box.left:box.right].sum() / truth.sum()
    assert inside >= 0.95, f"{inside:.0%} of the true nails in the box"
    assert box.width * box.height <= 0.4 * width * height, "a close crop, not the whole room"


def _quad(x: float, y: float, size: float = 20.0, opacity: float = 1.0, hand: int = 0) -> NailQuad:
    corners = np.array([[x, y], [x + size, y], [x + size, y + size], [x, y + size]], np.float32)
    return NailQuad(Finger.INDEX, corners, hand, opacity)


def test_no_painted_nail_no_box():
    assert painted_hands_box([], [], (1280, 720)) is None
    assert painted_hands_box([_quad(100, 100, opacity=0.0)], [], (1280, 720)) is None


def test_the_margin_is_in_nail_lengths_and_the_fingers_are_kept():
    hand = HandObservation(np.zeros((21, 3), np.float32), "Left", 1.0)
    hand.landmarks[5:9] = [(300, 400, 0), (300, 330, 0), (300, 260, 0), (300, 210, 0)]  # knuckle … tip
    hand.landmarks[0] = (0, 0, 0)  # the wrist is not part of a finger: not in the box
    box = painted_hands_box([_quad(290, 200), _quad(500, 200, opacity=0.0)], [hand], (1280, 720), margin=1.0)
    assert box == Box(270, 180, 330, 420)  # the nail ±20 px (one nail length), down to the knuckle + 20


def test_the_box_stops_at_the_frame():
    box = painted_hands_box([_quad(2, 2), _quad(1250, 700)], [], (1280, 720))
    assert box == Box(0, 0, 1280, 720)


def test_fit_aspect_widens_about_the_centre_and_stays_in_the_frame():
    wide = fit_aspect(Box(600, 300, 700, 340), 2.0, (1280, 720))
    assert (wide.width, wide.height) == (100, 50) and (wide.left, wide.right) == (600, 700)
    assert (wide.top + wide.bottom) / 2 == 320
    tall = fit_aspect(Box(0, 600, 300, 720), 0.5, (1280, 720))  # against the bottom-left corner
    assert (tall.width, tall.height) == (300, 600) and tall.bottom == 720 and tall.left == 0


def test_fit_aspect_enlarges_at_most_so_far_and_never_cuts_the_box():
    small = fit_aspect(Box(600, 300, 640, 320), 2.0, (1280, 720), min_height=200)
    assert (small.width, small.height) == (400, 200)
    too_wide = fit_aspect(Box(0, 300, 1280, 400), 0.5, (1280, 720))  # the frame is not tall enough
    assert too_wide == Box(0, 0, 1280, 720)
