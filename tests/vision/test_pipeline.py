"""The try-on pipeline end to end with the real landmarker: demo video frames and a real photo."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nailmirror_desktop.core.paths import resources_dir
from nailmirror_desktop.vision.nails.nail_segmenter import NailSegmenter
from nailmirror_desktop.vision.paint.compositor import Compositor, coverage_mask
from nailmirror_desktop.vision.paint.style_textures import load_style
from nailmirror_desktop.vision.pipeline import STAGES, TryOnPipeline, video_tracker_settings
from nailmirror_desktop.vision.sources.image_io import read_image
from nailmirror_desktop.vision.sources.readers import VideoFileSource
from nailmirror_desktop.vision.tracking.tracker import HandTracker

DEMO = resources_dir() / "demo"
RED = np.full((60, 40, 3), (0, 0, 255), np.uint8)
FRAMES = 15


@pytest.fixture(scope="module")
def demo_frames():
    with VideoFileSource(DEMO / "hand_demo.mp4") as source:
        frames = [source.read() for _ in range(FRAMES)]
    assert all(f is not None for f in frames)
    return frames


def test_demo_video_is_project_media_the_landmarker_sees(demo_frames):
    assert demo_frames[0].image.shape == (720, 1280, 3)
    assert (DEMO / "hand_demo.mp4").stat().st_size < 2_000_000
    with HandTracker("video", video_tracker_settings(2)) as tracker:
        counts = [len(tracker.track(f.image, f.timestamp_ms)) for f in demo_frames]
    assert sum(c == 2 for c in counts) >= 0.8 * FRAMES, counts


def test_video_frames_are_painted_exactly_where_the_coverage_says(demo_frames):
    painted_nails = []
    with TryOnPipeline(Compositor(RED), max_hands=2) as pipeline:
        for frame in demo_frames:
            original = frame.image.copy()
            result = pipeline.process_video_frame(frame.image, frame.timestamp_ms, want_coverage=True)
            np.testing.assert_array_equal(frame.image, original)  # not painted in place unless asked
            assert result.frame.shape == original.shape
            np.testing.assert_array_equal(result.coverage, coverage_mask(result.quads, original.shape,
                                                                         result.masks))
            changed = np.any(result.frame != original, axis=2)
            near_nails = cv2.dilate(result.coverage, np.ones((7, 7), np.uint8)) > 0
            assert not (changed & ~near_nails).any()
            painted_nails.append(sum(q.opacity > 0 for q in result.quads))
            timings = result.timings
            assert all(getattr(timings, stage) >= 0 for stage in STAGES)
            assert timings.total >= timings.track + timings.composite
    assert max(painted_nails) >= 8, painted_nails  # both hands' nails, thumbs possibly faded
    # the red polish is on the drawn nails: mostly red where painted
    nails = result.coverage == 255
    b, g, r = (result.frame[..., i][nails].astype(int) for i in range(3))
    assert (r - np.maximum(b, g)).mean() > 60


def test_in_place_paints_the_callers_frame(demo_frames):
    frame = demo_frames[0].image.copy()
    with TryOnPipeline(Compositor(RED), max_hands=1) as pipeline:
        result = pipeline.process_video_frame(frame, 0, in_place=True)
    assert result.frame is frame
    assert np.any(frame != demo_frames[0].image)
    assert result.coverage is None


@pytest.mark.slow
def test_video_landmarks_are_smoothed(demo_frames):
    with HandTracker("video", video_tracker_settings(1)) as tracker, \
            TryOnPipeline(Compositor(RED), max_hands=1) as smoothed, \
            TryOnPipeline(Compositor(RED), max_hands=1, smoothing=False) as raw_pipeline:
        differences = []
        for frame in demo_frames:
            raw = tracker.track(frame.image, frame.timestamp_ms)
            unsmoothed = raw_pipeline.process_video_frame(frame.image, frame.timestamp_ms).hands
            hands = smoothed.process_video_frame(frame.image, frame.timestamp_ms).hands
            assert len(hands) == len(raw) == len(unsmoothed) == 1
            np.testing.assert_allclose(unsmoothed[0].landmarks, raw[0].landmarks, atol=1e-3)
            differences.append(np.abs(hands[0].landmarks[:, :2] - raw[0].landmarks[:, :2]).max())
    assert differences[0] < 1e-3  # a new track starts at the observation
    assert max(differences[1:]) > 0.05  # later frames are filtered…
    assert max(differences) < 60  # …but stay on the hand


def test_no_style_paints_nothing_but_still_tracks(demo_frames):
    with TryOnPipeline(Compositor(), max_hands=2) as pipeline:
        result = pipeline.process_video_frame(demo_frames[3].image, 100, want_coverage=True)
    assert result.hands
    np.testing.assert_array_equal(result.frame, demo_frames[3].image)
    assert not result.coverage.any()


def test_style_folder_accent_lands_on_the_ring_finger(demo_frames):
    style = load_style(DEMO / "styles" / "rose_gloss")
    with TryOnPipeline(style.compositor(), max_hands=1) as pipeline:
        # the first frame whose ring and index nails the segmenter found (it misses some drawn nails)
        for frame in demo_frames:
            result = pipeline.process_video_frame(frame.image, frame.timestamp_ms, want_coverage=True)
            assert result.masks is not None
            by_finger = {q.finger.name: (q, m) for q, m in zip(result.quads, result.masks, strict=True)
                         if q.opacity > 0}
            if {"INDEX", "RING"} <= set(by_finger):
                break
    assert {"INDEX", "RING"} <= set(by_finger)
    ring = coverage_mask([by_finger["RING"][0]], result.frame.shape, [by_finger["RING"][1]]) > 0
    index = coverage_mask([by_finger["INDEX"][0]], result.frame.shape, [by_finger["INDEX"][1]]) > 0
    ring_colour = result.frame[ring].mean(axis=0)
    index_colour = result.frame[index].mean(axis=0)
    # the accent is gold (high green), the base rose (green lowest)
    assert ring_colour[1] > index_colour[1] + 40


@pytest.mark.slow
def test_still_photo(nails_eval_dir):
    image = read_image(nails_eval_dir / "images" / "3493127D-7B19-4E50-94AE-2401BD2A91C8.jpg")
    with TryOnPipeline(Compositor(RED)) as pipeline:
        result = pipeline.process_still(image)
        blank = pipeline.process_still(np.full((240, 320, 3), 128, np.uint8))
    assert result.hands and result.coverage.shape == image.shape[:2]
    assert result.coverage.dtype == np.uint8 and (result.coverage == 255).sum() > 100
    assert not blank.hands and not blank.quads and not blank.coverage.any()
    np.testing.assert_array_equal(blank.frame, np.full((240, 320, 3), 128, np.uint8))
    # stills are refined: one mask per quad, and the coverage is exactly the masks' (and the quads' without one)
    assert result.masks is not None and len(result.masks) == len(result.quads)
    assert any(mask is not None and mask.refined for mask in result.masks)
    assert all(q.opacity in (0.0, 1.0) for q in result.quads)  # a still paints a nail fully or not at all
    np.testing.assert_array_equal(result.coverage, coverage_mask(result.quads, image.shape, result.masks))
    assert not np.array_equal(result.coverage, coverage_mask(result.quads, image.shape))  # the masks changed it
    changed = np.any(result.frame != image, axis=2)
    assert not (changed & ~(cv2.dilate(result.coverage, np.ones((5, 5), np.uint8)) > 0)).any()


@pytest.mark.slow
def test_evaluation_scores_what_the_still_path_paints(nails_eval_dir):
    from nailmirror_desktop.vision.evaluation import landmark_painter
    from nailmirror_desktop.vision.tracking.still_detection import StillHandDetector

    image = read_image(nails_eval_dir / "images" / "3493127D-7B19-4E50-94AE-2401BD2A91C8.jpg")
    with TryOnPipeline(Compositor(RED)) as pipeline, StillHandDetector() as detector:
        result = pipeline.process_still(image)
        painted, found = landmark_painter(detector)(image)
    assert found
    np.testing.assert_array_equal(painted, result.coverage)


def test_video_frames_are_painted_with_the_segmenters_masks(demo_frames):
    with TryOnPipeline(Compositor(RED), max_hands=1) as pipeline:
        result = pipeline.process_video_frame(demo_frames[0].image, 0, want_coverage=True)
    assert result.masks is not None and len(result.masks) == len(result.quads)
    painted = [(q, m) for q, m in zip(result.quads, result.masks, strict=True) if q.opacity > 0]
    assert len(painted) >= 3 and all(m is not None and m.refined for _, m in painted)
    assert all(q.opacity == 1.0 for q, _ in painted)  # a painted nail is painted fully: hysteresis decides
    assert result.timings.refine == 0.0 and result.timings.segment > 0.0
    # the model's masks, not the quads' nail shapes
    assert not np.array_equal(result.coverage, coverage_mask(result.quads, result.frame.shape))


class _CountingSegmenter(NailSegmenter):
    """The real segmenter, counting the ROIs it runs per call."""

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[int] = []

    def probabilities(self, images):
        self.runs.append(len(images))
        return super().probabilities(images)


def test_video_at_a_cadence_carries_the_masks_between_model_runs(demo_frames):
    segmenter = _CountingSegmenter()
    runs_per_frame, results = [], []
    with TryOnPipeline(Compositor(RED), max_hands=1, segment_every=3, segmenter=segmenter) as pipeline:
        for frame in demo_frames[:6]:
            before = len(segmenter.runs)
            results.append(pipeline.process_video_frame(frame.image, frame.timestamp_ms, want_coverage=True))
            runs_per_frame.append(sum(segmenter.runs[before:]))
    for index, result in enumerate(results):
        painted = sum(q.opacity > 0 for q in result.quads)
        assert painted >= 3, index  # carried masks paint the nails between model runs
        np.testing.assert_array_equal(result.coverage, coverage_mask(result.quads, result.frame.shape,
                                                                     result.masks))
    # frames 0 and 3 run every painted nail; between, only nails with no mask to carry (the model missed them)
    assert runs_per_frame[0] >= 3 and runs_per_frame[3] >= 3
    assert runs_per_frame[1] < runs_per_frame[0] and runs_per_frame[2] < runs_per_frame[3]


def test_a_fresh_frames_prior_is_where_the_carried_mask_painted_the_nail():
    from nailmirror_desktop.vision.nails.nail_refiner import NailMask
    from nailmirror_desktop.vision.nails.nail_tracks import TrackedNail
    from nailmirror_desktop.vision.nails.warp import Roi
    from nailmirror_desktop.vision.pipeline import _prior
    from nailmirror_desktop.vision.types import Finger, NailQuad

    corners = np.array([[40, 30], [60, 30], [60, 60], [40, 60]], np.float32)
    quad = NailQuad(Finger.INDEX, corners, 0, 1.0)
    alpha = np.zeros((30, 20), np.float32)
    alpha[5:25, 4:16] = 1.0
    last = NailMask(quad, Roi(40, 30, 60, 60), alpha, refined=True)

    def nail(moved: np.ndarray | None) -> TrackedNail:
        return TrackedNail(1, quad, True, np.ones((64, 64), bool), 2, last, moved)

    # the nail moved 6.4 px right and 2.6 px up since its last fresh mask: the prior is that mask moved so
    prior = _prior(nail(np.array([6.4, -2.6])), (120, 160, 3))
    assert prior is not None and (prior.roi.x0, prior.roi.y0) == (46, 27)
    np.testing.assert_array_equal(prior.alpha, alpha)
    assert _prior(nail(None), (120, 160, 3)) is last  # no motion known: where it was found
    assert _prior(nail(np.array([500.0, 0.0])), (120, 160, 3)) is last  # moved out of the frame: the same


def test_two_stages_overlapped_on_two_threads_paint_what_one_stage_paints(demo_frames):
    """The live mirror tracks frame N+1 on one thread while it paints frame N on another: the stages share no
    state, so the frames come out exactly as `process_video_frame` paints them one after the other, each with
    its own frame's landmarks (the paint does not lag the hand)."""
    from concurrent.futures import ThreadPoolExecutor

    frames = demo_frames[:10]
    with TryOnPipeline(Compositor(RED), max_hands=2) as serial:
        expected = [serial.process_video_frame(f.image, f.timestamp_ms, want_coverage=True) for f in frames]
    painted = []
    with TryOnPipeline(Compositor(RED), max_hands=2) as staged, \
            ThreadPoolExecutor(1, "track") as tracker, ThreadPoolExecutor(1, "paint") as painter:
        tracking = tracker.submit(staged.track_video_frame, frames[0].image, frames[0].timestamp_ms)
        for nxt in [*frames[1:], None]:
            tracked = tracking.result()
            assert tracked.frame is not None and tracked.track_ms > 0
            painting = painter.submit(staged.paint_video_frame, tracked, want_coverage=True)
            if nxt is not None:  # the next frame is tracked while this one is painted
                tracking = tracker.submit(staged.track_video_frame, nxt.image, nxt.timestamp_ms)
            painted.append((tracked, painting.result()))
    for (tracked, result), want in zip(painted, expected, strict=True):
        assert result.frame.shape == want.frame.shape
        np.testing.assert_array_equal(result.frame, want.frame)
        np.testing.assert_array_equal(result.coverage, want.coverage)
        assert [q.finger for q in result.quads] == [q.finger for q in want.quads]
        assert len(tracked.hands) == len(result.hands)
        assert result.timings.track == tracked.track_ms
        assert result.timings.total >= result.timings.track + result.timings.composite
    assert max(sum(q.opacity > 0 for q in r.quads) for _, r in painted) >= 8  # both hands painted


