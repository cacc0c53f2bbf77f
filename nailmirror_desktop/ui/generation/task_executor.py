"""Runs the task engine on a QThreadPool and reports to the GUI through signals on the main thread
(ARCHITECTURE.md §7). Every hand-over from a pool thread goes through the bridge's channel; after `shutdown`
the channel is closed, so a late status from a handler still running never reaches the GUI.

- Event-driven: `submit` (or any state change this process commits) wakes a runner at once; a runner drains
  due tasks, and when it stops it tells the main thread when the next retry is due (a single-shot timer).
  A slow poll also picks up tasks submitted by other processes.
- Handlers run on pool threads; the engine's lease keeper heartbeats them while they run.
- Shutdown: no new claims; running handlers get `wait_s` to finish. Any still running keep their rows in
  PROCESSING; when the process ends their heartbeats stop and the next start's sweep returns them to PENDING.
  No task is lost.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from nailmirror_desktop.core.tasks import Task, TaskEngine
from nailmirror_desktop.ui import bridge

log = logging.getLogger(__name__)


class _Runner(QRunnable):
    def __init__(self, executor: TaskExecutor) -> None:
        super().__init__()
        self._executor = executor

    def run(self) -> None:
        self._executor._drain()


class TaskExecutor(QObject):
    """Signals are always delivered on the main thread (the executor must be created there)."""

    task_changed = Signal(str, str)  # task_no, status
    task_progress = Signal(str, float, str)  # task_no, fraction 0..1, note ("" if none)

    def __init__(
        self,
        engine: TaskEngine,
        *,
        max_threads: int | None = None,
        poll_interval_s: float = 1.0,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.engine = engine
        self._pool = QThreadPool(self)
        self._max_runners = max_threads or max(1, engine.worker_slots())
        self._pool.setMaxThreadCount(self._max_runners)
        # Threads never expire: the engine keeps one connection per thread, so a pool that retired idle
        # threads and made new ones would open a new connection each time.
        self._pool.setExpiryTimeout(-1)
        self._lock = threading.Lock()
        self._runners = 0
        self._wake_seq = 0
        self._started = False
        self._stopping = False
        self._channel = bridge.Channel()
        self._poll = QTimer(self)
        self._poll.setInterval(int(poll_interval_s * 1000))
        self._poll.timeout.connect(self.wake)
        self._retry_timer = QTimer(self)
        self._retry_timer.setSingleShot(True)
        self._retry_timer.timeout.connect(self.wake)

    # --- life cycle -------------------------------------------------------------------------------------------

    def start(self) -> None:
        if self._started:
            return
        self._started = True
        self._stopping = False
        if not self._channel.is_open:
            self._channel = bridge.Channel()  # a restart: what the old one dropped stays dropped
        self.engine.add_listener(self._on_engine_status)
        self.engine.add_progress_listener(self._on_engine_progress)
        self._poll.start()
        self.wake()  # the first runner's claim also sweeps expired leases left by a previous run

    def shutdown(self, wait_s: float = 10.0) -> bool:
        """Stop claiming; wait up to `wait_s` for running handlers. True if none is left running."""
        with self._lock:
            self._stopping = True
        self._poll.stop()
        self._retry_timer.stop()
        self._channel.close()
        finished = self._pool.waitForDone(int(wait_s * 1000))
        if self._started:
            self.engine.remove_listener(self._on_engine_status)
            self.engine.remove_progress_listener(self._on_engine_progress)
        self._started = False
        if not finished:
            log.warning("shutdown: handlers still running; their tasks will be recovered after restart")
        return finished

    @property
    def running(self) -> bool:
        return self._started and not self._stopping

    # --- submitting -------------------------------------------------------------------------------------------

    def submit(self, task_type: str, payload: dict[str, Any], **options: Any) -> Task:
        """engine.submit, then an immediate wake (also raises TooManyPendingTasks like the engine)."""
        task = self.engine.submit(task_type, payload, **options)
        self.wake()
        return task

    def wake(self) -> None:
        """Make sure a runner looks for due work now (thread-safe; cheap when all runners are busy)."""
        with self._lock:
            if self._stopping or not self._started:
                return
            self._wake_seq += 1
            if self._runners >= self._max_runners:
                return
            self._runners += 1
        self._pool.start(_Runner(self))

    # --- on pool threads --------------------------------------------------------------------------------------

    def _drain(self) -> None:
        counted = True  # this runner is still in self._runners
        try:
            while counted:
                with self._lock:
                    seen = self._wake_seq
                claim = None if self._stopping else self.engine.claim_next()
                while claim is not None:
                    self.wake()  # more may be due: let an idle thread help while this one runs
                    self.engine.execute(claim)
                    claim = self.engine.claim_next() if self._may_claim() else None
                with self._lock:
                    if self._stopping or self._wake_seq == seen:
                        self._runners -= 1
                        counted = False
            if not self._stopping:
                seconds = self.engine.seconds_until_next_work()
                self._channel.post(lambda: self._on_next_work_in(seconds))
        except Exception:  # noqa: BLE001 — a database error must not kill the pool thread silently
            log.exception("task runner failed")
            if counted:
                with self._lock:
                    self._runners -= 1

    def _may_claim(self) -> bool:
        return not self._stopping

    def _on_engine_status(self, task_no: str, status: str) -> None:
        self._channel.post(lambda: self.task_changed.emit(task_no, status))

    def _on_engine_progress(self, task_no: str, fraction: float, note: str | None) -> None:
        self._channel.post(lambda: self.task_progress.emit(task_no, fraction, note or ""))

    # --- on the main thread -----------------------------------------------------------------------------------

    def _on_next_work_in(self, seconds: float) -> None:
        if self._stopping or not self._started:
            return
        if seconds < self._poll.interval() / 1000:
            self._retry_timer.start(max(1, int(seconds * 1000)))
