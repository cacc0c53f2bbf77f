"""`nailmirror-hq model train|evaluate|publish` with the real trainer on real photos (issue #27 §3–§4): captures
labelled at HQ → a tiny training → the gate refuses a worse model and lets a better one out → a signed release.

The trainer lives in .venv-train (torch, Python 3.11): these tests skip without it, and fail without it in CI."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from nailmirror_hq import db, feed, model_jobs, model_registry
from nailmirror_hq.api.app import create_app
from nailmirror_hq.model_data import BUNDLED_MODEL_ENV
from nailmirror_hq.schema import audit_log, model_job
from nailmirror_hq.service import HQ
from tests.hq.model_fixtures import (
    BASE_PHOTOS,
    EPOCHS,
    EVAL_PHOTOS,
    TRAIN_PHOTOS,
    base_data,
    evaluate,
    labelled_hq,
    run_hq,
    train,
    train_env,
)


# two extractions and a training in real processes, twice: a minute on a 2-core box, so in ./dev soak
@pytest.mark.slow
@pytest.mark.soak
def test_a_rerun_of_one_recipe_on_one_dataset_makes_the_same_model(hq_sqlite: HQ, tmp_path: Path) -> None:
    env = train_env(hq_sqlite)
    with TestClient(create_app(hq_sqlite)) as client:
        labelled_hq(hq_sqlite, client, TRAIN_PHOTOS[:1], EVAL_PHOTOS[:1])
    base = base_data(tmp_path / "base", BASE_PHOTOS[:2])
    args = ("--dataset", "nails-1", "--base-data", str(base), "--epochs", "2", "--seed", "5")
    first = train(env, *args)
    second = train(env, *args)
    assert first["state"] == "done" and first["photos"] == 3 and first["dataset_photos"] == 1
    assert second["sha256"] == first["sha256"] and second["model"] == first["model"]
    assert second["already_registered"] is True and first["already_registered"] is False
    with db.read(hq_sqlite.engine) as conn:
        model = model_registry.find(conn, first["model"])
        jobs = model_jobs.list_jobs(conn)
    assert model is not None and model.state == "candidate" and model.slot == "live" and model.seed == 5
    assert model.command == ("$NAILMIRROR_HQ_TRAIN_PYTHON tools/train_nail_model.py final --rois rois.npz --out "
                             "model.onnx --epochs 2 --seed 5 --inner 32 --threads 1")
    assert len(model.dataset_digest) == 64 and len(model.base_data_digest) == 64
    assert [j.state for j in jobs] == ["done", "done"] and all(j.kind == "train" for j in jobs)
    stored = b"".join(hq_sqlite.blobs.read_chunks(model.sha256))  # where kiosks fetch it
    assert hashlib.sha256(stored).hexdigest() == model.sha256 and len(stored) == model.size
    other_seed = train(env, *args[:-1], "6")
    assert other_seed["sha256"] != first["sha256"]


# six trainings, three evaluations in real processes (two to three minutes on a 2-core box): ./dev soak
@pytest.mark.slow
@pytest.mark.soak
def test_the_gate_refuses_a_worse_model_and_lets_a_better_one_out(hq_sqlite: HQ, tmp_path: Path) -> None:
    env = train_env(hq_sqlite)
    with TestClient(create_app(hq_sqlite)) as client:
        labelled_hq(hq_sqlite, client, TRAIN_PHOTOS, EVAL_PHOTOS, scrambled="nails-scrambled")
    base = base_data(tmp_path / "base", ())  # every training photo is a labelled capture
    recipe = ("--base-data", str(base), "--epochs", EPOCHS)
    worse = train(env, "--dataset", "nails-scrambled", *recipe)["model"]  # the same photos, labels upside down
    better = train(env, "--dataset", "nails-1", *recipe)["model"]

    # A gate judged against any model but the slot's current one proves nothing about the counters
    # (--baseline is for comparing): publish refuses it.
    compared = evaluate(env, better, "--baseline", worse)
    assert compared["verdict"] == "pass", compared
    misjudged = run_hq(env, "model", "publish", better, "--channel", "all")
    assert misjudged.returncode == 2 and "not the slot's current model bundled-" in misjudged.stderr
    # A chain whose kiosks shipped the worse model: it is the slot's baseline until HQ releases one.
    env = {**env, BUNDLED_MODEL_ENV: str(model_file(hq_sqlite, worse, tmp_path))}
    accepted = evaluate(env, better)
    assert accepted["verdict"] == "pass", accepted
    assert accepted["baseline"] == "bundled-" + model_sha(hq_sqlite, worse)[:12]
    assert accepted["photos"] == len(EVAL_PHOTOS) and accepted["difference"] > accepted["noise"] > 0
    released = json.loads(run_hq(env, "model", "publish", better, "--channel", "all", "--json").stdout)
    assert released["slot"] == "live" and released["channel"] == "all" and released["version"] == 1
    assert released["gate_report"] == accepted["gate_report"]

    refused = evaluate(env, worse)  # against the slot's current model: the better one, just published
    assert refused["verdict"] == "fail" and refused["baseline"] == better
    assert any(r.startswith("not_better_than_noise") for r in refused["reasons"]), refused["reasons"]
    blocked = run_hq(env, "model", "publish", worse, "--channel", "all")
    assert blocked.returncode == 2 and blocked.stdout == ""
    assert blocked.stderr.startswith("nailmirror-hq: gate_refused: ") and blocked.stderr.count("\n") == 1

    shown = run_hq(env, "model", "show", better)
    assert shown.returncode == 0 and "gate=pass" in shown.stdout and "gate_iou=candidate" in shown.stdout
    with db.read(hq_sqlite.engine) as conn:
        live = feed.live(conn, "all", "model")
        actions = [r.action for r in conn.execute(select(audit_log.c.action))]
        report = model_registry.latest_gate_report(conn, better)
    assert [slot for slot, _, _ in live] == ["live"]
    assert live[0][2]["manifest"]["gate_report_id"] == accepted["gate_report"]
    assert {"MODEL_TRAIN", "MODEL_EVALUATE", "MODEL_RELEASE"} <= set(actions)
    assert report is not None and report.evaluation_set["source"] == "hq"
    assert set(report.metrics["candidate"]["buckets"]) == {"skin_tone", "nail_kind"}
    assert report.noise["method"] == "max(paired_bootstrap, seed_spread)"
    assert report.noise["twin"]["same_data"] is True and report.noise["seed_spread"] is not None

    withdrawn = json.loads(run_hq(env, "model", "withdraw", better, "--json").stdout)
    assert withdrawn == {"model": better, "slot": "live", "withdrawn_from": ["all"], "still_in": []}
    with db.read(hq_sqlite.engine) as conn:
        assert feed.live(conn, "all", "model") == []


def model_sha(hq: HQ, model_id: str) -> str:
    with db.read(hq.engine) as conn:
        row = model_registry.find(conn, model_id)
    assert row is not None
    return row.sha256


def model_file(hq: HQ, model_id: str, folder: Path) -> Path:
    """A registered model's ONNX out of HQ's blob store."""
    path = folder / f"{model_id}.onnx"
    path.write_bytes(b"".join(hq.blobs.read_chunks(model_sha(hq, model_id))))
    return path


@pytest.mark.slow  # a worker process killed mid-training, then a training to the end
def test_a_worker_killed_mid_job_leaves_it_to_the_next_worker_which_finishes_it(hq_sqlite: HQ,
                                                                                 tmp_path: Path) -> None:
    env = train_env(hq_sqlite)
    with TestClient(create_app(hq_sqlite)) as client:
        labelled_hq(hq_sqlite, client, TRAIN_PHOTOS[:1], EVAL_PHOTOS[:1])
    base = base_data(tmp_path / "base", BASE_PHOTOS[:2])
    queued = json.loads(run_hq(env, "model", "train", "--dataset", "nails-1", "--base-data", str(base), "--epochs",
                               "2", "--queue-only", "--json").stdout)
    worker = subprocess.Popen([sys.executable, "-m", "nailmirror_hq", "model", "worker", "--once"], env=env,
                              start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while _job(hq_sqlite, queued["job"]).state != "running":
            assert time.monotonic() < deadline and worker.poll() is None
            time.sleep(0.05)
        time.sleep(1.0)  # inside a step (an extraction or the trainer)
    finally:
        os.killpg(worker.pid, signal.SIGKILL)  # the worker and the step it was running, as a power cut would
        worker.wait()
    dead = _job(hq_sqlite, queued["job"])
    assert dead.state == "running" and dead.attempts == 1
    with db.write(hq_sqlite.engine) as conn:  # its heartbeat stops: let the staleness pass without waiting it out
        conn.execute(update(model_job).values(heartbeat_at="2026-01-01T00:00:00.000Z"))
    done = run_hq(env, "model", "worker", "--once", "--json")
    assert done.returncode == 0, done.stderr
    ran = json.loads(done.stdout)
    assert ran[0] == {"job": queued["job"], "recovered_to": "queued"}
    assert ran[1]["state"] == "done" and ran[1]["attempts"] == 2 and ran[1]["result"]["model"].startswith("m-")


def _job(hq: HQ, job_id: int) -> model_jobs.Job:
    with db.read(hq.engine) as conn:
        return model_jobs.get(conn, job_id)
