"""`nailmirror-hq model train` and its worker with the real trainer on real photos (issue #27 §3): the same recipe
on the same dataset makes the same file; a worker killed mid-job leaves it to the next. The gate's refusals and
passes, the signed release and the kiosks' side are the end-to-end loop's (tests/loop/test_model_loop.py, which
trains a deliberately worse and a better model); publish's refusals without training are test_model_cli.py's.

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
from sqlalchemy import update

from nailmirror_hq import db, model_jobs, model_registry
from nailmirror_hq.api.app import create_app
from nailmirror_hq.schema import model_job
from nailmirror_hq.service import HQ
from tests.hq.model_fixtures import (
    BASE_PHOTOS,
    EVAL_PHOTOS,
    TRAIN_PHOTOS,
    base_data,
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
