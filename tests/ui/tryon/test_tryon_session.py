"""The try-on session: its frozen pair is the most painted frame of the last moments, not a faded-out newest
one; and it paints each finger with its style's design (the main finish everywhere, the accent's own finish on
whichever fingers carry the accent now).

The pipeline here is scripted: it returns real `TryOnResult`s whose nails fade as a turning hand's do (the
facing fade in vision/nails/geometry.py), so each step's opacity is known; the session's choice is what is tested.
"""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.ui.tryon.tryon_session import FREEZE_WINDOW_MS, LoadedStyle, TryOnSession, load_style_textures
from nailmirror_desktop.vision.pipeline import TrackedFrame, TryOnResult
from nailmirror_desktop.vision.sources.supervisor import FramePacket
from nailmirror_desktop.vision.types import NailQuad

WIDTH, HEIGHT = 320, 240


class ScriptedPipeline:
    """Paints the whole frame with the step's number, and reports five nails at the step's opacity between
    x = 200 and x = 300 (the right of the frame), and `held` more painted nails not seen in the frame."""

    def __init__(self) -> None:
        self.compositor = None
        self.opacity = 1.0
        self.held = 0

    def reset_tracking(self) -> None:
        pass

    def track_video_frame(self, frame: np.ndarray, timestamp_ms: int, *, restart: bool = False) -> TrackedFrame:
        return TrackedFrame(frame, timestamp_ms, [], 0.0, restart)

    def paint_video_frame(self, tracked: TrackedFrame) -> TryOnResult:
        corners = np.array([[200, 50], [300, 50], [300, 150], [200, 150]], np.float32)
        quads = [NailQuad(finger, corners, 0, self.opacity) for finger in Finger]
        quads += [NailQuad(finger, corners, 1, 1.0) for finger in list(Finger)[:self.held]]
        return TryOnResult(np.full_like(tracked.frame, int(self.opacity * 100)), None, [], quads, held=self.held)


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


def test_held_nails_do_not_win_the_snapshot_over_a_frame_whose_nails_were_all_seen():
    session, pipeline = styled_session()
    session.process(packet(0, 0))
    pipeline.held = 3  # three more painted where their motion was taking them: more paint, but guesses
    session.process(packet(1, 33))
    pipeline.held = 0
    pipeline.opacity = 0.8
    session.process(packet(2, 66))
    frozen = session.snapshot_pair()
    assert frozen.timestamp_ms == 0 and frozen.held == 0 and frozen.seen_nails == 5
    assert session.latest_pair().held == 0 and session.latest_pair().paint == 0.8 * 5


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


DESIGN = {"version": 1, "base_color": {"id": "nude_pink", "rgb": [232, 188, 180], "tone": ""}, "finish": "matte",
          "patterns": [], "accents": [{"finger": "ring", "finish": "cat_eye", "patterns": [],
                                       "base_color": {"id": "burgundy", "rgb": [112, 18, 40], "tone": ""}}]}


def _textures(folder) -> dict:
    paths = {}
    for slot, colour in (("nail", (180, 188, 232)), ("accent", (40, 18, 112))):
        path = folder / f"{slot}.png"
        assert cv2.imwrite(str(path), np.full((24, 16, 3), colour, np.uint8))
        paths[slot] = path
    return paths


def test_the_accent_finish_follows_the_accent_fingers(tmp_path):
    pipeline = SimpleNamespace(compositor=None)
    session = TryOnSession(pipeline)
    session.apply(load_style_textures("NM-1", "半月", _textures(tmp_path), ("ring",), design=DESIGN))

    def finish(finger: Finger) -> str:
        texture = pipeline.compositor.texture_for(finger)
        assert texture is not None
        return texture.look.finish.name

    assert finish(Finger.RING) == "cat_eye" and finish(Finger.INDEX) == "matte"
    session.set_accent_fingers({Finger.INDEX})
    assert finish(Finger.INDEX) == "cat_eye" and finish(Finger.RING) == "matte"
    session.set_accent_fingers(set())
    assert {finish(f) for f in Finger} == {"matte"}


def test_a_style_without_a_design_is_a_gloss_creme(tmp_path):
    pipeline = SimpleNamespace(compositor=None)
    session = TryOnSession(pipeline)
    session.apply(load_style_textures("NM-2", "plain", _textures(tmp_path), ("ring",)))
    texture = pipeline.compositor.texture_for(Finger.INDEX)
    assert texture is not None and texture.look.finish.name == "gloss" and not texture.look.laid_out
