"""Nail quads from hand landmarks (ARCHITECTURE.md §11): where each nail plate is, and whether it faces the camera.

Each quad is the nail plate's bounding rectangle (the compositor inscribes its nail shape in it), laid along
the distal phalanx: its axis runs DIP→TIP, its top edge is the free edge. Sizes come from two independent
measures of the finger, because each fails in its own pose: the distal segment |TIP−DIP| shrinks when the
finger curls towards the camera, and the knuckle spacing (finger width) shrinks when the hand turns edge-on.
Their geometric mean keeps the nail's size when only one of them is foreshortened.

Which side faces the camera is decided per finger, never per hand: in the curled "show your nails" pose the
palm faces the camera but the nails do too. A bent finger tells its dorsal side by itself (it curls towards the
palm); a straight finger falls back on the hand's palm normal and handedness.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.types import FINGER_LANDMARKS, WRIST, Finger, HandObservation, Landmarks, NailQuad

MIN_HAND_SCORE = 0.5  # below this the landmarker is guessing; paint nothing
MIN_SEGMENT_PX = 2.0  # a distal segment shorter than this is degenerate


@dataclass(frozen=True)
class NailProportions:
    """A nail's bounding rectangle in units of the finger's size s = sqrt(|TIP−DIP| · finger width).

    length runs along the finger, width across it; centre is where the rectangle's centre lies along the
    finger from TIP (negative: back towards the DIP — the TIP landmark sits on the nail, near its free edge).
    """

    length: float
    width: float
    centre: float


# Measured as medians over real back-of-hand photos (nail bounding boxes against landmarks); the thumb's nail
# is seen more from the side, so it is narrower for its size and sits further forward.
PROPORTIONS: dict[Finger, NailProportions] = {
    Finger.THUMB: NailProportions(length=0.75, width=0.48, centre=-0.05),
    Finger.INDEX: NailProportions(length=0.72, width=0.54, centre=-0.08),
    Finger.MIDDLE: NailProportions(length=0.70, width=0.56, centre=-0.07),
    Finger.RING: NailProportions(length=0.74, width=0.55, centre=-0.10),
    Finger.PINKY: NailProportions(length=0.74, width=0.50, centre=-0.08),
}

# Finger width from the knuckle (MCP) spacing next to each finger; the thumb borrows the index's.
_WIDTH_PAIRS: dict[Finger, tuple[tuple[int, int], ...]] = {
    Finger.THUMB: ((5, 9),),
    Finger.INDEX: ((5, 9),),
    Finger.MIDDLE: ((5, 9), (9, 13)),
    Finger.RING: ((9, 13), (13, 17)),
    Finger.PINKY: ((13, 17),),
}

# Facing score (cosine of the dorsal normal with the direction to the camera) over which a nail fades in.
_FADE_FROM, _FADE_TO = -0.1, 0.2
# A finger bent by more than _FULL_BEND (sine of the angle between its MCP→DIP chord and distal bone) carries its
# own dorsal direction; below it, the palm normal takes over smoothly. Where the back of the hand faces the
# camera, a bend under _BEND_FROM (~12°) is taken for the landmarks' depth noise and the palm alone decides: on a
# flat hand that noise had middle and ring nails "curled away" for whole seconds.
_FULL_BEND = 0.5
_BEND_FROM = 0.2
_FULL_BEND_BACK = 0.6


# The five fingers' base, DIP and TIP landmarks as one index array, so each step runs once on (5·hands, …)
# arrays: a frame costs a few dozen numpy calls instead of a few hundred per hand.
_TIP_IDS = np.array([FINGER_LANDMARKS[f][3] for f in Finger])
_BASE_DIP_TIP = np.array([[FINGER_LANDMARKS[f][i] for f in Finger] for i in (0, 2, 3)])  # (3, 5)
_KNUCKLE_GAPS = np.array([[5, 9, 13], [9, 13, 17]])  # every pair _WIDTH_PAIRS uses: (5, 9), (9, 13), (13, 17)
_CENTRE = np.array([PROPORTIONS[f].centre for f in Finger])
_HALF_LENGTH = np.array([0.5 * PROPORTIONS[f].length for f in Finger])
_HALF_WIDTH = np.array([0.5 * PROPORTIONS[f].width for f in Finger])
# corner k = centre ± half length along the finger ± half width across it (NailQuad order); a sign flip is exact,
# so these are the same sums as free_edge − half_width·across etc. written out
_ALONG_SIGN = np.array([1.0, 1.0, -1.0, -1.0])[None, :, None]
_ACROSS_SIGN = np.array([-1.0, 1.0, 1.0, -1.0])[None, :, None]
_PERPENDICULAR = np.array([-1.0, 1.0])  # (x, y) → (−y, x) after swapping: 90° clockwise with y down
_LANDMARKS_PER_HAND = 21


@functools.lru_cache(maxsize=8)
def _layout(hands: int) -> tuple[np.ndarray, ...]:
    """Index arrays into (hands·21, 3) stacked landmarks, and per-finger constants, for `hands` hands:
    joints (3, 5·hands): base, DIP, TIP; gaps (2, 3·hands); tips (5·hands,); centre, half length, half width
    (5·hands, 1)."""
    offsets = np.arange(hands) * _LANDMARKS_PER_HAND
    joints = (offsets[None, :, None] + _BASE_DIP_TIP[:, None, :]).reshape(3, -1)
    gaps = (offsets[None, :, None] + _KNUCKLE_GAPS[:, None, :]).reshape(2, -1)
    tips = (offsets[:, None] + _TIP_IDS[None, :]).reshape(-1)
    per_finger = [np.tile(values, hands)[:, None] for values in (_CENTRE, _HALF_LENGTH, _HALF_WIDTH)]
    return joints, gaps, tips, *per_finger


def nail_quads(hand: HandObservation, hand_index: int, *, mirrored: bool = False) -> list[NailQuad]:
    """One quad per finger of `hand` (always five, in Finger order; opacity 0 where nothing should be painted).

    hand: landmarks (21, 3) in frame pixels. mirrored: the frame is a mirror image of the scene (a selfie
    view); it decides which physical hand MediaPipe's label means, see `physical_handedness`.
    """
    return _nail_quads([hand], [hand_index], mirrored)


def nail_quads_for_hands(hands: list[HandObservation], *, mirrored: bool = False) -> list[NailQuad]:
    """`nail_quads(hand, i)` for every hand i of a frame, concatenated, computed together (the same values)."""
    return _nail_quads(hands, range(len(hands)), mirrored) if hands else []


def _nail_quads(hands: list[HandObservation], hand_indices: Sequence[int], mirrored: bool) -> list[NailQuad]:
    count = len(hands)
    joint_ids, gap_ids, tip_ids, centre, half_length, half_width = _layout(count)
    # float32 → float64 is exact: the same values as converting each hand on its own
    landmarks = np.array([hand.landmarks for hand in hands], dtype=np.float64).reshape(-1, 3)
    joints = landmarks[joint_ids]
    corners, valid = _all_nail_corners(landmarks, joints, gap_ids, centre, half_length, half_width)
    valid_list = valid.tolist()
    opacities = [0.0] * len(valid_list)
    confident = [hand.score >= MIN_HAND_SCORE for hand in hands]
    if any(confident):
        palms = [palm_facing_score(landmarks[i * _LANDMARKS_PER_HAND:(i + 1) * _LANDMARKS_PER_HAND],
                                   hand.handedness, hand.score, mirrored=mirrored) if sure else 0.0
                 for i, (hand, sure) in enumerate(zip(hands, confident, strict=True))]
        palm_facing = palms[0] if count == 1 else np.repeat(palms, len(Finger))
        facing = _finger_facing_scores(joints, palm_facing).tolist()
        opacities = [_fade(score) if ok and confident[i // len(Finger)] else 0.0
                     for i, (score, ok) in enumerate(zip(facing, valid_list, strict=True))]
    if not all(valid_list):  # a degenerate finger: a point quad at its tip, never painted
        corners[~valid] = landmarks[tip_ids[~valid], None, :2]
    corners32 = corners.astype(np.float32)
    fingers = list(Finger)
    return [NailQuad(fingers[i % len(fingers)], corners32[i], hand_index, opacities[i])
            for h, hand_index in enumerate(hand_indices) for i in range(h * len(fingers), (h + 1) * len(fingers))]


def nail_corners(landmarks: Landmarks, finger: Finger) -> np.ndarray | None:
    """(4, 2) corners in NailQuad order (free-edge left, free-edge right, cuticle right, cuticle left, as seen
    looking down the finger towards the tip), or None when the finger is degenerate."""
    landmarks = np.asarray(landmarks, dtype=np.float64)
    joint_ids, gap_ids, _, centre, half_length, half_width = _layout(1)
    corners, valid = _all_nail_corners(landmarks, landmarks[joint_ids], gap_ids, centre, half_length, half_width)
    return corners[finger] if valid[finger] else None


def _all_nail_corners(landmarks: Landmarks, joints: np.ndarray, gap_ids: np.ndarray, centre_at: np.ndarray,
                      half_length: np.ndarray, half_width: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(F, 4, 2) float64 corners of every finger's nail (see nail_corners) and (F,) bool: the finger is not
    degenerate (where it is, its corners are meaningless). landmarks: (21·hands, 3); joints: (3, F, 3) base, DIP,
    TIP per finger; gap_ids, centre_at, half_length, half_width: from _layout."""
    tips = joints[2, :, :2]
    axis = tips - joints[1, :, :2]
    segment = np.sqrt(np.vecdot(axis, axis))  # vecdot: the same dot product np.linalg.norm takes
    valid = ~(segment < MIN_SEGMENT_PX)  # (a NaN segment counts as valid, as it always has)
    along = axis / (segment if valid.all() else np.where(valid, segment, 1.0))[:, None]
    across = along[:, ::-1] * _PERPENDICULAR
    gaps = landmarks[gap_ids, :2]
    gaps = gaps[0] - gaps[1]
    size = np.sqrt(segment * _finger_widths(np.sqrt(np.vecdot(gaps, gaps)).tolist()))[:, None]
    centre = tips + (centre_at * size) * along
    corners = centre[:, None, :] + ((half_length * size) * along)[:, None, :] * _ALONG_SIGN
    corners += ((half_width * size) * across)[:, None, :] * _ACROSS_SIGN
    return corners, valid


