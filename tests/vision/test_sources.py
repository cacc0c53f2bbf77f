"""Frame sources and the latest-frame mailbox, on real files and real threads."""

from __future__ import annotations

import itertools
import threading
import time

import cv2
import numpy as np
import pytest

from nailmirror_desktop.vision.sources.readers import (
    CameraProbe,
    CameraSource,
    Frame,
    FrameReader,
    FrameSourceError,
    LatestFrameMailbox,
    SourceState,
    SourceUnavailable,
    StillImageSource,
    VideoFileSource,
)


def _write_video(path, frames=12, fps=24.0, size=(160, 120)):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
    assert writer.isOpened()
    for i in range(frames):
        image = np.full((size[1], size[0], 3), 20, np.uint8)
        cv2.rectangle(image, (5 + 8 * i, 40), (25 + 8 * i, 80), (255, 255, 255), -1)  # moves right
        writer.write(image)
    writer.release()
    return path


def _frame(sequence: int) -> Frame:
    return Frame(np.full((2, 2, 3), sequence % 256, np.uint8), sequence * 33, sequence)


def test_video_file_frames_timestamps_and_end(tmp_path):
    path = _write_video(tmp_path / "clip.mp4")
    with VideoFileSource(path) as source:
        assert source.frame_count == 12 and source.size == (160, 120)
        assert source.nominal_fps == pytest.approx(24.0)
        frames = []
        while (frame := source.read()) is not None:
            frames.append(frame)
        assert source.state is SourceState.ENDED
        assert source.read() is None
    assert [f.sequence for f in frames] == list(range(12))
    assert [f.timestamp_ms for f in frames] == [round(i * 1000 / 24) for i in range(12)]
    assert frames[0].image.shape == (120, 160, 3) and frames[0].image.dtype == np.uint8
    # the content is the file's: the white box moves right
    centres = [np.argwhere(f.image[:, :, 0] > 128)[:, 1].mean() for f in (frames[0], frames[-1])]
    assert centres[1] > centres[0] + 60


def test_looping_video_keeps_timestamps_increasing(tmp_path):
    path = _write_video(tmp_path / "clip.mp4", frames=5, fps=10.0)
    with VideoFileSource(path, loop=True) as source:
        frames = [source.read() for _ in range(13)]
    stamps = [f.timestamp_ms for f in frames]
    assert all(b > a for a, b in itertools.pairwise(stamps))
    assert stamps[5] == 500 and stamps[12] == 1200
    np.testing.assert_array_equal(frames[0].image, frames[5].image)


def test_missing_and_unreadable_videos(tmp_path):
    with pytest.raises(FrameSourceError) as missing:
        VideoFileSource(tmp_path / "nope.mp4").open()
    assert missing.value.code == "VIDEO_NOT_FOUND"
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all" * 10)
    with pytest.raises(FrameSourceError) as unreadable:
        VideoFileSource(junk).open()
    assert unreadable.value.code == "VIDEO_UNREADABLE"


def test_still_image_once_or_repeated():
    image = np.zeros((10, 20, 3), np.uint8)
    with StillImageSource(image) as once:
        assert once.read().image is image
        assert once.read() is None and once.state is SourceState.ENDED
    with StillImageSource(image, repeat=True, fps=10) as repeated:
        frames = [repeated.read() for _ in range(3)]
    assert [f.timestamp_ms for f in frames] == [0, 100, 200]
    grey = StillImageSource(np.zeros((4, 5), np.uint8))
    grey.open()
    assert grey.read().image.shape == (4, 5, 3)


def test_camera_that_is_not_there_is_a_clear_state():
    # no camera on this machine (and a device path that cannot exist anywhere)
    camera = CameraSource("/dev/nailmirror-no-such-camera", width=None, height=None, fps=None)
    with pytest.raises(SourceUnavailable) as lost:
        camera.open()
    assert lost.value.code == "CAMERA_NOT_FOUND"
    assert camera.state is SourceState.LOST
    with pytest.raises(SourceUnavailable):
        camera.read()
    with pytest.raises(SourceUnavailable):
        camera.reopen()  # reopening tries again and says so again
    camera.close()
    assert camera.state is SourceState.CLOSED


def test_mailbox_keeps_only_the_newest_and_counts_drops():
    mailbox = LatestFrameMailbox()
    assert mailbox.latest() is None
    assert mailbox.take(timeout=0.01) is None
    for i in range(5):
        mailbox.put(_frame(i))
    assert mailbox.take(timeout=0).sequence == 4
    assert mailbox.dropped == 4 and mailbox.put_count == 5
    assert mailbox.take(timeout=0.01) is None  # already taken: nothing new
    assert mailbox.latest().sequence == 4  # peeking still shows it
    mailbox.put(_frame(5))
    assert mailbox.latest().sequence == 5
    mailbox.put(_frame(6))
    assert mailbox.dropped == 4  # frame 5 was seen by latest(), so it was not dropped


