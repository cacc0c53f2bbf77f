"""The 3-2-1 before a snapshot (issue #22 §3): the customer gets three seconds to hold both hands still in the
outlines, so the photo is sharp and has both hands in it.

A QTimer steps the number once a second; nothing waits on the GUI thread, so the mirror keeps moving under the
numbers. `finished` comes after "1"; the caller takes the snapshot then. The countdown is cancelled by a second
tap on the snapshot button (it reads "Cancel" meanwhile), a touch on the mirror, leaving the page, or the idle
reset: a customer who changed her mind is never photographed.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

COUNT_FROM = 3
STEP_MS = 1000


class SnapshotCountdown(QObject):
    number_changed = Signal(int)  # 3, 2, 1 while counting; 0 when it ends or is cancelled
    finished = Signal()  # after "1": take the snapshot now

    def __init__(self, parent: QObject | None = None, *, count_from: int = COUNT_FROM, step_ms: int = STEP_MS) -> None:
        super().__init__(parent)
        self._count_from = max(1, count_from)
        self._number = 0
        self._timer = QTimer(self)
        self._timer.setInterval(step_ms)
        self._timer.timeout.connect(self._on_step)

    @property
    def running(self) -> bool:
        return self._number > 0

    def number(self) -> int:
        return self._number

    def start(self) -> None:
        """From the top (a second start while counting starts over)."""
        self._set(self._count_from)
        self._timer.start()

    def cancel(self) -> None:
        if self.running:
            self._timer.stop()
            self._set(0)

    def _on_step(self) -> None:
        if self._number <= 1:
            self._timer.stop()
            self._set(0)
            self.finished.emit()
            return
        self._set(self._number - 1)

    def _set(self, number: int) -> None:
        self._number = number
        self.number_changed.emit(number)
