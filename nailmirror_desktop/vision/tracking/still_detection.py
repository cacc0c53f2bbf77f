"""Finding hands in still photos: a cascade of views that stops at the first plausible hand.

MediaPipe's palm detector, at its default settings, misses about half of real "show your nails" photos: close-ups
where no wrist or palm is in the frame, fingers pointing down, tiny web images. Each step of the cascade fixes
one of those causes, cheapest and most trustworthy first:

1. the image as it is, at the default thresholds;
2. rotated by 90/180/270° (the palm detector is trained mostly on upright hands);
3. zoomed out (2× centred, then 4× with the image at the top of the canvas), so a close-up gains the
   context the palm detector wants, at each rotation;
4. the same views once more at low thresholds.

Every candidate must pass `is_plausible_hand` (hand-shaped, not degenerate, fingertips in the picture), so a
lower threshold cannot invent a hand out of a texture. The found hand is then re-measured on an upright crop
centred on it, tilted by ±15° and mirrored, and the median landmark set is kept (test-time refinement): six
independent looks at the same hand cut the landmark noise.

When that finds too few hands, the search goes on (`hand_search.py`, issue #23 point 4):
- no hand: the cascade once more on the image with its exposure and colour normalised;
- one hand: a second look where it is not, only when skin-coloured pixels the first hand does not explain cover a
  fifth of its area (about half the one-hand photos skip it: no time spent, no phantom hand): each half not
  holding it (crossed or interlaced hands read as one to the palm detector; a half shows the other alone), at
  default thresholds; the second hand is then refined with the first painted over.
  A second hand is kept only when plausible, on skin, and not the first seen again (`hand_search.duplicates`).
`detect_traced` says which step found each hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from nailmirror_desktop.vision.tracking.hand_search import (
    SKIN_CB,
    SKIN_CR,
    UNEXPLAINED_SKIN,
    crop,
    duplicates,
    from_region,
    masked_out,
    normalised,
    other_halves,
    unexplained_skin,
)
from nailmirror_desktop.vision.tracking.tracker import HandTracker, TrackerSettings
from nailmirror_desktop.vision.types import FINGER_LANDMARKS, WRIST, HandObservation, Landmarks

ROTATIONS = (0, 90, 180, 270)
ZOOM_OUT = 2.0
LOW_CONFIDENCE = 0.2
# Work on images whose long side lies in this range: the detector sees 192 px anyway; bigger costs time.
MAX_SIDE = 1024
MIN_SIDE = 480
# Test-time refinement: upright crops tilted by these angles (degrees), each also mirrored.
REFINE_TILTS = (-15.0, 0.0, 15.0)
CROP_FILL = 0.4  # the hand's extent as a fraction of the crop's side: room for context, as in the zoom-outs
SAME_HAND_ERROR = 0.35  # median landmark error, in palm sizes, under which two looks are one hand
FOLLOW_ERROR = 0.6  # the same, between consecutive video frames (the hand moved)
_MIRRORED_HANDEDNESS = {"Left": "Right", "Right": "Left"}  # a mirrored view shows the other hand


@dataclass(frozen=True)
class View:
    """One way of showing the image to the landmarker."""

    rotation: int = 0  # degrees, counter-clockwise
    zoom_out: float = 1.0
    low_threshold: bool = False
    top_anchored: bool = False  # zoomed-out image at the top of the canvas: the padding extends its bottom edge


def cascade_views() -> list[View]:
    """Zoom-outs double: 1×, 2× centred, 4× with the image at the top of the canvas (a fingertip close-up's
    hand continues beyond its bottom edge; the replicated border gives the palm detector a palm-like blob)."""
    zooms = ((1.0, False), (2.0, False), (4.0, True))
    views = [View(rotation, zoom, top_anchored=top) for zoom, top in zooms for rotation in ROTATIONS]
    return views + [View(v.rotation, v.zoom_out, True, v.top_anchored) for v in views]


@dataclass
class StillHandDetector:
    """Robust still-image hand detection. Use as a context manager (it owns two landmarkers).

    `detect(image)` takes (H, W, 3) uint8 BGR and returns hands with landmarks in that image's pixels.
    """

    refine: bool = True
    views: list[View] = field(default_factory=cascade_views)
    second_hand: bool = True
    search_again: bool = True  # the further looks of `hand_search.py` (normalised, other halves)
    _trackers: dict[bool, HandTracker] = field(default_factory=dict, init=False, repr=False)

    def __enter__(self) -> StillHandDetector:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for tracker in self._trackers.values():
            tracker.close()
        self._trackers.clear()

    def detect(self, image: NDArray[np.uint8]) -> list[HandObservation]:
        return [hand for hand, _ in self.detect_traced(image)]

    def detect_traced(self, image: NDArray[np.uint8]) -> list[tuple[HandObservation, str]]:
        """`detect`, each hand with the step that found it: "cascade", "normalised" (no hand otherwise),
        "other half" (a second hand)."""
        scale = _working_scale(image.shape)
        work = image if scale == 1.0 else _uint8(cv2.resize(image, None, fx=scale, fy=scale,
                                                            interpolation=_interp(scale)))
        found = [(hand, "cascade") for hand in self._first_plausible(work)]
        shown = work
        if self.search_again and not found:
            found, shown = self._hard(work)
        if self.search_again and self.second_hand and len(found) == 1:
            found += self._search_again(shown, found[0][0])
        if self.refine:
            found = self._all_refined(work, found)
        return [(_scaled(hand, 1.0 / scale), how) for hand, how in found]

    def _all_refined(self, image: NDArray[np.uint8],
                     found: list[tuple[HandObservation, str]]) -> list[tuple[HandObservation, str]]:
        """Each hand refined; a second hand found by looking again is refined with the first painted over (its
        upright crops also show the first hand, which the landmarker then prefers) and dropped when refining
        made it the first hand again."""
        kept: list[tuple[HandObservation, str]] = []
        for hand, how in found:
            if how == "other half" and kept:
                refined = self._refined(masked_out(image, kept[0][0]), hand)
                if duplicates(refined, [first for first, _ in kept]):
                    refined = hand  # the further looks saw the first hand: keep the search's own landmarks
                if duplicates(refined, [first for first, _ in kept]):
                    continue
            else:
                refined = self._refined(image, hand)
            kept.append((refined, how))
        return kept

    def _first_plausible(self, image: NDArray[np.uint8]) -> list[HandObservation]:
        """The first view's plausible hands; when that is one hand, the later default-threshold views are asked
        for a second one (photos often show both hands; the first view that finds one rarely finds both)."""
        for number, view in enumerate(self.views):
            hands = self.look(image, view)
            if hands:
                if len(hands) == 1 and self.second_hand:
                    hands += self._second_hand(image, hands[0], self.views[number + 1:])
                return hands
        return []

    def _hard(self, image: NDArray[np.uint8]) -> tuple[list[tuple[HandObservation, str]], NDArray[np.uint8]]:
        """No hand in the plain cascade: the cascade on the normalised image. Returns its hands and that image
        (a second hand is looked for in the image the first was found in)."""
        even = normalised(image)
        return [(hand, "normalised") for hand in self._first_plausible(even)], even

    def _search_again(self, image: NDArray[np.uint8], first: HandObservation) -> list[tuple[HandObservation, str]]:
        """A second hand where the first is not, only when skin the first hand does not explain is there: each
        half not holding the first hand (zoomed out 2×: a half loses the context the palm detector wants), the
        half across first, at default thresholds. (The whole image with the first hand painted over found no
        second hand on the 52 evaluation photos, only a phantom: not asked.)"""
        if unexplained_skin(image, first) < UNEXPLAINED_SKIN:
            return []
        for region in other_halves(image.shape, first):
            shown = crop(image, region)
            for rotation in ROTATIONS:
                for hand in self.look(shown, View(rotation, ZOOM_OUT)):
                    hand = from_region(hand, region)
                    if (is_plausible_hand(hand.landmarks, image.shape) and looks_like_skin(image, hand.landmarks)
                            and not duplicates(hand, [first])):
                        return [(hand, "other half")]
        return []

    def _second_hand(self, image: NDArray[np.uint8], first: HandObservation,
                     views: list[View]) -> list[HandObservation]:
        for view in views:
            if view.low_threshold:
                continue  # a second hand at low thresholds is where false hands come from
            for hand in self.look(image, view):
                if not _overlapping(hand, first):
                    return [hand]
        return []

    def _look(self, image: NDArray[np.uint8], view: View, max_canvas: int = 0) -> list[HandObservation]:
        matrix, size = view_transform(image.shape, view.rotation, view.zoom_out, view.top_anchored)
        if max_canvas > 0 and max(size) > max_canvas:
            factor = max_canvas / max(size)
            matrix, size = matrix * factor, (max(1, round(size[0] * factor)), max(1, round(size[1] * factor)))
        shown = _uint8(cv2.warpAffine(image, matrix, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
        hands = self._tracker(view.low_threshold).detect(shown)
        return [_transformed(hand, cv2.invertAffineTransform(matrix)) for hand in hands]

    def look(self, image: NDArray[np.uint8], view: View, max_canvas: int = 0) -> list[HandObservation]:
        """The plausible hands of one cascade view of `image` ((H, W, 3) uint8 BGR), in its pixels (no test-time
        refinement). max_canvas > 0 shrinks the view's canvas to that long side: the palm detector sees 192 px
        anyway, and a 4× zoom-out of a full frame is otherwise a large warp (video's re-detection)."""
        hands = self._look(image, view, max_canvas)
        hands = [hand for hand in hands if is_plausible_hand(hand.landmarks, image.shape)]
        if view.low_threshold:
            hands = [hand for hand in hands if looks_like_skin(image, hand.landmarks)]
        return _distinct(hands)

    def _refined(self, image: NDArray[np.uint8], hand: HandObservation) -> HandObservation:
        """The median of the hand's landmarks and further looks on upright crops (tilted a little, mirrored)."""
        looks = self._looks(image, hand)
        # the median ignores a look that latched onto the wrong finger; with two looks it is their mean
        combined = np.median(looks, axis=0)
        return HandObservation(combined.astype(np.float32), hand.handedness, hand.score)

    def _looks(self, image: NDArray[np.uint8], hand: HandObservation) -> list[np.ndarray]:
        looks = [hand.landmarks]
        for tilt in REFINE_TILTS:
            for mirrored in (False, True):
                matrix, size = upright_crop_transform(hand.landmarks, mirrored, tilt=tilt)
                crop = _uint8(cv2.warpAffine(image, matrix, size, flags=cv2.INTER_LINEAR,
                                             borderMode=cv2.BORDER_REPLICATE))
                found = self._tracker(True).detect(crop)
                inverse = cv2.invertAffineTransform(matrix)
                match = same_hand(hand, [_transformed(h, inverse) for h in found])
                if match is not None:
                    looks.append(match.landmarks)
        return looks

    def _tracker(self, low_threshold: bool) -> HandTracker:
        tracker = self._trackers.get(low_threshold)
        if tracker is None:
            confidence = LOW_CONFIDENCE if low_threshold else 0.5
            settings = TrackerSettings(
                max_hands=2, detection_confidence=confidence, presence_confidence=confidence
            )
            tracker = HandTracker("image", settings)
            tracker.open()
            self._trackers[low_threshold] = tracker
        return tracker


def palm_size(landmarks: Landmarks) -> float:
    """A pose-robust hand scale in pixels: the largest of wrist→middle MCP and index MCP→pinky MCP (2D)."""
    points = landmarks[:, :2]
    return float(max(np.linalg.norm(points[9] - points[WRIST]), np.linalg.norm(points[5] - points[17])))


def is_plausible_hand(landmarks: Landmarks, image_shape: tuple[int, ...]) -> bool:
    """Is this landmark set hand-shaped enough to paint on?

    Checks, all scale-free: the hand is not tiny; the 3D bone lengths of each finger relative to the palm are
    in the range a real hand can show (a degenerate, collapsed skeleton is the typical false hand found in a
    texture); and most fingertips lie inside the image (there is nothing to paint otherwise).
    """
    height, width = image_shape[:2]
    size = palm_size(landmarks)
    if size < 0.04 * max(height, width) or size < 12:
        return False
    palm_3d = float(np.linalg.norm(landmarks[9] - landmarks[WRIST]))
    for ids in FINGER_LANDMARKS.values():
        chain = landmarks[list(ids)]
        bones = np.linalg.norm(np.diff(chain, axis=0), axis=1) / max(palm_3d, 1e-6)
        if bones.min() < 0.08 or bones.max() > 1.2:
            return False
    tips = landmarks[[ids[3] for ids in FINGER_LANDMARKS.values()], :2]
    inside = (tips[:, 0] >= 0) & (tips[:, 0] < width) & (tips[:, 1] >= 0) & (tips[:, 1] < height)
    return int(inside.sum()) >= 3


# The skin range (hand_search.SKIN_CR, SKIN_CB) vetoes low-threshold candidates and second hands.
_SKIN_FRACTION = 0.6


def looks_like_skin(image: NDArray[np.uint8], landmarks: Landmarks) -> bool:
    """Do most points on the hand's palm and finger bones (not the nails, which may be painted) have a skin
    colour? image: (H, W, 3) uint8 BGR; landmarks in its pixels."""
    points = landmarks[:, :2]
    samples = [points[[0, 5, 9, 13, 17]].mean(axis=0)]
    for ids in FINGER_LANDMARKS.values():
        samples += [(points[ids[0]] + points[ids[1]]) / 2, (points[ids[1]] + points[ids[2]]) / 2]
    height, width = image.shape[:2]
    ycrcb = cv2.cvtColor(cv2.GaussianBlur(image, (5, 5), 0), cv2.COLOR_BGR2YCrCb)
    skin = inside = 0
    for x, y in samples:
        if 0 <= x < width and 0 <= y < height:
            inside += 1
            _, cr, cb = ycrcb[int(y), int(x)]
            skin += SKIN_CR[0] <= cr <= SKIN_CR[1] and SKIN_CB[0] <= cb <= SKIN_CB[1]
    return inside > 0 and skin >= _SKIN_FRACTION * inside


def view_transform(
    shape: tuple[int, ...], rotation: int, zoom_out: float, top_anchored: bool = False
) -> tuple[np.ndarray, tuple[int, int]]:
    """Affine (2, 3) from the image to a view rotated by `rotation` degrees and shrunk by `zoom_out` on a
    canvas of the image's own (rotated) size times `zoom_out` — i.e. the same resolution, more surround."""
    height, width = shape[:2]
    if rotation % 180:
        out_w, out_h = height, width
    else:
        out_w, out_h = width, height
    out_w, out_h = int(round(out_w * zoom_out)), int(round(out_h * zoom_out))
    matrix = np.asarray(cv2.getRotationMatrix2D((width / 2.0, height / 2.0), rotation, 1.0), np.float64)
    shown_h = out_h / zoom_out
    centre_y = shown_h / 2.0 if top_anchored else out_h / 2.0
    matrix[:, 2] += (out_w / 2.0 - width / 2.0, centre_y - height / 2.0)
    return matrix, (out_w, out_h)


def upright_crop_transform(landmarks: Landmarks, mirrored: bool, side: int = 384,
                           tilt: float = 0.0) -> tuple[np.ndarray, tuple[int, int]]:
    """Affine (2, 3) to a `side`² crop with the hand centred, wrist down, fingers up, filling about half of it;
    mirrored left-right when asked."""
    points = landmarks[:, :2].astype(np.float64)
    centre = points.mean(axis=0)
    up = points[9] - points[WRIST]
    angle = np.degrees(np.arctan2(up[1], up[0]))  # image angle of wrist→middle MCP
    extent = np.ptp(points, axis=0).max()
    scale = CROP_FILL * side / max(extent, 1e-6)
    # rotate so that `up` points to -y (up in the crop)
    matrix = cv2.getRotationMatrix2D(tuple(centre), angle + 90.0 + tilt, scale)
    matrix[:, 2] += (side / 2.0 - centre[0], side / 2.0 - centre[1])
    if mirrored:
        flip = np.array([[-1.0, 0.0, side], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        matrix = (flip @ np.vstack([matrix, [0, 0, 1]]))[:2]
    return matrix, (side, side)


def same_hand(hand: HandObservation, candidates: list[HandObservation],
              max_error: float = SAME_HAND_ERROR) -> HandObservation | None:
    """The candidate that is clearly the same hand (median landmark error under `max_error` palm sizes), if
    any."""
    size = palm_size(hand.landmarks)
    best, best_error = None, np.inf
    for candidate in candidates:
        error = float(np.median(np.linalg.norm(candidate.landmarks[:, :2] - hand.landmarks[:, :2], axis=1)))
        if error < best_error:
            best, best_error = candidate, error
    return best if best_error < max_error * size else None


def _overlapping(hand: HandObservation, other: HandObservation) -> bool:
    """Do the two hands' landmark boxes overlap by more than a third of the smaller one (one hand seen twice)?"""
    (ax0, ay0), (ax1, ay1) = hand.landmarks[:, :2].min(0), hand.landmarks[:, :2].max(0)
    (bx0, by0), (bx1, by1) = other.landmarks[:, :2].min(0), other.landmarks[:, :2].max(0)
    inter = max(0.0, min(ax1, bx1) - max(ax0, bx0)) * max(0.0, min(ay1, by1) - max(ay0, by0))
    smaller = min((ax1 - ax0) * (ay1 - ay0), (bx1 - bx0) * (by1 - by0))
    return bool(inter > smaller / 3)


def _distinct(hands: list[HandObservation]) -> list[HandObservation]:
    """Drop a hand that duplicates an earlier, more confident one (same wrist and fingertips)."""
    kept: list[HandObservation] = []
    for hand in sorted(hands, key=lambda h: -h.score):
        if same_hand(hand, kept) is None:
            kept.append(hand)
    return kept


def _transformed(hand: HandObservation, matrix: np.ndarray) -> HandObservation:
    """Landmarks mapped through an affine (2, 3); z scales with the linear part."""
    points = hand.landmarks.astype(np.float64)
    xy = points[:, :2] @ matrix[:, :2].T + matrix[:, 2]
    scale = np.sqrt(abs(np.linalg.det(matrix[:, :2])))
    z = points[:, 2:3] * scale
    mirrored = np.linalg.det(matrix[:, :2]) < 0
    handedness = _MIRRORED_HANDEDNESS.get(hand.handedness, hand.handedness) if mirrored else hand.handedness
    return HandObservation(np.hstack([xy, z]).astype(np.float32), handedness, hand.score)


def _scaled(hand: HandObservation, factor: float) -> HandObservation:
    if factor == 1.0:
        return hand
    return HandObservation((hand.landmarks * factor).astype(np.float32), hand.handedness, hand.score)


def _working_scale(shape: tuple[int, ...]) -> float:
    long_side = max(shape[:2])
    if long_side > MAX_SIDE:
        return MAX_SIDE / long_side
    if long_side < MIN_SIDE:
        return MIN_SIDE / long_side
    return 1.0


def _uint8(image: np.ndarray) -> NDArray[np.uint8]:
    """A resize or warp of a uint8 image, typed as what it is (cv2's stubs say any integer or float array)."""
    return np.asarray(image, np.uint8)


def _interp(scale: float) -> int:
    return cv2.INTER_AREA if scale < 1.0 else cv2.INTER_CUBIC
