"""HQ's durable queue of model work (issue #27 §3): one `model_job` row per train or evaluate run.

The SQL is the state machine: queued → running (a conditional UPDATE claims it, so two workers never both get it)
→ done | failed. A running job carries its claim's token (`worker`) and a heartbeat its worker renews; beating,
finishing and failing are conditional on that token, so a worker that lost its job (swept as stale, then claimed by
another) can no longer write its outcome. `recover` runs when a worker starts: a running job whose heartbeat is
older than STALE_S belonged to a dead worker, and goes back to the queue, or to failed after MAX_ATTEMPTS claims
(a job that kills its worker every time must not loop forever).
"""

from __future__ import annotations

import json
import os
import socket
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, and_, select, update

from nailmirror_hq import clock
from nailmirror_hq.schema import model_job

KINDS = ("train", "evaluate")
STATES = ("queued", "running", "done", "failed")
HEARTBEAT_S = 10.0
STALE_S = 120.0  # twelve missed heartbeats: the worker is gone, not just slow
MAX_ATTEMPTS = 2
LOG_TAIL_CHARS = 4000


@dataclass(frozen=True)
class Job:
    id: int
    kind: str
    args: dict[str, Any]
    state: str
    attempts: int
    worker: str | None
    created_at: str
    created_by: str
    started_at: str | None
    heartbeat_at: str | None
    finished_at: str | None
    result: dict[str, Any] | None
    log_tail: str
    error: str | None

    def summary(self) -> dict[str, Any]:
        return {"job": self.id, "kind": self.kind, "state": self.state, "attempts": self.attempts,
                "created_at": self.created_at, "started_at": self.started_at, "finished_at": self.finished_at,
                "error": self.error, "result": self.result}


def worker_token() -> str:
    """Who holds a claim: host, pid and a random part (a pid is reused after a restart)."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def enqueue(conn: Connection, kind: str, args: dict[str, Any], actor: str) -> int:
    if kind not in KINDS:
        raise ValueError(f"unknown job kind {kind!r}")
    done = conn.execute(model_job.insert().values(
        kind=kind, args=json.dumps(args, sort_keys=True), state="queued", attempts=0, created_at=clock.now_text(),
        created_by=actor))
    return int(done.inserted_primary_key[0])  # type: ignore[index]  # an INSERT of one row always has it


def claim(conn: Connection, worker: str, job_id: int | None = None) -> Job | None:
    """The oldest queued job (or job `job_id` if it is queued), now running under `worker`; None if there is none."""
    query = select(model_job.c.id).where(model_job.c.state == "queued").order_by(model_job.c.id).limit(1)
    if job_id is not None:
        query = query.where(model_job.c.id == job_id)
    found = conn.execute(query).scalar()
    if found is None:
        return None
    now = clock.now_text()
    claimed = conn.execute(update(model_job).where(and_(model_job.c.id == found, model_job.c.state == "queued"))
                           .values(state="running", worker=worker, started_at=now, heartbeat_at=now,
                                   attempts=model_job.c.attempts + 1))
    return get(conn, int(found)) if claimed.rowcount == 1 else None


def beat(conn: Connection, job_id: int, worker: str) -> bool:
    """Renew the claim; False when this worker no longer holds the job (it must stop)."""
    return _held(conn, job_id, worker, heartbeat_at=clock.now_text())


def finish(conn: Connection, job_id: int, worker: str, result: dict[str, Any], log_tail: str) -> bool:
    return _held(conn, job_id, worker, state="done", finished_at=clock.now_text(),
                 result=json.dumps(result, sort_keys=True), log_tail=log_tail[-LOG_TAIL_CHARS:], error=None)


def fail(conn: Connection, job_id: int, worker: str, error: str, log_tail: str) -> bool:
    return _held(conn, job_id, worker, state="failed", finished_at=clock.now_text(),
                 log_tail=log_tail[-LOG_TAIL_CHARS:], error=error.splitlines()[0][:300] if error else "failed")


def _held(conn: Connection, job_id: int, worker: str, **values: Any) -> bool:
    done = conn.execute(update(model_job).where(and_(model_job.c.id == job_id, model_job.c.state == "running",
                                                     model_job.c.worker == worker)).values(**values))
    return done.rowcount == 1


def recover(conn: Connection, stale_s: float = STALE_S) -> list[tuple[int, str]]:
    """Running jobs whose worker stopped beating: back to queued, or failed after MAX_ATTEMPTS claims.
    Returns (job id, new state) for each."""
    cutoff = clock.now_text(timedelta(seconds=-stale_s))
    stale = conn.execute(select(model_job.c.id, model_job.c.attempts).where(
        and_(model_job.c.state == "running", model_job.c.heartbeat_at < cutoff))).all()
    moved = []
    for job_id, attempts in stale:
        if attempts >= MAX_ATTEMPTS:
            values: dict[str, Any] = {"state": "failed", "finished_at": clock.now_text(), "worker": None,
                                      "error": f"worker_lost: its worker stopped {attempts} times"}
        else:
            values = {"state": "queued", "worker": None, "started_at": None, "heartbeat_at": None}
        conn.execute(update(model_job).where(and_(model_job.c.id == job_id, model_job.c.state == "running",
                                                  model_job.c.heartbeat_at < cutoff)).values(**values))
        moved.append((int(job_id), str(values["state"])))
    return moved


def get(conn: Connection, job_id: int) -> Job:
    row = conn.execute(select(model_job).where(model_job.c.id == job_id)).one_or_none()
    if row is None:
        raise KeyError(job_id)
    return _job(row)


def list_jobs(conn: Connection, limit: int = 50) -> list[Job]:
    return [_job(r) for r in conn.execute(select(model_job).order_by(model_job.c.id.desc()).limit(limit))]


def _job(row: Any) -> Job:
    return Job(int(row.id), row.kind, json.loads(row.args), row.state, int(row.attempts), row.worker,
               row.created_at, row.created_by, row.started_at, row.heartbeat_at, row.finished_at,
               json.loads(row.result) if row.result else None, row.log_tail or "", row.error)
