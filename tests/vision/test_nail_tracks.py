"""Nails followed across frames: hysteresis on the facing fade, a hold through brief drop-outs, never a palm."""

import numpy as np
import pytest

from nailmirror_desktop.vision.nails.geometry import nail_quads_for_hands
from nailmirror_desktop.vision.nails.nail_tracks import FADE_GRACE, HOLD_FRAMES, NailTracks
from nailmirror_desktop.vision.types import Finger, HandObservation, NailQuad


def _quad(cx: float, cy: float, opacity: float, finger: Finger = Finger.INDEX, hand: int = 0) -> NailQuad:
    corners = np.array([[cx - 8, cy - 12], [cx + 8, cy - 12], [cx + 8, cy + 12], [cx - 8, cy + 12]], np.float32)
    return NailQuad(finger, corners, hand, opacity)


def _painted(nails) -> list[bool]:
    return [nail.quad.opacity > 0 for nail in nails]


def test_a_nail_at_the_fade_edge_does_not_blink_once_painted():
    tracks = NailTracks()
    # the fade wavers between 0.3 and 0.7 as the finger's facing score jitters around the edge
    shown = [_painted(tracks.update([_quad(100 + i, 100, opacity)]))[0]
             for i, opacity in enumerate([0.3, 0.7, 0.3, 0.4, 0.05, 0.6, 0.2])]
    assert shown == [False, True, True, True, True, True, True]
    assert all(nail.quad.opacity in (0.0, 1.0) for nail in tracks.update([_quad(108, 100, 0.4)]))


def test_a_painted_nail_stops_the_first_frame_its_finger_faces_away():
    tracks = NailTracks()
    assert _painted(tracks.update([_quad(100, 100, 1.0)])) == [True]
    # unpainted at once; only the model may keep it (fading) for the grace's frames, then it is off
    frames = [tracks.update([_quad(101 + i, 100, 0.0)]) for i in range(FADE_GRACE + 1)]
    assert [(_painted(f), f[0].fading) for f in frames] == [([False], True)] * FADE_GRACE + [([False], False)]
    assert _painted(tracks.update([_quad(110, 100, 0.3)])) == [False]  # back under ON_AT: stays off


def test_a_nail_whose_fade_is_out_for_a_frame_is_painted_again_when_it_is_back_in():
    tracks = NailTracks()
    tracks.update([_quad(100, 100, 1.0)])
    assert [(_painted(f), f[0].fading) for f in (tracks.update([_quad(101, 100, 0.0)]),
                                                 tracks.update([_quad(102, 100, 0.3)]))] == [
        ([False], True), ([True], False)]  # landmark depth jitter: the hysteresis still holds it


def test_a_fading_nail_is_held_only_if_the_model_found_it():
    for found in (False, True):
        tracks = NailTracks()
        tracks.update([_quad(100, 100, 1.0)])
        fading = tracks.update([_quad(101, 100, 0.0)])[0]
        if found:  # the pipeline remembers a fading nail's fresh mask only when the model finds it there
            tracks.remember(fading.track_id, np.ones((64, 64), bool))
        held = tracks.update([])
        assert _painted(held) == ([True] if found else []), found


def test_a_nail_that_drops_out_for_two_frames_stays_painted_where_it_was_going():
    tracks = NailTracks()
    for x in (100, 104, 108):
        tracks.update([_quad(x, 100, 1.0)])
    held = [tracks.update([]) for _ in range(2)]
    assert [_painted(frame) for frame in held] == [[True], [True]]
    assert [frame[0].seen for frame in held] == [False, False]
    centres = [float(frame[0].quad.corners[:, 0].mean()) for frame in held]
    assert centres == pytest.approx([112, 116])  # constant velocity, 4 px a frame
    back = tracks.update([_quad(120, 100, 1.0)])
    assert _painted(back) == [True] and back[0].seen
    assert back[0].track_id == held[0][0].track_id  # the same nail, not a new one


