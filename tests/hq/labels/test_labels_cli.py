"""`nailmirror-hq labels …` as a chain's data lead runs it (in-process through the console script's `main`):
create a dataset, list and show it as JSON, export it and the evaluation set, one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq import captures, labels, mask_png
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.support.hq_cli import run_hq, run_hq_json
from tests.support.hq_fixtures import new_kiosk
from tests.support.hq_labels import HEIGHT, PROPOSED, WIDTH, day_for, put_capture, rect_mask


@pytest.mark.slow  # a dozen CLI commands
def test_the_cli_creates_lists_shows_and_exports_datasets(hq_sqlite: HQ, tmp_path: Path) -> None:
    hq = hq_sqlite
    with TestClient(create_app(hq)) as client:
        store_id, headers = new_kiosk(hq, client)
        put_capture(client, headers, "K7QH3MPX", day_for(store_id, False), salt=1)
        put_capture(client, headers, "23456789", day_for(store_id, True), salt=2)
    for code in ("K7QH3MPX", "23456789"):
        labels.save(hq.engine, hq.require_captures(), captures.Operator("cli:lead"), code, labels.Draw(
            "accepted", mask_png.write_mask(rect_mask(PROPOSED), WIDTH, HEIGHT), skin_tone="I-II", nail_kind="bare"))
    env = {"NAILMIRROR_HQ_STARTER_CATALOG": "", "NAILMIRROR_HQ_HOME": str(hq.settings.data_dir)}
    data = ("--data", str(hq.settings.data_dir))

    empty = run_hq(env, *data, "labels", "dataset", "create", "bad name")
    assert empty.returncode == 1 and len(empty.stderr.strip().splitlines()) == 1, empty.stderr
    made = run_hq_json(env, *data, "labels", "dataset", "create", "nails-2026-12")
    assert (made["name"], made["members"], made["lost"], made["legacy"]) == ("nails-2026-12", 1, 0, False)
    again = run_hq(env, *data, "labels", "dataset", "create", "nails-2026-12")
    assert again.returncode == 1 and "dataset_exists" in again.stderr and "Traceback" not in again.stderr
    assert [d["name"] for d in run_hq_json(env, *data, "labels", "dataset", "list")] == ["nails-2026-12"]
    shown = run_hq_json(env, *data, "labels", "dataset", "show", "nails-2026-12")
    assert [m["capture"] for m in shown["label_versions"]] == ["K7QH3MPX"] and shown["held"] == 1
    exported = run_hq_json(env, *data, "labels", "export", "nails-2026-12", "--out", str(tmp_path / "train"))
    assert exported["count"] == 1 and [p.name[13:] for p in (tmp_path / "train" / "masks").iterdir()] == [
        "K7QH3MPX.png"]  # named <image sha256[:12]>-<code>.png
    held_out = run_hq_json(env, *data, "labels", "export-evaluation", "--out", str(tmp_path / "eval"))
    assert held_out["count"] == 1 and [p.name[13:] for p in (tmp_path / "eval" / "images").iterdir()] == [
        "23456789.png"]
    missing = run_hq(env, *data, "labels", "dataset", "show", "nope")
    assert missing.returncode == 1 and "no such dataset nope" in missing.stderr
    assert json.loads(run_hq(env, *data, "labels", "dataset", "list", "--json").stdout)[0]["held"] == 1
