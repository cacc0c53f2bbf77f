"""The customer's try-on state: which style is on, which fingers carry the accent, and the newest frame pair.

`process(packet)` runs on a worker (through the bridge, one frame at a time); everything else runs on the GUI
thread. Changing the style swaps the pipeline's compositor in one assignment, so the next frame the worker
starts is painted with it ("applied within one frame"). Textures are decoded once per style and cached.

The snapshot freezes the most painted pair of the last `FREEZE_WINDOW_MS`, not simply the newest: a nail
fades while it turns away (geometry's facing fade), and a tap on "snapshot" moves the hand, so the newest
frame often caught the paint half faded out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.ui.tryon.mirror_loop import ShownFrame, shown_frame_from
from nailmirror_desktop.vision.compositor import Compositor, PreparedTexture
from nailmirror_desktop.vision.image_io import read_image
from nailmirror_desktop.vision.supervisor import FramePacket

FINGER_SLOTS = {finger.name.lower(): finger for finger in Finger}
_CACHE_SIZE = 12
TIMED_STAGES = ("track", "smooth", "geometry", "composite", "total")
FREEZE_WINDOW_MS = 1500  # how far back a snapshot may reach for a better painted frame


@dataclass(frozen=True, eq=False)
class LoadedStyle:
    """Decoded textures of one style: nail (every nail) and accent (the style's own accent design, if any)."""

    code: str
    name: str
    nail: np.ndarray | None
    accent: np.ndarray | None
    per_finger: dict[Finger, np.ndarray]
    default_accent: tuple[Finger, ...]
    name_en: str = ""


@dataclass(frozen=True, eq=False)
class FramePair:
    """The same instant before and after painting: (H, W, 3) uint8 BGR each.

    paint: how much is painted, the sum of the painted nails' opacities (0 with no style or no hand; 5 for one
    hand fully facing the camera). paint_span: the painted nails' horizontal extent as fractions of the width
    (left, right), or None when nothing is painted."""

    before: np.ndarray
    after: np.ndarray
    paint: float = 0.0
    paint_span: tuple[float, float] | None = None
    timestamp_ms: int = 0


def load_style_textures(code: str, name: str, textures: dict[str, Path],
                        accent_fingers: tuple[str, ...], name_en: str = "") -> LoadedStyle:
    """Decode a style's stored textures (slot 'nail', 'accent' or a finger name → file)."""
    decoded = {slot: read_image(path, keep_alpha=True) for slot, path in textures.items()}
    per_finger = {FINGER_SLOTS[s]: img for s, img in decoded.items() if s in FINGER_SLOTS}
    default_accent = tuple(FINGER_SLOTS[f] for f in accent_fingers if f in FINGER_SLOTS)
    accent = decoded.get("accent")
    if accent is None:
        accent = next((per_finger[f] for f in default_accent if f in per_finger), None)
    return LoadedStyle(code, name, decoded.get("nail"), accent, per_finger, default_accent, name_en)


class TryOnSession:
    def __init__(self, pipeline: Any, *, mirror: bool = True) -> None:
        self.pipeline = pipeline
        self.mirror = mirror
        self._cache: OrderedDict[str, LoadedStyle] = OrderedDict()
        self._style: LoadedStyle | None = None
        self._accent: frozenset[Finger] = frozenset()
        self._lock = threading.Lock()
        self._latest: FramePair | None = None
        self._best_recent: FramePair | None = None  # the most painted pair of the last FREEZE_WINDOW_MS
        self._last_sequence = -1  # touched by the worker only
        self.pipeline.compositor = Compositor()

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

    def set_accent_fingers(self, fingers: set[Finger] | frozenset[Finger]) -> None:
        self._accent = frozenset(fingers)
        self._rebuild_compositor()

    def clear(self) -> None:
        """No style, and no customer image kept (idle reset)."""
        self._style = None
        self._accent = frozenset()
        self.pipeline.compositor = Compositor()
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
        style = self._style
        if style is None:
            self.pipeline.compositor = Compositor()
            return
        per_finger: dict[Finger, np.ndarray | PreparedTexture] = {
            f: t for f, t in style.per_finger.items() if f not in style.default_accent}
        if style.accent is not None:
            per_finger.update({f: style.accent for f in self._accent})
        default = style.nail if style.nail is not None else next(iter(style.per_finger.values()))
        self.pipeline.compositor = Compositor(default, per_finger)  # one assignment: the next frame uses it

    # --- worker thread ------------------------------------------------------------------------------------
    def process(self, packet: FramePacket, target_size: tuple[int, int] | None = None) -> ShownFrame:
        if packet.sequence <= self._last_sequence:
            self.pipeline.reset_tracking()  # a re-opened source starts over: old smoothing state would lag
        self._last_sequence = packet.sequence
        # cv2.flip: ~0.5 ms per 1280×720 frame against ~5 ms for numpy's strided copy of image[:, ::-1]
        frame = cv2.flip(packet.image, 1) if self.mirror else packet.image
        result = self.pipeline.process_video_frame(frame, packet.timestamp_ms)
        paint, span = _paint_of(result.quads, frame.shape[1]) if self._style is not None else (0.0, None)
        pair = FramePair(frame, result.frame, paint, span, packet.timestamp_ms)
        with self._lock:
            self._latest = pair
            best = self._best_recent
            if best is None or paint >= best.paint or pair.timestamp_ms - best.timestamp_ms > FREEZE_WINDOW_MS \
                    or pair.timestamp_ms < best.timestamp_ms:  # a re-opened source restarts its clock
                self._best_recent = pair
        timings = {name: float(getattr(result.timings, name)) for name in TIMED_STAGES}
        return shown_frame_from(result.frame, len(result.hands), timings, packet.sequence, target_size)


def _paint_of(quads: list[Any], width: int) -> tuple[float, tuple[float, float] | None]:
    """(sum of the painted nails' opacities, their horizontal extent as fractions of `width`)."""
    painted = [q for q in quads if q.opacity > 0]
    if not painted or width <= 0:
        return 0.0, None
    xs = np.concatenate([q.corners[:, 0] for q in painted])
    left, right = float(np.clip(xs.min() / width, 0, 1)), float(np.clip(xs.max() / width, 0, 1))
    return float(sum(q.opacity for q in painted)), (left, right)