def test_a_nail_that_drops_out_beside_its_hands_facing_nails_is_held():
    tracks = NailTracks()
    for x in (100, 104):
        tracks.update([_quad(x, 100, 1.0), _quad(x + 30, 100, 1.0, Finger.MIDDLE)])
    # the index's quad is lost (e.g. degenerate) while the middle finger beside it still faces the camera
    frame = tracks.update([_quad(138, 100, 1.0, Finger.MIDDLE)])
    assert sorted((nail.quad.finger.name, nail.seen, nail.quad.opacity > 0) for nail in frame) == [
        ("INDEX", False, True), ("MIDDLE", True, True)]


def test_a_nail_that_drops_out_beside_nails_facing_away_is_not_held():
    tracks = NailTracks()
    for x in (100, 104):
        tracks.update([_quad(x, 100, 1.0), _quad(x + 30, 100, 1.0, Finger.MIDDLE)])
    # the hand turns: the middle finger is seen facing away and the index is not seen: nothing is left painted
    frame = tracks.update([_quad(138, 100, 0.0, Finger.MIDDLE)])
    assert [nail.quad.finger for nail in frame] == [Finger.MIDDLE] and not any(_painted(frame))


def test_a_hold_ends_after_hold_frames():
    tracks = NailTracks()
    tracks.update([_quad(100, 100, 1.0)])
    frames = [tracks.update([]) for _ in range(HOLD_FRAMES + 1)]
    assert [len(frame) for frame in frames] == [1] * HOLD_FRAMES + [0]


def test_a_nail_that_was_never_painted_is_not_held():
    tracks = NailTracks()
    tracks.update([_quad(100, 100, 0.2)])
    assert tracks.update([]) == []


def test_nails_follow_their_finger_not_the_landmarkers_hand_order():
    tracks = NailTracks()
    first = tracks.update([_quad(100, 100, 1.0, hand=0), _quad(300, 100, 0.0, hand=1)])
    # the landmarker swaps the hands' order: the painted nail is still the one at x≈100
    second = tracks.update([_quad(302, 100, 0.0, hand=0), _quad(101, 100, 0.0, hand=1)])
    by_id = {nail.track_id: nail for nail in second}
    assert by_id[first[0].track_id].quad.hand_index == 1 and not by_id[first[1].track_id].quad.opacity


def _hand(palm_towards_camera: bool) -> HandObservation:
    """A right hand, fingers straight up, seen from the back (MediaPipe's 'Right' on an unmirrored frame) or,
    mirrored left-right, from the palm side (the same label)."""
    points = np.zeros((21, 3), np.float32)
    points[0] = (200, 400, 0)
    for finger, x in zip(range(5), (120, 160, 200, 240, 280), strict=True):
        base = 1 + 4 * finger
        for joint in range(4):
            points[base + joint] = (x, 300 - 40 * joint, -5 * joint)
    if palm_towards_camera:
        points[:, 0] = 400 - points[:, 0]
    return HandObservation(points, "Right", 0.95)


def test_a_palm_is_never_painted_not_even_after_the_back_of_the_hand():
    back = nail_quads_for_hands([_hand(palm_towards_camera=False)])
    palm = nail_quads_for_hands([_hand(palm_towards_camera=True)])
    assert all(q.opacity >= 0.5 for q in back[1:]) and all(q.opacity == 0 for q in palm)
    tracks = NailTracks()
    assert not any(_painted(tracks.update(palm)))  # a palm alone: never
    for _ in range(3):
        assert not any(_painted(tracks.update(palm)))
    tracks = NailTracks()
    assert sum(_painted(tracks.update(back))) >= 4
    assert not any(_painted(tracks.update(palm)))  # the hand turns over: the palm is bare at once


def test_fresh_masks_are_carried_for_hold_frames_then_forgotten():
    tracks = NailTracks()
    nail = tracks.update([_quad(100, 100, 1.0)])[0]
    mask = np.ones((64, 64), bool)
    tracks.remember(nail.track_id, mask)
    ages = []
    for step in range(HOLD_FRAMES + 1):
        current = tracks.update([_quad(101 + step, 100, 1.0)])[0]
        ages.append((current.mask_age, current.roi_mask is mask))
    assert ages == [(age, True) for age in range(1, HOLD_FRAMES + 1)] + [(HOLD_FRAMES + 1, False)]


