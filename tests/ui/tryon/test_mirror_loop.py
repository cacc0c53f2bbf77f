"""The live mirror: demo video through the real pipeline, the hand guide, and a camera that is unplugged and
comes back. The bridge's contract runs synchronously here (ui_support.run_now)."""

from __future__ import annotations

import numpy as np
import pytest

from nailmirror_desktop.ui.tryon.mirror_loop import MirrorLoop, shown_frame_from
from nailmirror_desktop.ui.tryon.mirror_view import MirrorView
from nailmirror_desktop.ui.tryon.tryon_session import LoadedStyle, TryOnSession
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from nailmirror_desktop.vision.sources.readers import FrameReader, VideoFileSource
from nailmirror_desktop.vision.sources.supervisor import DEMO, LIVE, LOST, SourceSupervisor
from tests.support.ui_support import DEMO_VIDEO, FlakyCamera, run_now, still_reader

MAGENTA = np.zeros((64, 40, 3), np.uint8)
MAGENTA[:] = (200, 40, 220)


def plain_style(code="T-1") -> LoadedStyle:
    return LoadedStyle(code, "test", MAGENTA, None, {}, ())


@pytest.fixture
def pipeline():
    with TryOnPipeline(Compositor(), mirrored=True) as p:
        yield p


def test_demo_video_is_painted_and_the_guide_leaves_when_a_hand_is_seen(qtbot, pipeline):
    view = MirrorView()
    qtbot.addWidget(view)
    view.resize(640, 400)
    session = TryOnSession(pipeline, mirror=True)
    session.apply(plain_style())
    supervisor = SourceSupervisor(lambda: FrameReader(VideoFileSource(DEMO_VIDEO, loop=True), paced=True))
    loop = MirrorLoop(view, supervisor, session.process, run_now)
    seen = []
    loop.hand_seen_changed.connect(seen.append)
    loop.start()
    try:
        qtbot.waitUntil(lambda: view.has_frame() and not view.guide_visible(), timeout=20000)
    finally:
        loop.stop()
        supervisor.close()
    assert supervisor.state == LIVE
    assert seen and seen[-1] is True
    pair = session.latest_pair()
    painted = np.any(pair.after != pair.before, axis=2)
    magenta_like = (pair.after[:, :, 0] > pair.after[:, :, 1] + 40) & (pair.after[:, :, 2] > pair.after[:, :, 1] + 40)
    assert painted.sum() > 200, "no nail was painted on the demo hand"
    assert (painted & magenta_like).sum() > 0.3 * painted.sum(), "painted pixels are not the style's colour"
    assert loop.queue_depth() == 0


def test_guide_shows_while_no_hand_is_seen(qtbot, pipeline):
    view = MirrorView()
    qtbot.addWidget(view)
    session = TryOnSession(pipeline, mirror=True)
    empty_room = np.full((360, 640, 3), 120, np.uint8)
    supervisor = SourceSupervisor(lambda: still_reader(empty_room))
    loop = MirrorLoop(view, supervisor, session.process, run_now)
    loop.start()
    try:
        qtbot.waitUntil(view.has_frame, timeout=15000)
        qtbot.wait(200)
    finally:
        loop.stop()
        supervisor.close()
    assert view.guide_visible()


def test_camera_lost_shows_a_message_and_is_reacquired(qtbot):
    FlakyCamera.plugged, FlakyCamera.unplugged_once = True, False
    view = MirrorView()
    qtbot.addWidget(view)
    supervisor = SourceSupervisor(lambda: FrameReader(FlakyCamera(frames_before_loss=5)),
                                  lost_after_s=0.3, retry_every_s=0.1)
    states = []
    loop = MirrorLoop(view, supervisor, lambda p, size: shown_frame_from(p.image, 1, {}, p.sequence, size), run_now)
    loop.source_state_changed.connect(states.append)
    shown = []
    loop.frame_shown.connect(lambda: shown.append(1))
    loop.start()
    try:
        qtbot.waitUntil(lambda: LOST in states, timeout=5000)
        assert supervisor.state == LOST
        reopen_attempts = supervisor.reopen_count
        qtbot.wait(400)
        assert supervisor.reopen_count > reopen_attempts, "no re-open attempts while the camera is away"
        assert supervisor.state == LOST
        assert view.banner() != ""  # "The camera is not responding. Reconnecting…" in the current language
        shown_before = len(shown)
        FlakyCamera.replug()
        qtbot.waitUntil(lambda: supervisor.state == LIVE and len(shown) > shown_before + 1, timeout=5000)
    finally:
        loop.stop()
        supervisor.close()
    assert states[-1] == LIVE and LOST in states
    assert view.banner() == ""


