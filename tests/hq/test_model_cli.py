"""`nailmirror-hq model …` refusing what it cannot run, on one line with exit 2, and the worker's recovery (the
publish and worker tests on SQLite, PostgreSQL and PostgreSQL + S3)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from nailmirror_hq import db, model_jobs, model_registry
from nailmirror_hq.model_data import BUNDLED_MODEL_ENV
from nailmirror_hq.service import HQ
from tests.hq.model_fixtures import hq_env
from tests.support.hq_cli import run_hq

FAKE_SHA = "ab" * 32


def _photo_set(folder: Path) -> Path:
    for part in ("images", "masks"):
        (folder / part).mkdir(parents=True)
    (folder / "index.csv").write_text("image,mask,width,height\n", encoding="utf-8")
    return folder


def _one_line(done: subprocess.CompletedProcess[str], code: str) -> None:
    assert done.returncode == 2, done
    err = done.stderr
    assert err.startswith(f"nailmirror-hq: {code}: ") and err.count("\n") == 1 and "Traceback" not in err


def test_train_without_the_trainers_interpreter_is_one_line_and_exit_2(hq_sqlite: HQ, tmp_path: Path) -> None:
    env = hq_env(hq_sqlite)
    base = _photo_set(tmp_path / "base")
    _one_line(run_hq(env, "model", "train", "--dataset", "d", "--base-data", str(base)), "train_python_missing")
    env["NAILMIRROR_HQ_TRAIN_PYTHON"] = str(tmp_path / "no-such-python")
    done = run_hq(env, "model", "train", "--dataset", "d", "--base-data", str(base))
    _one_line(done, "train_python_missing")
    assert "not a runnable program" in done.stderr
    with db.read(hq_sqlite.engine) as conn:
        assert model_jobs.list_jobs(conn) == []  # nothing queued


def test_train_on_base_data_that_is_not_a_photo_set_is_one_line_and_exit_2(hq_sqlite: HQ, tmp_path: Path) -> None:
    env = {**hq_env(hq_sqlite), "NAILMIRROR_HQ_TRAIN_PYTHON": "/bin/sh"}
    (tmp_path / "half" / "images").mkdir(parents=True)
    done = run_hq(env, "model", "train", "--dataset", "d", "--base-data", str(tmp_path / "half"))
    _one_line(done, "bad_data")
    assert "no index.csv, masks" in done.stderr
    _one_line(run_hq(env, "model", "train", "--dataset", "d", "--base-data", str(tmp_path / "none")), "bad_data")
    queued = run_hq(env, "model", "train", "--dataset", "d", "--base-data", str(_photo_set(tmp_path / "ok")),
                    "--queue-only", "--json")
    assert queued.returncode == 0 and json.loads(queued.stdout)["state"] == "queued"


def test_publish_refuses_a_model_without_a_passing_gate_report(hq: HQ, tmp_path: Path) -> None:
    with db.write(hq.engine) as conn:
        model_registry.register(conn, model_registry.ModelRow(
            "m-abababababab", "nail_segmenter", "live", FAKE_SHA, 10, [], [], None, {}, "d", FAKE_SHA, FAKE_SHA, 1,
            "cmd", None, "2026-12-05T00:00:00.000Z", "cli:test", "candidate"))
    env = hq_env(hq)
    done = run_hq(env, "model", "publish", "m-abababababab", "--channel", "all")
    _one_line(done, "gate_refused")
    assert "no gate report" in done.stderr
    with db.write(hq.engine) as conn:
        model_registry.save_gate_report(conn, model_id="m-abababababab", baseline="bundled-x",
                                        evaluation_set={"source": "hq"}, metrics={}, noise={}, verdict="fail",
                                        reasons=["not_better_than_noise: x"], actor="cli:test")
    _one_line(run_hq(env, "model", "publish", "m-abababababab", "--channel", "all"), "gate_refused")
    with db.write(hq.engine) as conn:  # a pass on a photo folder is not a pass on HQ's evaluation set
        model_registry.save_gate_report(conn, model_id="m-abababababab", baseline="bundled-x",
                                        evaluation_set={"source": "folder"}, metrics={}, noise={}, verdict="pass",
                                        reasons=[], actor="cli:test")
    done = run_hq(env, "model", "publish", "m-abababababab", "--channel", "all")
    _one_line(done, "gate_refused")
    assert "photo folder" in done.stderr
    listed = json.loads(run_hq(env, "model", "list", "--json").stdout)
    assert [(m["model"], m["state"], m["gate"][:4]) for m in listed] == [("m-abababababab", "candidate", "pass")]
    # A pass on HQ's set against another model than the slot's current one (the bundled model, while HQ has
    # released none): beating some other model proves nothing about the counters.
    with db.write(hq.engine) as conn:
        model_registry.save_gate_report(conn, model_id="m-abababababab", baseline="m-cdcdcdcdcdcd",
                                        evaluation_set={"source": "hq"}, metrics={}, noise={}, verdict="pass",
                                        reasons=[], actor="cli:test")
    done = run_hq(env, "model", "publish", "m-abababababab", "--channel", "all")
    _one_line(done, "gate_refused")
    assert "not the slot's current model bundled-2ae635817291" in done.stderr
    elsewhere = run_hq({**env, BUNDLED_MODEL_ENV: str(tmp_path / "none.onnx")}, "model", "publish", "m-abababababab",
                       "--channel", "all")
    assert elsewhere.returncode == 2 and "NAILMIRROR_HQ_BUNDLED_MODEL" in elsewhere.stderr
    assert elsewhere.stderr.count("\n") == 1


def test_the_worker_requeues_a_dead_workers_job_and_a_failing_job_ends_on_one_line(hq: HQ) -> None:
    with db.write(hq.engine) as conn:
        stale = model_jobs.enqueue(conn, "evaluate", {"model": "m-000000000000"}, "cli:test")
        assert model_jobs.claim(conn, "dead-worker") is not None
        conn.execute(model_jobs.model_job.update().values(heartbeat_at="2026-01-01T00:00:00.000Z"))
    done = run_hq(hq_env(hq), "model", "worker", "--once", "--json")
    assert done.returncode == 0, done.stderr
    ran = json.loads(done.stdout)
    assert ran[0] == {"job": stale, "recovered_to": "queued"}
    assert ran[1]["job"] == stale and ran[1]["state"] == "failed" and ran[1]["attempts"] == 2
    assert ran[1]["error"] == "not_found: no such model m-000000000000"
    # a job's folder (exported captures, customers' photos) is removed whether the job succeeded or failed
    assert not (hq.settings.data_dir / "model_work" / f"job-{stale}").exists()


def test_a_still_model_must_beat_the_kiosks_bundled_still_build_not_the_live_one(hq_sqlite: HQ) -> None:
    """The kiosk ships a larger still build (64 inside) than its live one: a still candidate's baseline is that."""
    from nailmirror_hq import model_data, model_publishing

    live, still = model_data.bundled_name("live"), model_data.bundled_name("still")
    assert live != still and still == "bundled-" + hashlib.sha256(
        model_data.BUNDLED_STILL_MODEL.read_bytes()).hexdigest()[:12]
    with db.write(hq_sqlite.engine) as conn:
        model = model_registry.register(conn, model_registry.ModelRow(
            "m-cdcdcdcdcdcd", "nail_segmenter_still", "still", FAKE_SHA, 10, [], [], None, {}, "d", FAKE_SHA,
            FAKE_SHA, 1, "cmd", None, "2026-12-05T00:00:00.000Z", "cli:test", "candidate"))
        model_registry.save_gate_report(conn, model_id=model.id, baseline=live, evaluation_set={"source": "hq"},
                                        metrics={}, noise={}, verdict="pass", reasons=[], actor="cli:test")
        refusal = model_publishing.gate_refusal(conn, model)
        assert refusal is not None and f"not the slot's current model {still}" in refusal
        model_registry.save_gate_report(conn, model_id=model.id, baseline=still, evaluation_set={"source": "hq"},
                                        metrics={}, noise={}, verdict="pass", reasons=[], actor="cli:test")
        assert model_publishing.gate_refusal(conn, model) is None