def test_mailbox_take_wakes_on_put_and_on_close():
    mailbox = LatestFrameMailbox()
    got = []
    waiter = threading.Thread(target=lambda: got.append(mailbox.take(timeout=5)))
    waiter.start()
    time.sleep(0.05)
    mailbox.put(_frame(7))
    waiter.join(5)
    assert got[0].sequence == 7
    closer = threading.Thread(target=lambda: got.append(mailbox.take(timeout=5)))
    closer.start()
    mailbox.close()
    closer.join(5)
    assert not closer.is_alive() and got[1] is None


def test_reader_thread_with_a_slow_consumer_drops_frames(tmp_path):
    path = _write_video(tmp_path / "clip.mp4", frames=40)
    reader = FrameReader(VideoFileSource(path)).start()
    seen = []
    try:
        while (frame := reader.take(timeout=2)) is not None:
            seen.append(frame.sequence)
            time.sleep(0.02)  # a consumer much slower than decoding
    finally:
        reader.close()
    assert reader.error is None and not reader.running
    assert seen == sorted(seen) and seen[-1] == 39  # always newer frames, and the last one arrives
    assert len(seen) < 40 and reader.mailbox.dropped == 40 - len(seen)


def test_paced_reader_follows_the_video_frame_rate(tmp_path):
    path = _write_video(tmp_path / "clip.mp4", frames=6, fps=20.0)
    reader = FrameReader(VideoFileSource(path), paced=True).start()
    try:
        seen = []
        while (frame := reader.take(timeout=2)) is not None:
            seen.append(frame.sequence)
    finally:
        reader.close()
    assert seen == list(range(6))  # a fast consumer of a paced source misses nothing
    assert reader.mailbox.dropped == 0


def test_reader_keeps_the_sources_error(tmp_path):
    class Failing(StillImageSource):
        def read(self):
            raise SourceUnavailable("CAMERA_LOST", "unplugged")

    reader = FrameReader(Failing(np.zeros((2, 2, 3), np.uint8))).start()
    assert reader.take(timeout=2) is None
    reader.close()
    assert isinstance(reader.error, SourceUnavailable) and reader.error.code == "CAMERA_LOST"
    assert reader.latest() is None


def test_camera_that_stops_delivering_is_lost_and_can_be_reopened(tmp_path):
    """cv2.VideoCapture opens a file like a device; when it runs dry the camera reads as unplugged."""
    path = _write_video(tmp_path / "camera.mp4", frames=3)
    camera = CameraSource(str(path), width=None, height=None, fps=None)
    camera.open()
    assert camera.state is SourceState.OPEN
    stamps = [camera.read().timestamp_ms for _ in range(3)]
    assert stamps == sorted(stamps)
    with pytest.raises(SourceUnavailable) as lost:
        camera.read()
    assert lost.value.code == "CAMERA_LOST" and camera.state is SourceState.LOST
    camera.reopen()  # "plugged back in"
    assert camera.state is SourceState.OPEN
    frame = camera.read()
    assert frame.sequence == 3 and frame.image.shape == (120, 160, 3)
    camera.close()


def test_camera_probe_backs_off_doubling_to_its_cap_and_prints_nothing(capfd):
    now = [100.0]
    made: list[int] = []

    def make(device: int) -> CameraSource:
        made.append(device)
        return CameraSource(device, width=None, height=None, fps=None)  # by index: OpenCV warns when it fails

    # indexes no machine has, claimed present: each due probe really asks OpenCV, which must stay quiet
    probe = CameraProbe((90, 91), first_s=2.0, max_s=10.0, clock=lambda: now[0], device_exists=lambda d: True)
    waits = []
    for _ in range(5):
        assert probe.due()
        assert probe.open_first(make) is None
        waits.append(probe.delay_s)
        now[0] += probe.delay_s - 0.01
        assert not probe.due()
        assert probe.open_first(make) is None  # not due: nothing is opened
        now[0] += 0.01
    assert waits == [2.0, 4.0, 8.0, 10.0, 10.0]
    assert made == [90, 91] * 5 and probe.attempts == 5
    err = capfd.readouterr().err
    assert "WARN" not in err and "VIDEOIO" not in err


def test_camera_probe_opens_nothing_without_a_device_node_and_resets_after_a_camera(tmp_path):
    absent = CameraProbe((0, 1, 2), device_exists=lambda d: False)
    assert absent.open_first(lambda d: pytest.fail("no node, no open")) is None
    assert absent.delay_s == 2.0
    # a video file opens like a camera through cv2.VideoCapture: a "camera" that appears resets the backoff
    path = tmp_path / "cam.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (32, 24))
    for _ in range(3):
        writer.write(np.zeros((24, 32, 3), np.uint8))
    writer.release()
    now = [0.0]
    probe = CameraProbe((0,), clock=lambda: now[0], device_exists=lambda d: True)
    assert probe.open_first(lambda d: CameraSource("/dev/nailmirror-no-such-camera", width=None, height=None,
                                                   fps=None)) is None
    now[0] += probe.delay_s
    camera = probe.open_first(lambda d: CameraSource(str(path), width=None, height=None, fps=None))
    assert camera is not None and camera.state is SourceState.OPEN
    assert probe.delay_s == 0.0 and probe.due()
    camera.close()