def grey_still_mirror(qtbot) -> tuple[MirrorView, SourceSupervisor, list[FrameReader]]:
    """A mirror view and a supervisor over a grey 320×240 still source; the readers it opens are listed so a
    test can read their mailbox."""
    view = MirrorView()
    qtbot.addWidget(view)
    readers: list[FrameReader] = []

    def open_reader():
        reader = still_reader(np.full((240, 320, 3), 100, np.uint8))
        readers.append(reader)
        return reader

    return view, SourceSupervisor(open_reader), readers


@pytest.mark.slow
def test_a_slow_pipeline_drops_frames_instead_of_queueing_them(qtbot):
    """Real bridge threads: a 120 ms 'pipeline' behind a 30 FPS source never has more than one frame in
    flight; the mailbox overwrites (counts as dropped) what it could not take."""
    import threading
    import time

    from nailmirror_desktop.ui import bridge

    view, supervisor, readers = grey_still_mirror(qtbot)
    in_flight, most_in_flight, lock = [0], [0], threading.Lock()

    def slow_process(packet, size):
        with lock:
            in_flight[0] += 1
            most_in_flight[0] = max(most_in_flight[0], in_flight[0])
        time.sleep(0.12)
        with lock:
            in_flight[0] -= 1
        return shown_frame_from(packet.image, 0, {}, packet.sequence, size)

    bridge.install()
    loop = MirrorLoop(view, supervisor, slow_process, bridge.run_in_background)
    shown = []
    loop.frame_shown.connect(lambda: shown.append(1))
    loop.start()
    try:
        qtbot.waitUntil(lambda: len(shown) >= 6, timeout=10000)
    finally:
        loop.stop()
        qtbot.wait(200)
        supervisor.close()
    assert most_in_flight[0] == 1
    assert readers[0].mailbox.dropped > 0
    assert loop.queue_depth() == 0


def test_a_camera_plugged_in_while_the_demo_plays_takes_over(qtbot):
    FlakyCamera.plugged, FlakyCamera.unplugged_once = False, True  # no camera at start
    view = MirrorView()
    qtbot.addWidget(view)
    demo_frame = np.full((240, 320, 3), 200, np.uint8)
    supervisor = SourceSupervisor(lambda: FrameReader(FlakyCamera()), lambda: still_reader(demo_frame),
                                  retry_every_s=0.05, probe_camera_every_s=0.2)
    loop = MirrorLoop(view, supervisor, lambda p, size: shown_frame_from(p.image, 1, {}, p.sequence, size), run_now)
    states = []
    loop.source_state_changed.connect(states.append)
    loop.start()
    try:
        qtbot.waitUntil(lambda: supervisor.state == DEMO and view.has_frame(), timeout=5000)
        qtbot.wait(500)
        assert supervisor.state == DEMO, "the demo must keep playing while no camera is there"
        FlakyCamera.replug()
        qtbot.waitUntil(lambda: supervisor.state == LIVE, timeout=5000)
    finally:
        loop.stop()
        supervisor.close()
    assert states[-1] == LIVE and DEMO in states


