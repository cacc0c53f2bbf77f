"""No painted nail off its finger: on the demo video painted the way a busy mirror paints it (frames skipped, so
the fingers move further between painted frames), judged by vision/evaluation/stray.py."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nailmirror_desktop.core.paths import resources_dir
from nailmirror_desktop.vision.evaluation.stray import check_frame
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from nailmirror_desktop.vision.types import Finger, HandObservation, NailQuad

RED = np.full((60, 40, 3), (0, 0, 255), np.uint8)
STEP = 5  # every 5th frame: 6 FPS, a kiosk busy with two hands on a loaded 2-core PC
FRAMES = 40  # 1.7 loops of the demo: the first stray nail came at the 6th painted frame


def _straight_hand() -> HandObservation:
    """A hand, fingers straight up, nails at x = 120, 160, 200, 240, 280 near y = 180."""
    points = np.zeros((21, 3), np.float32)
    points[0] = (200, 400, 0)
    for finger, x in enumerate((120, 160, 200, 240, 280)):
        for joint in range(4):
            points[1 + 4 * finger + joint] = (x, 300 - 40 * joint, -5 * joint)
    return HandObservation(points, "Right", 0.95)


def _nail(x: float, y: float, finger: Finger = Finger.INDEX) -> NailQuad:
    corners = np.array([[x - 8, y - 12], [x + 8, y - 12], [x + 8, y + 12], [x - 8, y + 12]], np.float32)
    return NailQuad(finger, corners, 0, 1.0)


def test_the_judge_tells_a_nail_on_its_finger_from_one_in_the_air_or_on_another_finger():
    hand = [_straight_hand()]
    assert check_frame([_nail(160, 190)], None, hand, mirrored=False).stray == 0  # on the index's distal bone
    assert check_frame([_nail(160, 260)], None, hand, mirrored=False).stray == 1  # two lengths down: a crease
    assert check_frame([_nail(330, 190)], None, hand, mirrored=False).stray == 1  # beside the hand, in the air
    assert check_frame([_nail(200, 190)], None, hand, mirrored=False).stray == 1  # an index nail on the middle


@pytest.mark.slow
def test_a_busy_mirror_paints_no_nail_off_its_finger_on_the_demo_video():
    capture = cv2.VideoCapture(str(resources_dir() / "demo" / "hand_demo.mp4"))
    loop = []
    while (read := capture.read())[0]:
        loop.append(cv2.flip(read[1], 1))  # mirrored, as the kiosk shows it
    capture.release()
    stray, painted = [], []
    with TryOnPipeline(Compositor(RED), mirrored=True, max_hands=2) as pipeline:
        for n in range(FRAMES):
            k = n * STEP
            tracked = pipeline.track_video_frame(loop[k % len(loop)], round(k * 1000 / 30))
            result = pipeline.paint_video_frame(tracked)
            check = check_frame(result.quads, result.masks, tracked.hands, mirrored=True)
            stray.append(check.stray)
            painted.append(check.painted)
            on = [q.finger for q in result.quads if q.opacity > 0]
            assert all(on.count(finger) <= len(tracked.hands) for finger in Finger), (n, on)  # one a hand
    assert stray == [0] * FRAMES, stray
    assert np.mean(painted) >= 8, painted  # of 10 nails, the thumbs sideways now and then