def test_a_restart_reaches_the_paint_stage_with_its_frame(demo_frames):
    """A re-opened source starts over: the frame tracked with restart=True is painted as a first frame (the
    smoothing starts again at that frame's own landmarks) — without it the old track's smoothing pulls them."""
    with TryOnPipeline(Compositor(RED), max_hands=1) as staged:
        clock = 0
        for frame in demo_frames[:8]:
            clock += 33
            staged.process_video_frame(frame.image, clock)
        jumped = staged.track_video_frame(demo_frames[0].image, clock + 33)  # back to the start, unannounced
        carried = staged.paint_video_frame(jumped)
        for frame in demo_frames[:8]:
            clock += 33
            staged.process_video_frame(frame.image, clock)
        announced = staged.track_video_frame(demo_frames[0].image, clock + 33, restart=True)
        restarted = staged.paint_video_frame(announced)
    assert len(carried.hands) == len(restarted.hands) == 1
    np.testing.assert_allclose(restarted.hands[0].landmarks, announced.hands[0].landmarks, atol=1e-3)
    assert np.abs(carried.hands[0].landmarks[:, :2] - jumped.hands[0].landmarks[:, :2]).max() > 0.05


def test_a_fresh_mask_that_left_its_nail_is_taken_for_a_miss_for_a_frame_or_two():
    from nailmirror_desktop.vision.nails.nail_refiner import NailMask
    from nailmirror_desktop.vision.nails.nail_rois import shifted_mask
    from nailmirror_desktop.vision.nails.nail_tracks import TrackedNail
    from nailmirror_desktop.vision.nails.warp import Roi
    from nailmirror_desktop.vision.pipeline import SWAP_CARRY_FRAMES, _swapped
    from nailmirror_desktop.vision.types import Finger, NailQuad

    corners = np.array([[40, 30], [60, 30], [60, 60], [40, 60]], np.float32)
    alpha = np.zeros((30, 20), np.float32)
    alpha[5:25, 4:16] = 1.0
    prior = NailMask(NailQuad(Finger.INDEX, corners, 0, 1.0), Roi(40, 30, 60, 60), alpha, refined=True)

    def nail(age: int, dx: float = 2.0) -> TrackedNail:  # its quad moved dx right since the prior's mask, the
        # prior (its averaged motion) 1 px
        quad = NailQuad(Finger.INDEX, corners + np.array([dx, 0.0], np.float32), 0, 1.0)
        return TrackedNail(1, quad, True, np.ones((64, 64), bool), age, prior, np.array([1.0, 0.0]),
                           quad_moved=np.array([dx, 0.0]))

    neighbour = shifted_mask(prior, np.array([14.0, 0.0]), (120, 160, 3))  # the next nail's, beside it
    nudged = shifted_mask(prior, np.array([3.0, 1.0]), (120, 160, 3))  # the same nail, moved a little
    assert neighbour is not None and nudged is not None
    assert _swapped(neighbour, prior, nail(1)) and _swapped(neighbour, prior, nail(SWAP_CARRY_FRAMES))
    assert not _swapped(nudged, prior, nail(1))
    assert not _swapped(neighbour, prior, nail(SWAP_CARRY_FRAMES + 1))  # then the nail is taken to be there
    assert not _swapped(neighbour, None, nail(1))  # nothing painted before: nothing to keep to
    # the finger moved 20 px (two-thirds of its nail) between two painted frames of a busy mirror, its averaged
    # motion 1 px: the fresh mask is where the nail went, and the prior was left behind off the finger
    assert not _swapped(neighbour, prior, nail(1, dx=20.0))


