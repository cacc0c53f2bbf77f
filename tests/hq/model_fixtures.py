"""Real nail photos made into HQ's data for the model jobs (issue #27 §3–§5): captures put through the kiosks'
route, labelled with their true masks, a frozen dataset and HQ's evaluation set, base data in the nails_eval
layout, and the trainer's interpreter. The lead's end-to-end test reuses these:

    env = train_env(hq)                             # skips (fails in CI) without .venv-train
    labelled_hq(hq, client, TRAIN_PHOTOS, EVAL_PHOTOS, dataset="nails-1", scrambled="nails-scrambled")
    base = base_data(tmp_path / "base", ())         # an empty photo set: every training photo is a capture
    worse = train(env, "--dataset", "nails-scrambled", "--base-data", str(base), "--epochs", EPOCHS)["model"]
    better = train(env, "--dataset", "nails-1", "--base-data", str(base), "--epochs", EPOCHS)["model"]

The deliberately worse model is the same recipe on the same photos with their labels scrambled (each mask turned
upside down, so the nails it was shown are where nails are not). Merely under-training is not reliably worse at
this size: a 1-epoch model paints most of each nail's ROI and, on 14 other nails_eval photos, scored 0.18 mean IoU
against 0.14 for 30 epochs.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient

from nailmirror_hq import captures, datasets, labels, mask_png
from nailmirror_hq.model_data import TRAIN_PYTHON_ENV
from nailmirror_hq.service import HQ
from tests.conftest import NAILS_EVAL  # beside the checkout (NAILMIRROR_SHARED_DATA)
from tests.support.hq_cli import run_hq, run_hq_json
from tests.support.hq_fixtures import new_kiosk
from tests.support.hq_labels import day_for

ROOT = Path(__file__).resolve().parents[2]

TRAIN_PYTHON = ROOT / ".venv-train" / "bin" / "python"
# Rows of nails_eval/index.csv (sorted by name), disjoint: the evaluation photos are never trained on.
TRAIN_PHOTOS = (4, 5, 6, 7, 8, 9, 10, 11)
BASE_PHOTOS = (12, 13)
EVAL_PHOTOS = (19, 20, 21, 22, 23, 24)
EPOCHS = "30"
LABELLER = captures.Operator("labeller-li")
BUCKETS = (("I-II", "bare"), ("III-IV", "polished"), ("I-II", "polished"))


def nails_eval_rows() -> list[dict[str, str]]:
    """nails_eval's rows by image name; the test skips without the photos (fails in CI, as `nails_eval_dir`)."""
    if not (NAILS_EVAL / "index.csv").is_file():
        reason = f"needs the internal photos in {NAILS_EVAL} (../shared/data beside the checkout)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI: {reason}")
        pytest.skip(reason)
    with open(NAILS_EVAL / "index.csv", newline="", encoding="utf-8") as handle:
        return sorted(csv.DictReader(handle), key=lambda row: row["image"])


def train_python() -> Path:
    """The trainer's interpreter: NAILMIRROR_HQ_TRAIN_PYTHON if the test run has it, else the checkout's
    .venv-train. The test skips without one (fails in CI, as tests/tools/test_train_nail_model.py)."""
    given = os.environ.get(TRAIN_PYTHON_ENV)
    found = Path(given) if given else TRAIN_PYTHON
    if found.exists():
        return found
    reason = f"{found} missing (make it: ./dev train-env)"
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def hq_env(hq: HQ) -> dict[str, str]:
    """The environment `nailmirror-hq` runs in to reach the test's HQ (its data directory, database and blobs)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NAILMIRROR_HQ_")}
    return {**env, "NAILMIRROR_HQ_HOME": str(hq.settings.data_dir), "NAILMIRROR_HQ_STARTER_CATALOG": "",
            "NAILMIRROR_HQ_DATABASE_URL": hq.settings.database_url, "NAILMIRROR_HQ_BLOBS": hq.settings.blobs_url}


def train_env(hq: HQ) -> dict[str, str]:
    """hq_env with the trainer's interpreter set (the test skips without one)."""
    return {**hq_env(hq), TRAIN_PYTHON_ENV: str(train_python())}


def base_data(folder: Path, rows: tuple[int, ...]) -> Path:
    """nails_eval photos `rows` copied as a photo set (images/, masks/, index.csv)."""
    (folder / "images").mkdir(parents=True)
    (folder / "masks").mkdir()
    everything = nails_eval_rows()
    chosen = [everything[i] for i in rows]
    for row in chosen:
        shutil.copy(NAILS_EVAL / "images" / row["image"], folder / "images" / row["image"])
        shutil.copy(NAILS_EVAL / "masks" / row["mask"], folder / "masks" / row["mask"])
    with open(folder / "index.csv", "w", newline="", encoding="utf-8") as handle:
        table = csv.DictWriter(handle, fieldnames=list(everything[0]), lineterminator="\n")
        table.writeheader()
        table.writerows(chosen)
    return folder


