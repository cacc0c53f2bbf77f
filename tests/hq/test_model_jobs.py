"""HQ's queue of model jobs (model_jobs.py): claimed once, kept by its heartbeat, recovered when its worker died."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import update

from nailmirror_hq import clock, db, model_jobs
from nailmirror_hq.schema import model_job
from nailmirror_hq.service import HQ


def _enqueue(hq: HQ, kind: str = "evaluate") -> int:
    with db.write(hq.engine) as conn:
        return model_jobs.enqueue(conn, kind, {"model": "m-000000000000"}, "cli:test")


def _claim(hq: HQ, worker: str, job_id: int | None = None) -> model_jobs.Job | None:
    with db.write(hq.engine) as conn:
        return model_jobs.claim(conn, worker, job_id)


def _age_heartbeat(hq: HQ, job_id: int, seconds: float) -> None:
    """What a worker killed mid-job leaves: a running row whose heartbeat stopped `seconds` ago."""
    with db.write(hq.engine) as conn:
        conn.execute(update(model_job).where(model_job.c.id == job_id).values(
            heartbeat_at=clock.now_text(timedelta(seconds=-seconds))))


def test_jobs_are_claimed_oldest_first_and_only_once(hq: HQ) -> None:
    first, second = _enqueue(hq), _enqueue(hq, "train")
    got = _claim(hq, "w1")
    assert got is not None and got.id == first and got.state == "running" and got.attempts == 1
    assert got.worker == "w1" and got.args == {"model": "m-000000000000"}
    assert _claim(hq, "w2", first) is None  # running: nobody else gets it
    other = _claim(hq, "w2")
    assert other is not None and other.id == second and other.kind == "train"
    assert _claim(hq, "w3") is None


def test_two_workers_racing_for_one_job_never_both_get_it(hq: HQ) -> None:
    jobs = [_enqueue(hq) for _ in range(6)]
    won: list[int] = []
    lock = threading.Lock()

    def drain(worker: str) -> None:
        while (job := _claim(hq, worker)) is not None:
            with lock:
                won.append(job.id)

    threads = [threading.Thread(target=drain, args=(f"w{i}",)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(won) == jobs  # every job once, none twice


def test_only_the_claims_holder_may_beat_finish_or_fail_it(hq: HQ) -> None:
    job_id = _enqueue(hq)
    assert _claim(hq, "w1") is not None
    with db.write(hq.engine) as conn:
        assert not model_jobs.beat(conn, job_id, "w2")
        assert not model_jobs.finish(conn, job_id, "w2", {"x": 1}, "")
        assert model_jobs.beat(conn, job_id, "w1")
        assert model_jobs.finish(conn, job_id, "w1", {"gate_report": "g-1"}, "log\n" * 2000)
        assert not model_jobs.fail(conn, job_id, "w1", "late", "")  # done stays done
        done = model_jobs.get(conn, job_id)
    assert done.state == "done" and done.result == {"gate_report": "g-1"} and done.finished_at
    assert len(done.log_tail) == model_jobs.LOG_TAIL_CHARS


def test_a_dead_workers_job_is_requeued_then_failed_after_its_last_attempt(hq: HQ) -> None:
    job_id = _enqueue(hq)
    assert _claim(hq, "dead-1") is not None
    with db.write(hq.engine) as conn:
        assert model_jobs.recover(conn) == []  # a fresh heartbeat: the worker is alive, leave it
    _age_heartbeat(hq, job_id, model_jobs.STALE_S + 5)
    with db.write(hq.engine) as conn:
        assert model_jobs.recover(conn) == [(job_id, "queued")]
        assert not model_jobs.finish(conn, job_id, "dead-1", {}, "")  # the lost worker cannot write its outcome
    again = _claim(hq, "w2")
    assert again is not None and again.id == job_id and again.attempts == 2
    _age_heartbeat(hq, job_id, model_jobs.STALE_S + 5)
    with db.write(hq.engine) as conn:
        assert model_jobs.recover(conn) == [(job_id, "failed")]
        failed = model_jobs.get(conn, job_id)
    assert failed.state == "failed" and failed.error is not None and failed.error.startswith("worker_lost")
    assert _claim(hq, "w3") is None
