"""Nail quads and the per-finger palm test on hand-built landmark layouts (pixels, y down, smaller z nearer)."""

from __future__ import annotations

import numpy as np
import pytest

from nailmirror_desktop.vision.nails.geometry import (
    PROPORTIONS,
    nail_quads,
    nail_quads_for_hands,
    palm_facing_score,
    physical_handedness,
)
from nailmirror_desktop.vision.types import FINGER_LANDMARKS, Finger, HandObservation

# Knuckle x offsets from the wrist for index..pinky, as the back of a right hand is seen in an unmirrored
# photo with the fingers up: thumb on the left, pinky on the right.
_KNUCKLE_X = {Finger.INDEX: -36.0, Finger.MIDDLE: -12.0, Finger.RING: 12.0, Finger.PINKY: 34.0}
_BONES = {Finger.INDEX: (45, 28, 22), Finger.MIDDLE: (50, 32, 24), Finger.RING: (46, 30, 23),
          Finger.PINKY: (36, 22, 20)}


def flat_right_back(wrist=(300.0, 500.0)) -> np.ndarray:
    """(21, 3) landmarks of a flat right hand, back to the camera, fingers pointing up (−y), all at z = 0."""
    points = np.zeros((21, 3))
    points[0, :2] = wrist
    for finger, dx in _KNUCKLE_X.items():
        mcp, pip, dip, tip = FINGER_LANDMARKS[finger]
        points[mcp, :2] = (wrist[0] + dx, wrist[1] - 95)
        y = points[mcp, 1]
        for landmark, bone in zip((pip, dip, tip), _BONES[finger], strict=True):
            y -= bone
            points[landmark, :2] = (points[mcp, 0], y)
    # thumb: out to the left and up
    for landmark, (dx, dy) in zip((1, 2, 3, 4), ((-30, -25), (-55, -50), (-72, -75), (-85, -98)), strict=True):
        points[landmark, :2] = (wrist[0] + dx, wrist[1] + dy)
    return points


def curled_show_nails(wrist=(300.0, 500.0)) -> np.ndarray:
    """The "show your nails" pose: palm towards the camera, fingers curled towards it and folded back, so
    each distal bone points back down towards the palm and its nail faces the camera.

    Seen with the palm to the camera, a right hand's layout is the mirror of flat_right_back's.
    """
    points = flat_right_back(wrist)
    points[:, 0] = 2 * wrist[0] - points[:, 0]  # palm view: thumb on the right
    for finger in (Finger.INDEX, Finger.MIDDLE, Finger.RING, Finger.PINKY):
        mcp, pip, dip, tip = FINGER_LANDMARKS[finger]
        x, y = points[mcp, :2]
        points[pip] = (x, y - 30, -28)  # up and towards the camera
        points[dip] = (x, y - 25, -58)  # mostly towards the camera
        points[tip] = (x, y - 5, -45)  # folded back down and towards the palm
    return points


def quads_for(points: np.ndarray, label: str, *, mirrored: bool = False, score: float = 0.95):
    return nail_quads(HandObservation(points.astype(np.float32), label, score), 0, mirrored=mirrored)


def test_quads_sit_on_the_fingertips_oriented_tip_up():
    quads = quads_for(flat_right_back(), "Right")
    points = flat_right_back()
    assert [q.finger for q in quads] == list(Finger)
    for quad in quads[1:]:
        tip = points[FINGER_LANDMARKS[quad.finger][3], :2]
        corners = quad.corners
        free_edge_y, cuticle_y = corners[[0, 1], 1].mean(), corners[[2, 3], 1].mean()
        assert free_edge_y < cuticle_y  # free edge towards the tip (up)
        assert corners[0, 0] < corners[1, 0]  # texture left → image left for an upright finger
        centre = corners.mean(axis=0)
        assert abs(centre[0] - tip[0]) < 1e-3
        assert tip[1] - 5 < centre[1] < tip[1] + 15  # just behind the TIP landmark
        length = np.linalg.norm(corners[0] - corners[3])
        width = np.linalg.norm(corners[0] - corners[1])
        assert length > width > 5


def test_thumb_has_its_own_proportions():
    assert PROPORTIONS[Finger.THUMB] != PROPORTIONS[Finger.INDEX]
    quads = quads_for(flat_right_back(), "Right")
    aspect = {q.finger: np.linalg.norm(q.corners[0] - q.corners[3]) / np.linalg.norm(q.corners[0] - q.corners[1])
              for q in quads}
    assert aspect[Finger.THUMB] > aspect[Finger.INDEX] * 1.1


def test_quads_scale_with_the_hand():
    points = flat_right_back(wrist=(0.0, 0.0))
    small = quads_for(points, "Right")
    large = quads_for(points * 2.5, "Right")
    for a, b in zip(small, large, strict=True):
        np.testing.assert_allclose(b.corners, a.corners * 2.5, rtol=1e-4, atol=1e-3)


def test_back_of_flat_hand_is_painted_and_its_palm_is_not():
    back = quads_for(flat_right_back(), "Right")
    assert all(q.opacity == 1.0 for q in back)
    # the same layout labelled as the other hand is a left palm facing the camera
    palm = quads_for(flat_right_back(), "Left")
    assert all(q.opacity == 0.0 for q in palm)


