"""Nail quads from hand landmarks (DESIGN.md §4): where each nail plate is, and whether it faces the camera.

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

from dataclasses import dataclass

import numpy as np

from nailmirror_desktop.vision.types import FINGER_LANDMARKS, WRIST, Finger, HandObservation, NailQuad

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
# A finger bent by more than this (sine of the angle between its MCP→DIP chord and distal bone) carries its own
# dorsal direction; below it, the palm normal takes over smoothly.
_FULL_BEND = 0.5


def nail_quads(hand: HandObservation, hand_index: int, *, mirrored: bool = False) -> list[NailQuad]:
    """One quad per finger of `hand` (always five, in Finger order; opacity 0 where nothing should be painted).

    hand: landmarks (21, 3) in frame pixels. mirrored: the frame is a mirror image of the scene (a selfie
    view); it decides which physical hand MediaPipe's label means, see `physical_handedness`.
    """
    landmarks = np.asarray(hand.landmarks, dtype=np.float64)
    confident = hand.score >= MIN_HAND_SCORE
    palm_facing = palm_facing_score(landmarks, hand.handedness, hand.score, mirrored=mirrored)
    quads = []
    for finger in Finger:
        corners = nail_corners(landmarks, finger)
        opacity = 0.0
        if confident and corners is not None:
            opacity = _fade(finger_facing_score(landmarks, finger, palm_facing))
        if corners is None:
            corners = np.repeat(landmarks[FINGER_LANDMARKS[finger][3], :2][None], 4, axis=0)
        quads.append(NailQuad(finger, corners.astype(np.float32), hand_index, opacity))
    return quads


def nail_corners(landmarks: np.ndarray, finger: Finger) -> np.ndarray | None:
    """(4, 2) corners in NailQuad order (free-edge left, free-edge right, cuticle right, cuticle left, as seen
    looking down the finger towards the tip), or None when the finger is degenerate."""
    _, pip, dip, tip = FINGER_LANDMARKS[finger]
    points = landmarks[:, :2]
    axis = points[tip] - points[dip]
    segment = float(np.linalg.norm(axis))
    if segment < MIN_SEGMENT_PX:
        return None
    along = axis / segment
    across = np.array([-along[1], along[0]])  # 90° clockwise in image coordinates (y down)
    size = float(np.sqrt(segment * finger_width(landmarks, finger)))
    shape = PROPORTIONS[finger]
    centre = points[tip] + shape.centre * size * along
    half_length, half_width = 0.5 * shape.length * size, 0.5 * shape.width * size
    free_edge, cuticle = centre + half_length * along, centre - half_length * along
    return np.array([
        free_edge - half_width * across,
        free_edge + half_width * across,
        cuticle + half_width * across,
        cuticle - half_width * across,
    ])


def finger_width(landmarks: np.ndarray, finger: Finger) -> float:
    """A finger's width in pixels, from the spacing of the knuckles beside it (2D)."""
    points = landmarks[:, :2]
    return float(np.mean([np.linalg.norm(points[a] - points[b]) for a, b in _WIDTH_PAIRS[finger]]))


def physical_handedness(label: str, *, mirrored: bool) -> str:
    """The hand the person actually holds up. On unmirrored photos MediaPipe 0.10.21's label is the physical
    hand (measured: backs of right hands are labelled 'Right'); a mirrored frame swaps it."""
    if not mirrored:
        return label
    return {"Left": "Right", "Right": "Left"}.get(label, label)


def palm_facing_score(landmarks: np.ndarray, label: str, score: float, *, mirrored: bool) -> float:
    """How much the back of the hand faces the camera, in [-1, 1], from the knuckle layout and handedness.

    In an unmirrored image, the back of a physical right hand shows index→pinky clockwise around the wrist
    (positive 2D cross product with y down); a mirror image or a left hand reverses it. The magnitude is the
    2D cross product over its 3D size (1 for a hand parallel to the image), times how sure the label is.
    """
    points = landmarks
    to_index, to_pinky = points[5] - points[WRIST], points[17] - points[WRIST]
    normal = np.cross(to_index, to_pinky)
    norm = float(np.linalg.norm(normal))
    if norm == 0.0:
        return 0.0
    hand = physical_handedness(label, mirrored=mirrored)
    image_chirality = hand if not mirrored else physical_handedness(hand, mirrored=True)
    sign = 1.0 if image_chirality == "Right" else -1.0
    certainty = float(np.clip(2.0 * score - 1.0, 0.0, 1.0))
    return sign * float(normal[2]) / norm * certainty


def finger_facing_score(landmarks: np.ndarray, finger: Finger, palm_facing: float) -> float:
    """How much this finger's nail faces the camera, in [-1, 1].

    A finger curls towards the palm, so the chord from its base knuckle to its DIP, taken perpendicular to the
    distal bone, points to the nail's side. Its z (smaller is nearer) says whether that side faces the camera.
    That needs a real bend; for a straight finger the hand's palm normal decides, blended by how bent it is.
    """
    base, _, dip, tip = FINGER_LANDMARKS[finger]
    chord = landmarks[dip] - landmarks[base]
    distal = landmarks[tip] - landmarks[dip]
    distal_norm, chord_norm = np.linalg.norm(distal), np.linalg.norm(chord)
    if distal_norm == 0.0 or chord_norm == 0.0:
        return palm_facing
    unit = distal / distal_norm
    dorsal = (chord - (chord @ unit) * unit) / chord_norm
    bend = float(np.linalg.norm(dorsal))  # sine of the angle between the chord and the distal bone
    if bend == 0.0:
        return palm_facing
    curl_facing = -float(dorsal[2]) / bend
    weight = min(bend / _FULL_BEND, 1.0)
    return weight * curl_facing + (1.0 - weight) * palm_facing


def _fade(facing: float) -> float:
    return float(np.clip((facing - _FADE_FROM) / (_FADE_TO - _FADE_FROM), 0.0, 1.0))