@pytest.mark.slow
def test_two_stages_track_the_next_frame_while_painting_this_one_and_never_queue(qtbot):
    """Real bridge threads, a 30 FPS source, a 60 ms track stage and a 60 ms paint stage: the stages overlap
    (a frame is tracked while another is painted), at most one frame is in each stage and at most one tracked
    frame waits for the paint stage, frames are painted in the order they were tracked, each with its own
    tracking's answer, and the mailbox drops what could not be taken."""
    import threading
    import time

    from nailmirror_desktop.ui.bridge import BackgroundRunner

    view, supervisor, readers = grey_still_mirror(qtbot)
    lock = threading.Lock()
    busy = {"track": 0, "paint": 0}
    most = {"track": 0, "paint": 0, "both": 0}
    painted_order: list[int] = []

    def enter(stage):
        with lock:
            busy[stage] += 1
            most[stage] = max(most[stage], busy[stage])
            most["both"] = max(most["both"], busy["track"] + busy["paint"])

    def leave(stage):
        with lock:
            busy[stage] -= 1

    def track(packet):
        enter("track")
        time.sleep(0.06)
        leave("track")
        return ("tracked", packet.sequence, packet.image)

    def paint(staged, size):
        enter("paint")
        time.sleep(0.06)
        leave("paint")
        tag, sequence, image = staged
        assert tag == "tracked"
        painted_order.append(sequence)
        return shown_frame_from(image, 1, {}, sequence, size, nails=sequence % 7)

    runner = BackgroundRunner(3)
    loop = MirrorLoop(view, supervisor, track, runner, paint_frame=paint)
    assert loop.two_stage
    depths, nails = [], []
    loop.frame_shown.connect(lambda: (depths.append(loop.queue_depth()), nails.append(loop.last_nails)))
    loop.start()
    try:
        qtbot.waitUntil(lambda: len(painted_order) >= 10, timeout=15000)
    finally:
        loop.stop()
        qtbot.wait(300)
        runner.close()
        supervisor.close()
    assert most == {"track": 1, "paint": 1, "both": 2}, most
    assert painted_order == sorted(painted_order) and len(set(painted_order)) == len(painted_order)
    assert max(depths) <= 2
    assert nails == [s % 7 for s in painted_order[: len(nails)]]  # each shown frame is its own frame's paint
    assert readers[0].mailbox.dropped > 0
    assert loop.queue_depth() == 0


def test_two_stages_paint_the_demo_with_the_real_pipeline(qtbot, pipeline):
    """The kiosk's wiring (session.track → session.paint) on the demo video, through the bridge's contract."""
    view = MirrorView()
    qtbot.addWidget(view)
    view.resize(640, 400)
    session = TryOnSession(pipeline, mirror=True)
    session.apply(plain_style())
    supervisor = SourceSupervisor(lambda: FrameReader(VideoFileSource(DEMO_VIDEO, loop=True), paced=True))
    loop = MirrorLoop(view, supervisor, session.track, run_now, paint_frame=session.paint)
    shown = []
    loop.frame_shown.connect(lambda: shown.append(loop.last_nails))
    loop.start()
    try:
        qtbot.waitUntil(lambda: len(shown) >= 6 and not view.guide_visible(), timeout=20000)
    finally:
        loop.stop()
        supervisor.close()
    pair = session.latest_pair()
    assert np.any(pair.after != pair.before, axis=2).sum() > 200, "no nail was painted on the demo hand"
    assert max(shown) >= 6  # both demo hands (two hands tracked by default)
    assert set(loop.last_timings_ms) >= {"track", "segment", "composite", "show", "total"}
    assert loop.queue_depth() == 0