def finger_width(landmarks: Landmarks, finger: Finger) -> float:
    """A finger's width in pixels, from the spacing of the knuckles beside it (2D)."""
    points = landmarks[:, :2]
    return float(np.mean([np.linalg.norm(points[a] - points[b]) for a, b in _WIDTH_PAIRS[finger]]))


def _finger_widths(gaps: list[float]) -> np.ndarray:
    """(5·hands,) finger_width of every finger, in Finger order per hand, from each hand's knuckle gaps 5–9,
    9–13, 13–17 (pixels)."""
    widths = []
    for hand in range(0, len(gaps), 3):
        index_middle, middle_ring, ring_pinky = gaps[hand:hand + 3]
        # the mean of two as np.mean takes it: (a + b) / 2
        widths += [index_middle, index_middle, (index_middle + middle_ring) / 2,
                   (middle_ring + ring_pinky) / 2, ring_pinky]
    return np.array(widths)


def physical_handedness(label: str, *, mirrored: bool) -> str:
    """The hand the person actually holds up. On unmirrored photos MediaPipe 0.10.21's label is the physical
    hand (measured: backs of right hands are labelled 'Right'); a mirrored frame swaps it."""
    if not mirrored:
        return label
    return {"Left": "Right", "Right": "Left"}.get(label, label)


