"""The video metrics exactly as issue 10 defines them: per-frame IoU, nail-frame recall, blink rate."""

import cv2
import numpy as np
import pytest

from nailmirror_desktop.vision.evaluation.video import ClipScorer, summarise, video_clips


def _nails(*boxes: tuple[int, int, int, int], shape=(60, 100)) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    for x0, y0, x1, y1 in boxes:
        mask[y0:y1, x0:x1] = 255
    return mask


A, B = (10, 10, 20, 30), (50, 10, 60, 30)  # two nails of 200 px each


def _cover(box, share: float) -> tuple[int, int, int, int]:
    """The top `share` of a nail's rows."""
    x0, y0, x1, y1 = box
    return x0, y0, x1, y0 + round((y1 - y0) * share)


def test_iou_and_recall_count_frames_and_nail_frames():
    scorer = ClipScorer()
    scorer.add(_nails(A, B), _nails(A, B))  # IoU 1, both nails
    scorer.add(_nails(A, B), _nails(_cover(A, 0.5)))  # IoU 100/400, nail A just half covered
    scorer.add(_nails(), _nails())  # no nail, nothing painted: IoU 1
    score = summarise({"clip": scorer.counts})
    assert score.frames == 3
    assert score.iou_frames == pytest.approx((1 + 0.25 + 1) / 3)
    assert score.nail_recall == pytest.approx(3 / 4)


def test_a_blink_is_a_covered_nail_under_a_fifth_covered_in_the_next_frame():
    scorer = ClipScorer()
    moved = (11, 10, 21, 30)  # nail A moved a pixel: still the same nail
    scorer.add(_nails(A, B), _nails(A, B))
    scorer.add(_nails(moved, B), _nails(_cover(moved, 0.15), _cover(B, 0.25)))  # A blinks; B at 25 % does not
    scorer.add(_nails(moved, B), _nails(moved, B))  # nothing was covered in t−1 but... A 15 %, B 25 %: not counted
    counts = scorer.counts
    assert (counts.blinks, counts.covered_with_next) == (1, 2)
    assert summarise({"clip": counts}).blink_rate == pytest.approx(0.5)


def test_a_nail_that_leaves_the_frame_has_no_next_frame():
    scorer = ClipScorer()
    scorer.add(_nails(A, B), _nails(A, B))
    scorer.add(_nails(B), _nails(B))
    assert (scorer.counts.blinks, scorer.counts.covered_with_next) == (0, 1)


def test_masks_of_another_size_are_an_error():
    with pytest.raises(ValueError, match="differ in size"):
        ClipScorer().add(_nails(A), np.zeros((10, 10), np.uint8))


def test_clip_folders_are_found_and_a_bad_layout_is_named(tmp_path):
    tmp_path = tmp_path / "clips"
    tmp_path.mkdir()
    with pytest.raises(FileNotFoundError, match="no clips"):
        video_clips(tmp_path)
    clip = tmp_path / "a"
    (clip / "gt").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="clip.mp4"):
        video_clips(tmp_path)
    (clip / "clip.mp4").write_bytes(b"")
    cv2.imwrite(str(clip / "gt" / "000000.png"), _nails(A))
    assert [c.name for c in video_clips(tmp_path)] == ["a"]


def test_boundary_f1_is_pooled_over_frames():
    scorer = ClipScorer()
    scorer.add(_nails(A, B), _nails(A, B))
    scorer.add(_nails(A, B), _nails(A))  # B's outline missed
    score = summarise({"clip": scorer.counts})
    outline = 2 * (10 + 20) - 4  # one 10 × 20 nail
    assert score.boundary_f1 == pytest.approx(2 * 1.0 * (3 / 4) / (1.0 + 3 / 4))
    assert scorer.counts.boundary.true == 4 * outline and "boundary_f1" in score.as_dict()