def test_curled_pose_keeps_nails_though_the_palm_faces_the_camera():
    points = curled_show_nails()
    assert palm_facing_score(points, "Right", 0.95, mirrored=False) < 0  # the hand as a whole shows its palm
    quads = quads_for(points, "Right")
    fingers = {q.finger: q.opacity for q in quads}
    assert all(fingers[f] == 1.0 for f in (Finger.INDEX, Finger.MIDDLE, Finger.RING, Finger.PINKY))
    assert fingers[Finger.THUMB] == 0.0  # the straight thumb shows its pad


def test_curled_the_other_way_shows_pads():
    # fingers bent backwards (away from the camera) with the palm to the camera: pads face the camera
    points = curled_show_nails()
    points[:, 2] *= -1
    assert all(q.opacity == 0.0 for q in quads_for(points, "Right"))


def test_mirror_aware_handedness():
    assert physical_handedness("Right", mirrored=False) == "Right"
    assert physical_handedness("Right", mirrored=True) == "Left"
    # a selfie frame is the mirror image: the same physical hand, its back to the camera, is painted
    mirrored_points = flat_right_back()
    mirrored_points[:, 0] = 640 - mirrored_points[:, 0]
    mirrored_label = "Left"  # MediaPipe's label flips with the image
    quads = quads_for(mirrored_points, mirrored_label, mirrored=True)
    assert all(q.opacity == 1.0 for q in quads)
    assert physical_handedness(mirrored_label, mirrored=True) == "Right"


def test_low_confidence_paints_nothing():
    assert all(q.opacity == 0.0 for q in quads_for(flat_right_back(), "Right", score=0.3))


def test_degenerate_finger_is_not_painted():
    points = flat_right_back()
    _, _, dip, tip = FINGER_LANDMARKS[Finger.MIDDLE]
    points[tip] = points[dip]
    quads = quads_for(points, "Right")
    assert quads[Finger.MIDDLE].opacity == 0.0
    assert quads[Finger.INDEX].opacity == 1.0


@pytest.mark.parametrize("finger", list(Finger))
def test_quad_follows_a_rotated_finger(finger):
    angle = np.radians(40)
    rotation = np.array([[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0], [0, 0, 1]])
    points = flat_right_back(wrist=(0.0, 0.0))
    straight = quads_for(points, "Right")[finger].corners
    turned = quads_for(points @ rotation.T, "Right")[finger].corners
    np.testing.assert_allclose(turned, straight @ rotation[:2, :2].T, atol=1e-3)


def test_all_hands_at_once_give_each_hands_own_quads():
    right = HandObservation(flat_right_back().astype(np.float32), "Right", 0.95)
    curled = HandObservation(curled_show_nails((700.0, 420.0)).astype(np.float32), "Left", 0.9)
    unsure = HandObservation(flat_right_back((200.0, 300.0)).astype(np.float32), "Right", 0.3)
    broken = flat_right_back((900.0, 500.0))
    broken[FINGER_LANDMARKS[Finger.MIDDLE][3]] = broken[FINGER_LANDMARKS[Finger.MIDDLE][2]]
    hands = [right, curled, unsure, HandObservation(broken.astype(np.float32), "Right", 0.9)]
    for mirrored in (False, True):
        together = nail_quads_for_hands(hands, mirrored=mirrored)
        one_by_one = [quad for index, hand in enumerate(hands) for quad in nail_quads(hand, index, mirrored=mirrored)]
        assert len(together) == len(one_by_one) == 20
        for a, b in zip(together, one_by_one, strict=True):
            assert (a.finger, a.hand_index, a.opacity) == (b.finger, b.hand_index, b.opacity)
            np.testing.assert_array_equal(a.corners, b.corners)
    assert any(quad.opacity > 0 for quad in together[:10])  # the test is not vacuous: nails are painted
    assert nail_quads_for_hands([]) == []


def _index_bent(distal: tuple[float, float, float]) -> np.ndarray:
    """A hand's landmarks with the index's MCP at (100, 100), its DIP 40 px up, its tip `distal` from the DIP."""
    landmarks = np.zeros((21, 3))
    mcp, pip, dip, tip = FINGER_LANDMARKS[Finger.INDEX]
    landmarks[mcp] = (100, 100, 0)
    landmarks[pip] = (100, 80, 0)
    landmarks[dip] = (100, 60, 0)
    landmarks[tip] = landmarks[dip] + np.asarray(distal)
    return landmarks


def test_a_slight_bend_is_landmark_noise_the_palm_decides_a_real_curl_decides_itself():
    from nailmirror_desktop.vision.nails.geometry import finger_facing_score

    # ~18° bend whose depth says "curled away" (what the landmarks give a flat hand's middle finger): the
    # back of the hand faces the camera, so the nail does
    slight = finger_facing_score(_index_bent((0.0, -15.0, -5.0)), Finger.INDEX, palm_facing=0.8)
    assert slight > 0.2  # fully faded in
    # a real curl (~70°) away from the camera: its own direction wins over the palm's
    curled = finger_facing_score(_index_bent((0.0, -5.0, -15.0)), Finger.INDEX, palm_facing=0.8)
    assert curled < -0.1