def test_rollouts_rollback_gives_a_model_slot_its_previous_release_and_refuses_an_older_rollout(
        hq_sqlite: HQ, tmp_path: Path) -> None:
    """The Rollouts page's roll back, from the CLI: only the newest live rollout of the slot can be undone."""
    from nailmirror_hq import model_releases, rollouts
    from tests.hq.test_model_releases import publish

    first = publish(hq_sqlite, tmp_path, salt=1)
    second = publish(hq_sqlite, tmp_path, salt=2)
    env = hq_env(hq_sqlite)
    older = run_hq(env, "rollouts", "rollback", str(first.rollout_id))
    assert older.returncode == 1 and older.stderr.count("\n") == 1 and "Traceback" not in older.stderr  # refused
    assert older.stderr.startswith("nailmirror-hq: not_latest: ")
    assert f"roll back rollout {second.rollout_id} instead" in older.stderr
    done = run_hq(env, "rollouts", "rollback", str(second.rollout_id), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["stage"] == rollouts.ROLLED_BACK
    with db.read(hq_sqlite.engine) as conn:
        back = model_releases.live_release(conn, "all", "live")
        assert back is not None and back["manifest"] == first.manifest
    again = run_hq(env, "rollouts", "rollback", str(second.rollout_id))
    assert again.returncode == 1 and "not_latest" in again.stderr
