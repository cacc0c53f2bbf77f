"""Running model jobs (issue #27 §3): `nailmirror-hq model worker` and the foreground run of `model train|evaluate`.

A job runs its steps as programs (the kiosk's tools in HQ's interpreter, the trainer in its own), each in the job's
work folder under the data directory, while a heartbeat thread renews the claim every HEARTBEAT_S. If the claim is
lost (the job was swept as stale and claimed again), the heartbeat kills the running program and the outcome is
never written. A step that fails fails the job with one line; its programs' last output is kept as the log tail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nailmirror_hq import db, model_jobs
from nailmirror_hq.errors import HQError
from nailmirror_hq.service import HQ

STEP_TIMEOUT_S = 6 * 3600  # a full training on a 2-core PC takes minutes; hours means it is stuck


class JobFailed(Exception):
    """A step failed; str() is the one line the job's `error` keeps."""


class ClaimLost(Exception):
    """Another worker holds the job now: this one stops without writing anything."""


@dataclass
class JobContext:
    hq: HQ
    job: model_jobs.Job
    worker: str
    work: Path
    log: list[str] = field(default_factory=list)
    lost: threading.Event = field(default_factory=threading.Event)
    _current: subprocess.Popen[str] | None = None

    def program(self, argv: Sequence[str | Path], *, env: dict[str, str] | None = None, what: str,
                cwd: Path | None = None) -> str:
        """Run one step (in `cwd`, else the job's work folder); its stdout, or JobFailed naming `what` with the
        program's last line of stderr."""
        if self.lost.is_set():
            raise ClaimLost()
        full_env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), **(env or {})}
        self._current = subprocess.Popen([str(a) for a in argv], cwd=cwd or self.work, env=full_env, text=True,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            out, err = self._current.communicate(timeout=STEP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._current.kill()
            out, err = self._current.communicate()
            raise JobFailed(f"{what} ran past {STEP_TIMEOUT_S} s") from None
        finally:
            code, self._current = (self._current.returncode if self._current else None), None
        self.log.append(f"$ {what}\n{_tail(err, 30)}")
        if self.lost.is_set():
            raise ClaimLost()
        if code != 0:
            last = next((line for line in reversed(err.splitlines()) if line.strip()), f"exit status {code}")
            raise JobFailed(f"{what} failed: {last.strip()[:200]}")
        return out

    def stop_program(self) -> None:
        current = self._current
        if current is not None and current.poll() is None:
            current.kill()

    @property
    def log_tail(self) -> str:
        return "\n".join(self.log)


Handler = Callable[[JobContext], dict[str, Any]]


def handlers() -> dict[str, Handler]:
    from nailmirror_hq import model_evaluation, model_training

    return {"train": model_training.run, "evaluate": model_evaluation.run}


def run_claimed(hq: HQ, job: model_jobs.Job, worker: str) -> model_jobs.Job:
    """Run a job this worker claimed and record its outcome; returns the job as it ended."""
    work = hq.settings.data_dir / "model_work" / f"job-{job.id}"
    shutil.rmtree(work, ignore_errors=True)  # a requeued job starts clean
    work.mkdir(parents=True, mode=0o700)
    ctx = JobContext(hq, job, worker, work)
    beating = threading.Event()
    thread = threading.Thread(target=_heartbeat, args=(ctx, beating), name=f"model-job-{job.id}", daemon=True)
    thread.start()
    try:
        result = handlers()[job.kind](ctx)
    except ClaimLost:
        return _reread(hq, job.id)
    except (JobFailed, HQError, OSError, ValueError) as exc:
        message = exc.message if isinstance(exc, HQError) else str(exc)
        code = f"{exc.code}: " if isinstance(exc, HQError) else ""
        with db.write(hq.engine) as conn:
            model_jobs.fail(conn, job.id, worker, f"{code}{message}", ctx.log_tail)
        return _reread(hq, job.id)
    except BaseException as exc:  # anything else, and ^C: the job fails on one line, the worker goes on or stops
        with db.write(hq.engine) as conn:
            model_jobs.fail(conn, job.id, worker, f"internal: {type(exc).__name__}: {exc}", ctx.log_tail)
        raise
    finally:
        beating.set()
        thread.join()
        # the folder holds exported captures (customers' photos): never left behind, done or failed; the model is
        # in the blob store and the programs' output in the job's log tail
        shutil.rmtree(work, ignore_errors=True)
    with db.write(hq.engine) as conn:
        model_jobs.finish(conn, job.id, worker, result, ctx.log_tail)
    return _reread(hq, job.id)


def run_next(hq: HQ, worker: str, job_id: int | None = None) -> model_jobs.Job | None:
    """Claim and run the oldest queued job (or `job_id`); None when there is none to claim."""
    with db.write(hq.engine) as conn:
        job = model_jobs.claim(conn, worker, job_id)
    return None if job is None else run_claimed(hq, job, worker)


def recover(hq: HQ) -> list[tuple[int, str]]:
    with db.write(hq.engine) as conn:
        return model_jobs.recover(conn)


def _heartbeat(ctx: JobContext, done: threading.Event) -> None:
    while not done.wait(model_jobs.HEARTBEAT_S):
        with db.write(ctx.hq.engine) as conn:
            held = model_jobs.beat(conn, ctx.job.id, ctx.worker)
        if not held:
            ctx.lost.set()
            ctx.stop_program()
            return


def _reread(hq: HQ, job_id: int) -> model_jobs.Job:
    with db.read(hq.engine) as conn:
        return model_jobs.get(conn, job_id)


def _tail(text: str, lines: int) -> str:
    return "\n".join(text.splitlines()[-lines:])


def python() -> str:
    """HQ's own interpreter: the kiosk's tools run in it (they need OpenCV, MediaPipe, onnxruntime)."""
    return sys.executable
