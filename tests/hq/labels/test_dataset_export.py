"""A dataset written for the trainer (nailmirror_hq/dataset_export.py): images/, masks/ (0/255, one channel, the
image's size) and index.csv in the layout of shared/data/nails_eval, read back by the product's own reader
(vision.evaluation.dataset_pairs, which tools/extract_nail_rois.py uses) and by OpenCV."""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from nailmirror_desktop.vision import evaluation
from nailmirror_hq import captures, datasets, labels, mask_png
from nailmirror_hq.dataset_export import export_dataset, export_evaluation_set
from nailmirror_hq.errors import HQError
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import new_kiosk
from tests.support.hq_labels import HEIGHT, PROPOSED, WIDTH, day_for, put_capture, rect_mask

LABELLER = captures.Operator("labeller-li")
HEADER = ["image", "mask", "width", "height", "skin_tone", "nail_kind", "store_id", "day"]


def test_a_dataset_and_the_evaluation_set_export_in_the_trainers_layout(hq: HQ, client: TestClient,
                                                                        tmp_path: Path) -> None:
    store_id, headers = new_kiosk(hq, client)
    train_day, eval_day = day_for(store_id, False), day_for(store_id, True)
    put_capture(client, headers, "K7QH3MPX", train_day, salt=1)
    put_capture(client, headers, "23456789", eval_day, salt=2)
    put_capture(client, headers, "3456789A", train_day, salt=3)  # rejected: in neither
    ids = {}
    for code, box in (("K7QH3MPX", PROPOSED), ("23456789", (60, 40, 90, 70))):
        ids[code] = labels.save(hq.engine, hq.require_captures(), LABELLER, code, labels.Draw(
            "accepted", mask_png.write_mask(rect_mask(box), WIDTH, HEIGHT), skin_tone="I-II",
            nail_kind="decorated")).id
    labels.save(hq.engine, hq.require_captures(), LABELLER, "3456789A", labels.Draw("rejected", reason="privacy"))
    datasets.create(hq.engine, "nails-1", "cli:lead")

    done = export_dataset(hq.engine, hq.require_captures(), "nails-1", tmp_path / "train")
    assert (done.name, done.count, done.label_versions) == ("nails-1", 1, (ids["K7QH3MPX"],))
    pairs = evaluation.dataset_pairs(tmp_path / "train")
    assert [(i.name, m.name) for i, m in pairs] == [("K7QH3MPX.png", "K7QH3MPX.png")]
    image = cv2.imread(str(pairs[0][0]), cv2.IMREAD_COLOR)
    mask = cv2.imread(str(pairs[0][1]), cv2.IMREAD_UNCHANGED)
    assert image.shape == (HEIGHT, WIDTH, 3) and mask.shape == (HEIGHT, WIDTH) and mask.dtype == np.uint8
    assert set(np.unique(mask)) == {0, 255} and mask[20, 20] == 255 and mask[50, 70] == 0
    with open(tmp_path / "train" / "index.csv", encoding="utf-8") as index:
        rows = list(csv.reader(index))
    assert rows[0][:8] == HEADER
    assert rows[1][:8] == ["K7QH3MPX.png", "K7QH3MPX.png", str(WIDTH), str(HEIGHT), "I-II", "decorated",
                           store_id, train_day]

    held_out = export_evaluation_set(hq.engine, hq.require_captures(), tmp_path / "eval")
    assert (held_out.count, held_out.label_versions) == (1, (ids["23456789"],))
    eval_mask = cv2.imread(str(tmp_path / "eval" / "masks" / "23456789.png"), cv2.IMREAD_UNCHANGED)
    assert eval_mask[50, 70] == 255 and eval_mask[20, 20] == 0
    with pytest.raises(HQError) as refused:  # never over an earlier export
        export_dataset(hq.engine, hq.require_captures(), "nails-1", tmp_path / "train")
    assert refused.value.status == 409
