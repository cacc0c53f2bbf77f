"""The session's frozen pair: the most painted frame of the last moments, not a faded-out newest one.

The pipeline here is scripted: it returns real `TryOnResult`s whose nails fade as a turning hand's do (the
facing fade in vision/geometry.py), so each step's opacity is known; the session's choice is what is tested.
"""

from __future__ import annotations

import numpy as np

from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.ui.tryon.tryon_session import FREEZE_WINDOW_MS, LoadedStyle, TryOnSession
from nailmirror_desktop.vision.pipeline import TryOnResult
from nailmirror_desktop.vision.supervisor import FramePacket
from nailmirror_desktop.vision.types import NailQuad

WIDTH, HEIGHT = 320, 240


class ScriptedPipeline:
    """Paints the whole frame with the step's number, and reports five nails at the step's opacity between
    x = 200 and x = 300 (the right of the frame)."""

    def __init__(self) -> None:
        self.compositor = None
        self.opacity = 1.0

    def reset_tracking(self) -> None:
        pass

    def process_video_frame(self, frame: np.ndarray, timestamp_ms: int) -> TryOnResult:
        corners = np.array([[200, 50], [300, 50], [300, 150], [200, 150]], np.float32)
        quads = [NailQuad(finger, corners, 0, self.opacity) for finger in Finger]
        return TryOnResult(np.full_like(frame, int(self.opacity * 100)), None, [], quads)


def packet(sequence: int, timestamp_ms: int) -> FramePacket:
    return FramePacket(np.zeros((HEIGHT, WIDTH, 3), np.uint8), timestamp_ms, sequence)


def styled_session() -> tuple[TryOnSession, ScriptedPipeline]:
    pipeline = ScriptedPipeline()
    session = TryOnSession(pipeline, mirror=False)
    session.apply(LoadedStyle("T-1", "test", np.zeros((8, 8, 3), np.uint8), None, {}, ()))
    return session, pipeline


def test_a_fading_newest_frame_is_not_the_one_frozen():
    session, pipeline = styled_session()
    for step, opacity in enumerate((0.6, 1.0, 0.7, 0.2)):
        pipeline.opacity = opacity
        session.process(packet(step, step * 33))
    assert session.latest_pair().paint == 0.2 * 5
    frozen = session.snapshot_pair()
    assert frozen.paint == 5.0 and int(frozen.after[0, 0, 0]) == 100
    assert frozen.paint_span == (200 / WIDTH, 300 / WIDTH)


def test_a_painted_frame_older_than_the_window_gives_way_to_the_present():
    session, pipeline = styled_session()
    session.process(packet(0, 0))
    pipeline.opacity = 0.4
    session.process(packet(1, FREEZE_WINDOW_MS + 1))
    assert session.snapshot_pair().paint == 0.4 * 5  # the customer's hand now, not one from seconds ago


def test_without_a_style_nothing_counts_as_painted_and_the_reset_forgets_the_pair():
    pipeline = ScriptedPipeline()
    session = TryOnSession(pipeline, mirror=False)
    session.process(packet(0, 0))
    assert session.snapshot_pair().paint == 0 and session.snapshot_pair().paint_span is None
    session.clear()
    assert session.snapshot_pair() is None and session.latest_pair() is None