def palm_facing_score(landmarks: Landmarks, label: str, score: float, *, mirrored: bool) -> float:
    """How much the back of the hand faces the camera, in [-1, 1], from the knuckle layout and handedness.

    In an unmirrored image, the back of a physical right hand shows index→pinky clockwise around the wrist
    (positive 2D cross product with y down); a mirror image or a left hand reverses it. The magnitude is the
    2D cross product over its 3D size (1 for a hand parallel to the image), times how sure the label is.
    """
    points = landmarks
    if points.dtype == np.float64:
        # np.cross and np.linalg.norm cost tens of µs on one 3-vector; this is their arithmetic on plain floats
        a0, a1, a2 = (points[5] - points[WRIST]).tolist()
        b0, b1, b2 = (points[17] - points[WRIST]).tolist()
        normal = np.array((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0))
    else:
        normal = np.cross(points[5] - points[WRIST], points[17] - points[WRIST])
    norm = float(np.sqrt(normal.dot(normal)))  # as np.linalg.norm takes it
    if norm == 0.0:
        return 0.0
    hand = physical_handedness(label, mirrored=mirrored)
    image_chirality = hand if not mirrored else physical_handedness(hand, mirrored=True)
    sign = 1.0 if image_chirality == "Right" else -1.0
    certainty = float(np.clip(2.0 * score - 1.0, 0.0, 1.0))
    return sign * float(normal[2]) / norm * certainty