def _unsure(tracked):
    """`tracked` with every hand's score under geometry's MIN_HAND_SCORE: every nail's fade goes out."""
    from dataclasses import replace

    from nailmirror_desktop.vision.types import HandObservation

    return replace(tracked, hands=[HandObservation(h.landmarks, h.handedness, 0.2) for h in tracked.hands])


def test_a_nail_whose_fade_drops_out_stays_painted_where_the_model_still_finds_it(demo_frames):
    """The fade is a guess from landmark depths, which jitter: a facing nail's fade goes out for a frame or two.
    While the model still finds the nail where it was painted, it stays painted (nail_tracks' grace)."""
    with TryOnPipeline(Compositor(RED), max_hands=1) as pipeline:
        first = pipeline.paint_video_frame(pipeline.track_video_frame(demo_frames[0].image, 0))
        second = pipeline.track_video_frame(demo_frames[1].image, demo_frames[1].timestamp_ms)
        kept = pipeline.paint_video_frame(_unsure(second), want_coverage=True)
    before = sum(q.opacity > 0 for q in first.quads)
    assert before >= 3
    assert sum(q.opacity > 0 for q in kept.quads) >= before - 1
    assert kept.held == 0  # seen nails, painted with this frame's masks
    assert kept.coverage is not None and np.count_nonzero(kept.coverage) > 0


def test_a_nail_whose_fade_drops_out_where_the_model_finds_no_nail_is_bare_at_once(demo_frames):
    """The hand turned over (its fade out) and the model sees no nail (here: nothing at all): nothing carried."""
    with TryOnPipeline(Compositor(RED), max_hands=1) as pipeline:
        first = pipeline.paint_video_frame(pipeline.track_video_frame(demo_frames[0].image, 0))
        second = pipeline.track_video_frame(demo_frames[1].image, demo_frames[1].timestamp_ms)
        blank = np.full_like(second.frame, 128)
        from dataclasses import replace

        bare = pipeline.paint_video_frame(replace(_unsure(second), frame=blank), want_coverage=True)
    assert sum(q.opacity > 0 for q in first.quads) >= 3
    assert not any(q.opacity > 0 for q in bare.quads)
    assert bare.coverage is not None and not bare.coverage.any()