def test_a_nail_held_after_a_jittered_frame_stays_near_its_path():
    tracks = NailTracks()
    # moving 4 px a frame; the last landmark set before the drop-out jumped 12 px ahead (jitter, not motion)
    for x in (100, 104, 108, 124):
        tracks.update([_quad(x, 100, 1.0)])
    held = tracks.update([])[0]
    assert not held.seen and held.quad.opacity == 1.0
    # the true path is at 116 + 12 jitter = 128: constant velocity of the last step would put it at 140
    assert abs(float(held.quad.corners[:, 0].mean()) - 128) <= 6


def test_a_carried_mask_moves_with_the_nail_not_with_its_landmarks_jitter():
    tracks = NailTracks()
    # the nail moves 4 px a frame; from frame 3 its landmarks jitter ±6 px around it
    xs = [100 + 4 * i + (6 if i % 2 else -6) * (i > 2) for i in range(7)]
    for x in xs[:3]:
        nail = tracks.update([_quad(x, 100, 1.0)])[0]
    tracks.remember(nail.track_id, np.ones((64, 64), bool))
    carried_error, landmark_error = [], []
    for i in range(3, 7):
        nail = tracks.update([_quad(xs[i], 100, 1.0)])[0]
        assert nail.moved is not None and nail.moved[1] == 0
        true_shift = 4 * (i - 2)
        carried_error.append(abs(float(nail.moved[0]) - true_shift))
        landmark_error.append(abs(xs[i] - xs[2] - true_shift))
    assert np.mean(carried_error) <= 0.5 * np.mean(landmark_error)  # measured 2.2 px against 6 px


def test_a_nail_that_drops_out_beside_its_hands_sideways_thumb_is_held():
    tracks = NailTracks()
    for x in (100, 104):
        tracks.update([_quad(x, 100, 1.0), _quad(x - 25, 110, 0.2, Finger.THUMB)])
    # the index's quad is lost; the thumb beside it faces sideways (low fade) as a thumb does: still held
    frame = tracks.update([_quad(83, 110, 0.2, Finger.THUMB)])
    assert sorted((nail.quad.finger.name, nail.seen, nail.quad.opacity > 0) for nail in frame) == [
        ("INDEX", False, True), ("THUMB", True, False)]


def _fingers_painted(nails) -> list[tuple[str, float, bool]]:
    return sorted((nail.quad.finger.name, round(float(nail.quad.corners[:, 0].mean())), nail.seen)
                  for nail in nails if nail.quad.opacity > 0)


def test_a_finger_that_moves_far_between_skipped_frames_takes_its_nail_along():
    # a busy mirror paints every 3rd frame: a hand moving 2 nail lengths (48 px) between two painted frames.
    # Matched within one length, its nails started new tracks and the old ones were held beside them, flying on
    # off the fingers, and took the fingers back from the new ones frame after frame: two nails a finger
    tracks = NailTracks()
    for step in range(8):
        x = 100 + 48 * step
        nails = tracks.update([_quad(x, 100, 1.0 if step == 0 else 0.3), _quad(x + 30, 100, 1.0, Finger.MIDDLE),
                               _quad(600, 100, 1.0, hand=1)], frames=3)  # the other hand holds still
        # one nail a finger and hand, on its finger, and still painted at a fade below ON_AT (the hysteresis)
        assert _fingers_painted(nails) == [("INDEX", x, True), ("INDEX", 600, True), ("MIDDLE", x + 30, True)]
    assert len({nail.track_id for nail in nails}) == 3


def test_a_lost_hands_nail_is_held_while_the_same_finger_of_the_other_hand_moves_far():
    tracks = NailTracks()
    for x in (100, 104):
        tracks.update([_quad(x, 100, 1.0, hand=0), _quad(x + 300, 100, 1.0, hand=1)])
    # hand 1 is lost; hand 0's index moved 60 px (2.5 nail lengths) over 3 frames: hand 0's nail moves, not 1's
    nails = tracks.update([_quad(164, 100, 1.0, hand=0)], frames=3)
    assert _fingers_painted(nails) == [("INDEX", 164, True), ("INDEX", 408, False)]
