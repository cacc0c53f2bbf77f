"""A dataset written for the trainer (nailmirror_hq/dataset_export.py): images/, masks/ (0/255, one channel, the
image's size) and index.csv in the layout of shared/data/nails_eval, read back by the product's own reader
(vision.evaluation.dataset_pairs, which tools/extract_nail_rois.py uses) and by OpenCV."""

from __future__ import annotations

import csv
from hashlib import sha256
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
    shas = {"K7QH3MPX": sha256(put_capture(client, headers, "K7QH3MPX", train_day, salt=1)).hexdigest(),
            "23456789": sha256(put_capture(client, headers, "23456789", eval_day, salt=2)).hexdigest()}
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
    train_name = f"{shas['K7QH3MPX'][:12]}-K7QH3MPX.png"
    assert [(i.name, m.name) for i, m in pairs] == [(train_name, train_name)]
    image = cv2.imread(str(pairs[0][0]), cv2.IMREAD_COLOR)
    mask = cv2.imread(str(pairs[0][1]), cv2.IMREAD_UNCHANGED)
    assert image.shape == (HEIGHT, WIDTH, 3) and mask.shape == (HEIGHT, WIDTH) and mask.dtype == np.uint8
    assert set(np.unique(mask)) == {0, 255} and mask[20, 20] == 255 and mask[50, 70] == 0
    with open(tmp_path / "train" / "index.csv", encoding="utf-8") as index:
        rows = list(csv.reader(index))
    assert rows[0][:8] == HEADER
    assert rows[1][:8] == [train_name, train_name, str(WIDTH), str(HEIGHT), "I-II", "decorated",
                           store_id, train_day]

    held_out = export_evaluation_set(hq.engine, hq.require_captures(), tmp_path / "eval")
    assert (held_out.count, held_out.label_versions) == (1, (ids["23456789"],))
    eval_mask = cv2.imread(str(tmp_path / "eval" / "masks" / f"{shas['23456789'][:12]}-23456789.png"),
                           cv2.IMREAD_UNCHANGED)
    assert eval_mask[50, 70] == 255 and eval_mask[20, 20] == 0
    with pytest.raises(HQError) as refused:  # never over an earlier export
        export_dataset(hq.engine, hq.require_captures(), "nails-1", tmp_path / "train")
    assert refused.value.status == 409


def test_photos_are_exported_in_the_order_of_their_content_not_of_their_codes(hq: HQ, client: TestClient,
                                                                               tmp_path: Path) -> None:
    """The trainer's batches follow the photos' order: the same photos and labels under other (random) capture codes
    must give the same order, so the same model."""
    store_id, headers = new_kiosk(hq, client)
    day = day_for(store_id, False)
    codes = ("23456789", "3456789A", "456789AB", "56789ABC")
    shas = {code: sha256(put_capture(client, headers, code, day, salt=10 + n)).hexdigest()
            for n, code in enumerate(codes)}
    for code in codes:
        labels.save(hq.engine, hq.require_captures(), LABELLER, code, labels.Draw(
            "accepted", mask_png.write_mask(rect_mask(PROPOSED), WIDTH, HEIGHT), skin_tone="I-II",
            nail_kind="bare"))
    datasets.create(hq.engine, "nails-order", "cli:lead")
    by_content = sorted(codes, key=shas.__getitem__)
    assert by_content != sorted(codes)  # these salts give an order the codes alone would not

    export_dataset(hq.engine, hq.require_captures(), "nails-order", tmp_path / "set")
    read = [image.name for image, _ in evaluation.dataset_pairs(tmp_path / "set")]
    assert read == [f"{shas[code][:12]}-{code}.png" for code in by_content]
    with open(tmp_path / "set" / "index.csv", encoding="utf-8") as index:
        assert [row["capture"] for row in csv.DictReader(index)] == by_content
