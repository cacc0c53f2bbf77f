"""Evaluation metrics on tiny hand-made masks with known answers, the dataset reader, and the eval command."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from nailmirror_desktop.cli import main
from nailmirror_desktop.vision.evaluation import dataset_pairs, evaluate, score_image, summarise


def _mask(shape, *boxes):
    mask = np.zeros(shape, np.uint8)
    for y0, y1, x0, x1 in boxes:
        mask[y0:y1, x0:x1] = 255
    return mask


def test_iou_recall_and_precision_on_known_masks():
    # two true nails of 4×4 = 16 px each; the painting covers all of nail A (16 px), 6 px of nail B and 10 px of skin
    truth = _mask((20, 20), (0, 4, 0, 4), (10, 14, 10, 14))
    painted = _mask((20, 20), (0, 4, 0, 4), (10, 12, 10, 13), (16, 18, 0, 5))
    score = score_image("a", truth, painted, detected=True)
    assert score.true_nails == 2
    assert score.recalled_nails == 1  # B is 6/16 covered, under half
    assert score.painted_px == 16 + 6 + 10
    assert score.painted_nail_px == 22
    assert score.iou == pytest.approx(22 / (32 + 10))


def test_a_nail_exactly_half_covered_counts_as_recalled():
    truth = _mask((10, 10), (0, 4, 0, 4))
    painted = _mask((10, 10), (0, 2, 0, 4))
    assert score_image("a", truth, painted, True).recalled_nails == 1
    painted = _mask((10, 10), (0, 2, 0, 3))
    assert score_image("a", truth, painted, True).recalled_nails == 0


def test_dataset_summary_counts_misses_as_zero_and_pools_precision():
    truth = _mask((10, 10), (0, 4, 0, 4))
    hit = score_image("hit", truth, _mask((10, 10), (0, 4, 0, 4)), True)  # IoU 1, 16/16 precise
    half = score_image("half", truth, _mask((10, 10), (0, 4, 0, 8)), True)  # IoU 0.5, 16/32 precise
    miss = score_image("miss", truth, np.zeros((10, 10), np.uint8), False)
    summary = summarise([hit, half, miss])
    assert summary.detection_rate == pytest.approx(2 / 3)
    assert summary.mean_iou == pytest.approx(1.5 / 3)
    assert summary.mean_iou_detected == pytest.approx(0.75)
    assert summary.nail_recall == pytest.approx(2 / 3)
    assert summary.precision == pytest.approx(32 / 48)  # pixels pooled over the dataset, not a mean of ratios


def test_sizes_must_match():
    with pytest.raises(ValueError):
        score_image("a", np.zeros((4, 4), np.uint8), np.zeros((4, 5), np.uint8), True)


def _tiny_dataset(root):
    (root / "images").mkdir(parents=True)
    (root / "masks").mkdir()
    for name, box in (("one", (2, 6, 2, 6)), ("two", (10, 14, 10, 14))):
        cv2.imwrite(str(root / "images" / f"{name}.png"), np.full((16, 16, 3), 128, np.uint8))
        cv2.imwrite(str(root / "masks" / f"{name}.png"), _mask((16, 16), box))
    (root / "images" / "notes.txt").write_text("not an image")
    return root


def test_evaluate_runs_a_painter_over_the_dataset(tmp_path):
    pairs = dataset_pairs(_tiny_dataset(tmp_path / "data"))
    assert [p[0].name for p in pairs] == ["one.png", "two.png"]
    # a painter that always paints the first nail's box: right on "one", wrong on "two"
    scores, summary = evaluate(pairs, lambda image: (_mask(image.shape[:2], (2, 6, 2, 6)), True))
    assert [s.iou for s in scores] == [1.0, 0.0]
    assert summary.precision == pytest.approx(0.5)
    assert summary.nail_recall == pytest.approx(0.5)


def test_missing_mask_is_named(tmp_path):
    root = _tiny_dataset(tmp_path / "data")
    (root / "masks" / "two.png").unlink()
    with pytest.raises(FileNotFoundError, match="two"):
        dataset_pairs(root)


@pytest.mark.slow
def test_eval_command_on_a_folder_without_hands(tmp_path, capsys):
    """Plain grey images: no hand is found, nothing is painted, and the JSON line says so."""
    root = _tiny_dataset(tmp_path / "data")
    assert main(["eval", "--data", str(root), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["images"] == 2
    assert result["detection_rate"] == 0.0
    assert result["mean_iou"] == 0.0
    assert result["precision"] == 0.0


def test_eval_command_rejects_a_folder_without_images(tmp_path, capsys):
    assert main(["eval", "--data", str(tmp_path)]) == 2
    assert "images" in capsys.readouterr().err


def test_boundary_f1_counts_outline_pixels_within_the_tolerance():
    from nailmirror_desktop.vision.evaluation.boundary import boundary_counts, tolerance_for

    assert tolerance_for((540, 1080)) == pytest.approx(2.0) and tolerance_for((1080, 2160)) == pytest.approx(4.0)
    truth = _mask((60, 60), (10, 30, 10, 30))  # a 20 × 20 square: 76 outline pixels
    assert boundary_counts(truth, truth, 2.0).f1 == 1.0
    near = boundary_counts(truth, _mask((60, 60), (12, 32, 10, 30)), 2.0)  # two pixels off: within
    assert near.f1 == 1.0
    far = boundary_counts(truth, _mask((60, 60), (15, 35, 10, 30)), 2.0)  # five off: only the sides' overlap
    assert 0.0 < far.f1 < 0.7
    assert far.true == 76 and far.painted == 76
    missed = boundary_counts(truth, np.zeros((60, 60), np.uint8), 2.0)
    assert missed.f1 == 0.0 and missed.true == 76 and missed.true_matched == 0
    assert boundary_counts(np.zeros((9, 9), np.uint8), np.zeros((9, 9), np.uint8)).f1 == 1.0


def test_the_summary_pools_boundary_counts_over_images():
    truth = _mask((60, 60), (10, 30, 10, 30))
    hit = score_image("hit", truth, truth, True)
    miss = score_image("miss", truth, np.zeros((60, 60), np.uint8), False)
    summary = summarise([hit, miss])
    # precision 76/76, recall 76/152: F1 = 2 · 1 · 0.5 / 1.5
    assert summary.boundary_f1 == pytest.approx(2 / 3)
    assert "boundary_f1" in summary.as_dict()
