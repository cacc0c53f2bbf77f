"""The customer's try-on state: which style is on, which fingers carry the accent, and the newest frame pair.

`track(packet)` and `paint(tracked)` run on workers (through the bridge; one frame per stage at a time, so frame
N+1 may be tracked while frame N is painted), `process(packet)` is both in a row; everything else runs on the
GUI thread. Changing the style swaps the pipeline's compositor in one assignment, so the next frame the paint
stage starts is painted with it ("applied within one frame"). Textures are decoded once per style and cached.

The snapshot freezes the most painted pair of the last `FREEZE_WINDOW_MS`, not simply the newest: a nail
fades while it turns away (geometry's facing fade), and a tap on "snapshot" moves the hand, so the newest
frame often caught the paint half faded out. Fewer held nails come first (`better_for_snapshot`): a held nail is
painted where its motion was taking it, a guess, and it adds to the paint, so "most painted" alone preferred the
frames with guesses in them.

Each painted frame is also counted for the live-quality watch of the nail model (`tally`, issue #27 §7): nails
painted, nails that blinked off since the frame before, the segmenter's time per hand.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.core.model_releases.watch import SessionTally
from nailmirror_desktop.core.nail_form import NATURAL, NailForm, recommended_form
from nailmirror_desktop.ui.tryon.mirror_loop import ShownFrame, shown_frame_from
from nailmirror_desktop.vision.paint.compositor import Compositor, PreparedTexture
from nailmirror_desktop.vision.paint.framing import painted_hands_box
from nailmirror_desktop.vision.paint.polish import NailLook
from nailmirror_desktop.vision.paint.style_textures import finger_looks
from nailmirror_desktop.vision.pipeline import TrackedFrame
from nailmirror_desktop.vision.sources.image_io import read_image
from nailmirror_desktop.vision.sources.supervisor import FramePacket

FINGER_SLOTS = {finger.name.lower(): finger for finger in Finger}
_CACHE_SIZE = 12
TIMED_STAGES = ("track", "smooth", "geometry", "segment", "composite", "total")
FREEZE_WINDOW_MS = 1500  # how far back a snapshot may reach for a better painted frame


@dataclass(frozen=True, eq=False)
class LoadedStyle:
    """Decoded textures of one style: nail (every nail) and accent (the style's own accent design, if any);
    looks: how each finger is painted, from the style's design (empty: an opaque gloss crème)."""

    code: str
    name: str
    nail: np.ndarray | None
    accent: np.ndarray | None
    per_finger: dict[Finger, np.ndarray]
    default_accent: tuple[Finger, ...]
    name_en: str = ""
    looks: dict[Finger, NailLook] = field(default_factory=dict)
    recommended: NailForm | None = None  # the shape and length its design asks for (the designer's choice)


@dataclass(frozen=True, eq=False)
class FramePair:
    """The same instant before and after painting: (H, W, 3) uint8 BGR each.

    paint: how much is painted, the sum of the painted nails' opacities (0 with no style or no hand; 5 for one
    hand fully facing the camera). paint_span: the painted nails' horizontal extent as fractions of the width
    (left, right), or None when nothing is painted. nails: how many nails are painted at all. hands_box: the
    painted nails and their fingers with a margin (vision/paint/framing.py), frame pixels (left, top, right,
    bottom), or None when nothing is painted: the take-home card and the phone's picture are cropped to it."""

    before: np.ndarray
    after: np.ndarray
    paint: float = 0.0
    paint_span: tuple[float, float] | None = None
    timestamp_ms: int = 0
    nails: int = 0  # painted nails (opacity > 0): a still render of `before` must paint as many to replace it
    hands_box: tuple[int, int, int, int] | None = None
    held: int = 0  # of those, nails not seen in this frame (the pipeline's TryOnResult.held)

    @property
    def seen_nails(self) -> int:
        """Painted nails the frame shows (held ones left out): what a still render of `before` must match."""
        return self.nails - self.held


@dataclass(frozen=True, eq=False)
class TrackedPacket:
    """A frame between `TryOnSession.track` and `TryOnSession.paint`: the pipeline's tracked frame and the
    source's sequence number. The mirror loop holds it as an opaque handle (it never reads the pixels)."""

    tracked: TrackedFrame
    sequence: int


def load_style_textures(code: str, name: str, textures: dict[str, Path],
                        accent_fingers: tuple[str, ...], name_en: str = "",
                        design: dict[str, Any] | None = None,
                        recommended: NailForm | None = None) -> LoadedStyle:
    """Decode a style's stored textures (slot 'nail', 'accent' or a finger name → file); design: its design
    dict (TryOnAssets.design), which decides each finger's finish and layout; recommended: the shape and length
    it recommends (TryOnAssets.recommended; None: what `design` names, if anything)."""
    decoded = {slot: read_image(path, keep_alpha=True) for slot, path in textures.items()}
    per_finger = {FINGER_SLOTS[s]: img for s, img in decoded.items() if s in FINGER_SLOTS}
    default_accent = tuple(FINGER_SLOTS[f] for f in accent_fingers if f in FINGER_SLOTS)
    accent = decoded.get("accent")
    if accent is None:
        accent = next((per_finger[f] for f in default_accent if f in per_finger), None)
    return LoadedStyle(code, name, decoded.get("nail"), accent, per_finger, default_accent, name_en,
                       finger_looks(design), recommended or recommended_form(design))


def _looks_with_accent(style: LoadedStyle, accent: frozenset[Finger]) -> dict[Finger, NailLook]:
    """Each finger's look, the accent's own look following the accent texture to the fingers chosen now."""
    looks = {f: look for f, look in style.looks.items() if f not in style.default_accent}
    accent_look = next((style.looks[f] for f in style.default_accent if f in style.looks), None)
    if accent_look is not None:
        looks.update({f: accent_look for f in accent})
    return looks


def compositor_for(style: LoadedStyle | None, accent: frozenset[Finger]) -> Compositor:
    """The compositor that paints `style` with its accent on `accent` (no style: paints nothing). Shared with the
    still render of a snapshot (app/effect_preview.py), so the photo kept wears exactly what the mirror showed."""
    if style is None:
        return Compositor()
    per_finger: dict[Finger, np.ndarray | PreparedTexture] = {
        f: t for f, t in style.per_finger.items() if f not in style.default_accent}
    if style.accent is not None:
        per_finger.update({f: style.accent for f in accent})
    default = style.nail if style.nail is not None else next(iter(style.per_finger.values()))
    looks = _looks_with_accent(style, accent)
    main_look = next((looks[f] for f in Finger if f in looks and f not in style.default_accent), None)
    return Compositor(default, per_finger, look=main_look, finger_looks=looks)


class TryOnSession:
    def __init__(self, pipeline: Any, *, mirror: bool = True) -> None:
        self.pipeline = pipeline
        self.mirror = mirror
        self._cache: OrderedDict[str, LoadedStyle] = OrderedDict()
        self._style: LoadedStyle | None = None
        self._accent: frozenset[Finger] = frozenset()
        self.pipeline.nail_form = NATURAL
        self._lock = threading.Lock()
        self._latest: FramePair | None = None
        self._best_recent: FramePair | None = None  # the most painted pair of the last FREEZE_WINDOW_MS
        self._last_sequence = -1  # touched by the worker only
        self.pipeline.compositor = Compositor()
        self.tally: SessionTally | None = None  # the model watch's (core/model_releases/switch.py), when there is one
        self._painted_before: frozenset[tuple[int, Finger]] = frozenset()  # touched by the paint worker only

    # --- GUI thread ---------------------------------------------------------------------------------------
    @property
    def style(self) -> LoadedStyle | None:
        return self._style

    @property
    def accent_fingers(self) -> frozenset[Finger]:
        return self._accent

    def cached(self, code: str) -> LoadedStyle | None:
        return self._cache.get(code)

    def remember(self, style: LoadedStyle) -> None:
        self._cache[style.code] = style
        self._cache.move_to_end(style.code)
        while len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)

    def apply(self, style: LoadedStyle) -> None:
        """Put `style` on, with its own accent fingers."""
        self.remember(style)
        self._style = style
        self._accent = frozenset(style.default_accent) if style.accent is not None else frozenset()
        self._rebuild_compositor()

    @property
    def nail_form(self) -> NailForm:
        return self.pipeline.nail_form  # type: ignore[no-any-return]

    def set_nail_form(self, form: NailForm) -> None:
        """The customer's shape and length: one assignment, the next frame the paint stage starts uses it."""
        self.pipeline.nail_form = form

    def set_accent_fingers(self, fingers: set[Finger] | frozenset[Finger]) -> None:
        self._accent = frozenset(fingers)
        self._rebuild_compositor()

    def clear(self) -> None:
        """No style, and no customer image kept (idle reset)."""
        self._style = None
        self._accent = frozenset()
        self.pipeline.compositor = Compositor()
        self.pipeline.nail_form = NATURAL
        with self._lock:
            self._latest = self._best_recent = None

    def latest_pair(self) -> FramePair | None:
        with self._lock:
            return self._latest

    def snapshot_pair(self) -> FramePair | None:
        """The pair a snapshot freezes: the most painted one of the last FREEZE_WINDOW_MS."""
        with self._lock:
            return self._best_recent or self._latest

    def _rebuild_compositor(self) -> None:
        self.pipeline.compositor = compositor_for(self._style, self._accent)  # one assignment: the next frame uses it

    # --- worker threads -----------------------------------------------------------------------------------
    def process(self, packet: FramePacket, target_size: tuple[int, int] | None = None) -> ShownFrame:
        """Both stages of one frame, one after the other (tests, the effect preview)."""
        return self.paint(self.track(packet), target_size)

    def track(self, packet: FramePacket) -> TrackedPacket:
        """Stage 1 on a worker: mirror the frame and find its hands. One frame at a time, in order; it may run
        while `paint` paints the previous frame on another worker (the pipeline's stages share no state)."""
        restart = packet.sequence <= self._last_sequence  # a re-opened source starts over: old smoothing would lag
        self._last_sequence = packet.sequence  # touched by the track stage only
        # cv2.flip: ~0.5 ms per 1280×720 frame against ~5 ms for numpy's strided copy of image[:, ::-1]
        frame = cv2.flip(packet.image, 1) if self.mirror else packet.image
        return TrackedPacket(self.pipeline.track_video_frame(frame, packet.timestamp_ms, restart=restart),
                             packet.sequence)

    def paint(self, staged: TrackedPacket, target_size: tuple[int, int] | None = None) -> ShownFrame:
        """Stage 2 on a worker: paint the frame `track` returned with its own hands, keep the (before, after)
        pair, and build the image the view shows. One frame at a time, in the order they were tracked."""
        tracked = staged.tracked
        result = self.pipeline.paint_video_frame(tracked)
        frame = tracked.frame
        style_on = self._style is not None
        paint, span = _paint_of(result.quads, frame.shape[1]) if style_on else (0.0, None)
        nails = sum(1 for q in result.quads if q.opacity > 0) if style_on else 0
        box = painted_hands_box(result.quads, result.hands, (frame.shape[1], frame.shape[0])) if style_on else None
        pair = FramePair(frame, result.frame, paint, span, tracked.timestamp_ms, nails,
                         box.as_tuple() if box is not None else None, result.held if style_on else 0)
        with self._lock:
            self._latest = pair
            best = self._best_recent
            if best is None or better_for_snapshot(pair, best) or pair.timestamp_ms - best.timestamp_ms > \
                    FREEZE_WINDOW_MS or pair.timestamp_ms < best.timestamp_ms:  # a re-opened source restarts its clock
                self._best_recent = pair
        tally = self.tally
        if tally is not None:
            self._count_for_watch(tally, result)
        timings = {name: float(getattr(result.timings, name)) for name in TIMED_STAGES}
        start = time.perf_counter()
        shown = shown_frame_from(result.frame, len(result.hands), timings, staged.sequence, target_size, nails=nails)
        # "show": scaling to the view and the QImage copy, the last of the frame's work off the GUI thread
        return replace(shown, timings_ms={**timings, "show": (time.perf_counter() - start) * 1000.0})


    def _count_for_watch(self, tally: SessionTally, result: Any) -> None:
        """One frame for the model watch, style or none (the segmenter runs either way): a nail painted last
        frame, its hand still tracked, and not painted now is a blink."""
        painted = frozenset((q.hand_index, q.finger) for q in result.quads if q.opacity > 0)
        hands_now = {q.hand_index for q in result.quads}
        stayed = {key for key in self._painted_before if key[0] in hands_now}
        tally.observe(hands=len(result.hands), painted=len(painted), blinks=len(stayed - painted),
                      chances=len(stayed), segment_ms=float(result.timings.segment))
        self._painted_before = painted


def better_for_snapshot(pair: FramePair, best: FramePair) -> bool:
    """Whether a snapshot should rather freeze `pair` (newer) than `best`: fewer held nails, then at least as much
    paint (the newer of two alike)."""
    return (-pair.held, pair.paint) >= (-best.held, best.paint)


def _paint_of(quads: list[Any], width: int) -> tuple[float, tuple[float, float] | None]:
    """(sum of the painted nails' opacities, their horizontal extent as fractions of `width`)."""
    painted = [q for q in quads if q.opacity > 0]
    if not painted or width <= 0:
        return 0.0, None
    xs = np.concatenate([q.corners[:, 0] for q in painted])
    left, right = float(np.clip(xs.min() / width, 0, 1)), float(np.clip(xs.max() / width, 0, 1))
    return float(sum(q.opacity for q in painted)), (left, right)