def finger_facing_score(landmarks: Landmarks, finger: Finger, palm_facing: float) -> float:
    """How much this finger's nail faces the camera, in [-1, 1].

    A finger curls towards the palm, so the chord from its base knuckle to its DIP, taken perpendicular to the
    distal bone, points to the nail's side. Its z (smaller is nearer) says whether that side faces the camera.
    That needs a real bend; for a straight finger the hand's palm normal decides, blended by how bent it is.
    """
    landmarks = np.asarray(landmarks, dtype=np.float64)
    return float(_finger_facing_scores(landmarks[_layout(1)[0]], palm_facing)[finger])


def _finger_facing_scores(joints: NDArray[np.float64],
                          palm_facing: float | NDArray[np.float64]) -> NDArray[np.float64]:
    """(F,) finger_facing_score of every finger. joints: (3, F, 3) base, DIP, TIP per finger; palm_facing: the
    hand's score, or (F,) each finger's hand's."""
    chord = joints[1] - joints[0]
    distal = joints[2] - joints[1]
    distal_norm, chord_norm = np.sqrt(np.vecdot(distal, distal)), np.sqrt(np.vecdot(chord, chord))
    straight = (distal_norm == 0.0) | (chord_norm == 0.0)
    if straight.any():  # no direction to take; the palm decides (and no division by zero)
        distal_norm[straight] = chord_norm[straight] = 1.0
    unit = distal / distal_norm[:, None]
    dorsal = (chord - np.vecdot(chord, unit)[:, None] * unit) / chord_norm[:, None]
    bend = np.sqrt(np.vecdot(dorsal, dorsal))  # sine of the angle between the chord and the distal bone
    unbent = bend == 0.0
    if unbent.any():
        straight |= unbent
        bend[unbent] = 1.0
    curl_facing = -dorsal[:, 2] / bend
    weight = np.where(np.asarray(palm_facing) > 0.0,
                      np.clip((bend - _BEND_FROM) / (_FULL_BEND_BACK - _BEND_FROM), 0.0, 1.0),
                      np.minimum(bend / _FULL_BEND, 1.0))
    facing: NDArray[np.float64] = weight * curl_facing + (1.0 - weight) * palm_facing
    if straight.any():
        facing = np.where(straight, palm_facing, facing)
    return facing


def _fade(facing: float) -> float:
    # plain floats: max/min keep a NaN as np.clip does
    return min(max((facing - _FADE_FROM) / (_FADE_TO - _FADE_FROM), 0.0), 1.0)