def code_for(index: int) -> str:
    """A capture code (Crockford, as kiosks make them) per nails_eval row."""
    digest = hashlib.sha256(f"model-fixture-{index}".encode()).digest()
    return "".join("23456789ABCDEFGHJKMNPQRSTVWXYZ"[b % 30] for b in digest[:8])


def put_photo(client: TestClient, headers: dict[str, str], code: str, row: dict[str, str], day: str) -> tuple[
        int, int]:
    """A nails_eval photo as a consented capture through the kiosks' route; its (width, height)."""
    image = cv2.imread(str(NAILS_EVAL / "images" / row["image"]), cv2.IMREAD_COLOR)
    ok, encoded = cv2.imencode(".png", image)
    assert ok
    data = encoded.tobytes()
    height, width = image.shape[:2]
    facts: dict[str, Any] = {"hands": [], "faces_blurred": 0, "nails": []}
    body = {"nm": 1, "code": code, "image_png_b64": base64.b64encode(data).decode(),
            "image_sha256": hashlib.sha256(data).hexdigest(), "taken_at": f"{day}T10:00:00.000Z",
            "consent": {"by": "customer", "at": f"{day}T10:00:00.000Z", "text_version": "v1"},
            "model_version": "nail_segmenter-2ae635817291", "facts": facts}
    answer = client.put(f"/v1/captures/{code}", json=body, headers=headers)
    assert answer.status_code == 201, answer.text
    return width, height


def label_photo(hq: HQ, code: str, row: dict[str, str], size: tuple[int, int], bucket: tuple[str, str],
                scrambled: bool = False) -> None:
    """Accept the capture with its true mask (what a labeller drawing perfectly would save), or with it turned
    upside down (`scrambled`)."""
    mask = cv2.imread(str(NAILS_EVAL / "masks" / row["mask"]), cv2.IMREAD_GRAYSCALE)
    if scrambled:
        mask = mask[::-1]
    pixels = np.where(mask > 0, 255, 0).astype(np.uint8).tobytes()
    labels.save(hq.engine, hq.require_captures(), LABELLER, code, labels.Draw(
        "accepted", mask_png.write_mask(pixels, *size), source="blank", skin_tone=bucket[0], nail_kind=bucket[1]))


def labelled_hq(hq: HQ, client: TestClient, train_rows: tuple[int, ...], eval_rows: tuple[int, ...],
                dataset: str = "nails-1", scrambled: str | None = None) -> str:
    """Captures of `train_rows` on a training day and of `eval_rows` on an evaluation day of one store, each
    labelled with its true mask (buckets taken in turn from BUCKETS), then dataset `dataset` frozen. With
    `scrambled`, the training captures are first labelled upside down and frozen as that dataset, then labelled
    again truly (a newer label version) for `dataset`. Returns the store's id."""
    store_id, headers = new_kiosk(hq, client)
    rows = nails_eval_rows()
    days = {False: day_for(store_id, False), True: day_for(store_id, True)}
    sizes = {}
    for index, held_out in [(i, False) for i in train_rows] + [(i, True) for i in eval_rows]:
        sizes[index] = put_photo(client, headers, code_for(index), rows[index], days[held_out])
    if scrambled is not None:
        for n, index in enumerate(train_rows):
            label_photo(hq, code_for(index), rows[index], sizes[index], BUCKETS[n % len(BUCKETS)], scrambled=True)
        datasets.create(hq.engine, scrambled, "cli:lead")
    for n, index in enumerate(train_rows + eval_rows):
        label_photo(hq, code_for(index), rows[index], sizes[index], BUCKETS[n % len(BUCKETS)])
    datasets.create(hq.engine, dataset, "cli:lead")
    return store_id


def train(env: dict[str, str], *args: str) -> dict[str, Any]:
    """`nailmirror-hq model train ARGS --json`: the job's answer (model id, sha256, …)."""
    answer: dict[str, Any] = run_hq_json(env, "model", "train", *args)
    return answer


def evaluate(env: dict[str, str], model: str, *args: str) -> dict[str, Any]:
    answer: dict[str, Any] = run_hq_json(env, "model", "evaluate", model, *args)
    return answer


__all__ = ["BASE_PHOTOS", "EPOCHS", "EVAL_PHOTOS", "TRAIN_PHOTOS", "base_data", "evaluate",
           "hq_env", "labelled_hq", "run_hq", "train", "train_env"]
