"""vision.camera_opening.open_early: the kiosk's first frame source (demo video or camera) opens on a thread while the
window is built; the supervisor's first open takes it. Real demo video, real FrameReader threads."""

from __future__ import annotations

import time
from contextlib import ExitStack

import pytest

from nailmirror_desktop.app.kiosk import open_demo_reader
from nailmirror_desktop.vision.sources.camera_opening import open_early
from nailmirror_desktop.vision.sources.readers import FrameReader


class CountingOpener:
    def __init__(self, fail: bool = False) -> None:
        self.calls = 0
        self.readers: list[FrameReader] = []
        self.fail = fail

    def __call__(self) -> FrameReader | None:
        self.calls += 1
        if self.fail:
            raise RuntimeError("NO_CAMERA (next look in 5 s)")
        reader = open_demo_reader()
        self.readers.append(reader)
        return reader


def test_the_first_open_takes_the_reader_opened_early_and_already_reading():
    opener, resources = CountingOpener(), ExitStack()
    open_source = open_early(opener, resources)
    first = open_source()
    assert first is opener.readers[0] and opener.calls == 1
    deadline = time.monotonic() + 30
    while first.latest() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert first.latest() is not None and first.running  # started on the early thread: frames are coming
    second = open_source()  # a re-open (camera lost …) opens anew
    assert second is not first and opener.calls == 2
    resources.close()  # taken readers are the supervisor's to close: this closes nothing
    assert first.running  # (the supervisor starts what a later open returns)
    first.close()
    second.close()


def test_the_first_open_raises_what_the_opener_raised():
    open_source = open_early(CountingOpener(fail=True), ExitStack())
    with pytest.raises(RuntimeError, match="NO_CAMERA"):
        open_source()


def test_a_reader_never_taken_is_closed_with_the_kiosk():
    opener, resources = CountingOpener(), ExitStack()
    open_early(opener, resources)
    resources.close()  # waits for the early open, then closes what nobody took
    assert opener.calls == 1 and not opener.readers[0].running


def test_a_chosen_clip_loops_instead_of_the_bundled_demo_and_a_missing_one_falls_back(tmp_path, caplog):
    """KioskConfig.demo_video (#22 §3: the journeys' clip that starts without hands)."""
    import shutil

    from nailmirror_desktop.core.paths import resources_dir

    clip = tmp_path / "salon.mp4"
    shutil.copyfile(resources_dir() / "demo" / "hand_demo.mp4", clip)
    chosen = open_demo_reader(str(clip))
    assert chosen.source.path == clip and chosen.source.loop
    fallback = open_demo_reader(str(tmp_path / "gone.mp4"))
    assert fallback.source.path.parent == resources_dir() / "demo"
    assert "is not a file" in caplog.text