@pytest.mark.slow
def test_a_two_stage_loop_stopped_with_a_frame_waiting_starts_again(qtbot):
    """Stopped while one frame is painted and the next waits for the paint stage: the waiting frame is dropped
    with the stop, and a later start shows frames again (the one slot does not stay taken)."""
    import time

    from nailmirror_desktop.ui.bridge import BackgroundRunner

    view = MirrorView()
    qtbot.addWidget(view)
    supervisor = SourceSupervisor(lambda: still_reader(np.full((240, 320, 3), 90, np.uint8)))

    def paint(staged, size):
        time.sleep(0.15)  # slower than tracking: the next tracked frame waits in the slot
        return shown_frame_from(staged.image, 1, {}, staged.sequence, size)

    runner = BackgroundRunner(3)
    loop = MirrorLoop(view, supervisor, lambda packet: packet, runner, paint_frame=paint)
    shown = []
    loop.frame_shown.connect(lambda: shown.append(1))
    loop.start()
    try:
        qtbot.waitUntil(lambda: loop.queue_depth() == 2 and len(shown) >= 1, timeout=10000)
        loop.stop()
        qtbot.waitUntil(lambda: loop.queue_depth() == 0, timeout=5000)
        count = len(shown)
        loop.start()
        qtbot.waitUntil(lambda: len(shown) >= count + 2, timeout=10000)
    finally:
        loop.stop()
        qtbot.wait(400)
        runner.close()
        supervisor.close()


@pytest.mark.slow
def test_the_guide_waits_out_a_short_loss_and_leaves_only_with_both_hands(qtbot):
    """#22 §3: no flicker on a frame or two without a hand; one hand of two is not enough."""
    from nailmirror_desktop.ui.tryon import mirror_loop

    view = MirrorView()
    qtbot.addWidget(view)
    hands = [2]

    def process(packet, target):
        return shown_frame_from(packet.image, hands[0], {}, packet.sequence, target)

    supervisor = SourceSupervisor(lambda: still_reader(np.full((90, 160, 3), 90, np.uint8)))
    loop = MirrorLoop(view, supervisor, process, run_now, hands_wanted=2)
    loop.start()
    try:
        qtbot.waitUntil(lambda: view.has_frame() and not view.guide_visible(), timeout=15000)
        hands[0] = 0
        qtbot.wait(mirror_loop.GUIDE_GRACE_MS // 3)
        assert not view.guide_visible()  # a short loss: still no guide
        hands[0] = 2
        qtbot.wait(mirror_loop.GUIDE_GRACE_MS)
        assert not view.guide_visible()
        hands[0] = 1
        qtbot.waitUntil(view.guide_visible, timeout=mirror_loop.GUIDE_GRACE_MS * 4)
        assert view.guide_text() == "Place both hands flat inside the outlines"
        hands[0] = 2
        qtbot.waitUntil(lambda: not view.guide_visible(), timeout=2000)
    finally:
        loop.stop()
        supervisor.close()


@pytest.mark.slow
def test_the_guide_leaves_a_close_up_whose_nails_are_painted_without_a_hand(qtbot):
    """Fingertips held close (no palm, no hand found) painted by the full-frame fallback: the outline would cover
    the nails the mirror paints. One hand with its nails still gets the guide for the second."""
    from nailmirror_desktop.ui.tryon import mirror_loop

    view = MirrorView()
    qtbot.addWidget(view)
    seen = [(0, 0)]  # (hands, nails painted)

    def process(packet, target):
        hands, nails = seen[0]
        return shown_frame_from(packet.image, hands, {}, packet.sequence, target, nails=nails)

    supervisor = SourceSupervisor(lambda: still_reader(np.full((90, 160, 3), 90, np.uint8)))
    loop = MirrorLoop(view, supervisor, process, run_now, hands_wanted=2)
    loop.start()
    try:
        qtbot.waitUntil(lambda: view.has_frame() and view.guide_visible(), timeout=15000)
        seen[0] = (0, mirror_loop.CLOSE_UP_NAILS)
        qtbot.waitUntil(lambda: not view.guide_visible(), timeout=2000)
        seen[0] = (0, mirror_loop.CLOSE_UP_NAILS - 1)  # a stray nail or two is no close-up
        qtbot.waitUntil(view.guide_visible, timeout=mirror_loop.GUIDE_GRACE_MS * 4)
        seen[0] = (1, 5)
        qtbot.wait(mirror_loop.GUIDE_GRACE_MS * 2)
        assert view.guide_visible()
    finally:
        loop.stop()
        supervisor.close()
