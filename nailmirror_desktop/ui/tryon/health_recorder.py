"""The running kiosk's camera state and frame rate, recorded for HQ's fleet page (issue #25 §7).

Sync may run in this process or in `nailmirror sync now`, so the figures go where any cycle reads them: one row
of the kiosk's database (core/sync/fleet.py `record_health`), written every fleet.HEALTH_EVERY_S at most, off the
GUI thread (a write waiting on another writer must not stall the mirror)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer

from nailmirror_desktop.core.sync.fleet import HEALTH_EVERY_S
from nailmirror_desktop.ui.bridge import RunInBackground

log = logging.getLogger(__name__)
Write = Callable[[str, float], None]


class HealthRecorder(QObject):
    def __init__(self, state: Callable[[], str], fps: Callable[[], float], write: Write,
                 run_in_background: RunInBackground, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._state, self._fps, self._write, self._run = state, fps, write, run_in_background
        self._writing = False  # one write at a time: a slow disk skips ticks instead of queueing them
        self._timer = QTimer(self)
        self._timer.setInterval(int(HEALTH_EVERY_S * 1000))
        self._timer.timeout.connect(self.record)

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def record(self) -> None:
        if self._writing:
            return
        state, fps = self._state(), self._fps()  # read on the GUI thread, where they live
        self._writing = True
        self._run(lambda: self._write(state, fps), self._on_written)

    def _on_written(self, _result: Any, error: BaseException | None) -> None:
        self._writing = False
        if error is not None:  # a locked or full database: the next tick tries again
            log.info("kiosk health not recorded: %s", error)
