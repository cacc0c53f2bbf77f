"""The 3-2-1 before a snapshot (issue #22 §3): the customer gets three seconds to hold both hands still in the
outlines, so the photo is sharp and has both hands in it.

A QTimer steps the number once a second; nothing waits on the GUI thread, so the mirror keeps moving under the
numbers. `finished` comes after "1"; the caller takes the snapshot then. If the hands are not in the frame then
(`ready()` false: fewer hands tracked than wanted), "1" stays up, with the hand guide, until they are, for at
most HOLD_MS: a photo of an empty counter helps no one, and a customer showing one hand on purpose still gets
hers. The countdown is cancelled by a second
tap on the snapshot button (it reads "Cancel" meanwhile), a touch on the mirror, leaving the page, or the idle
reset: a customer who changed her mind is never photographed.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

COUNT_FROM = 3
STEP_MS = 1000
HOLD_MS = 5000
HOLD_POLL_MS = 100


class SnapshotCountdown(QObject):
    number_changed = Signal(int)  # 3, 2, 1 while counting; 0 when it ends or is cancelled
    finished = Signal()  # after "1": take the snapshot now

    def __init__(self, parent: QObject | None = None, *, count_from: int = COUNT_FROM, step_ms: int = STEP_MS,
                 ready: Callable[[], bool] = lambda: True, hold_ms: int = HOLD_MS) -> None:
        super().__init__(parent)
        self._count_from = max(1, count_from)
        self._number = 0
        self._ready = ready
        self._hold_ms = hold_ms
        self._held_ms = 0
        self._timer = QTimer(self)
        self._timer.setInterval(step_ms)
        self._timer.timeout.connect(self._on_step)
        self._hold = QTimer(self)
        self._hold.setSingleShot(True)
        self._hold.setInterval(HOLD_POLL_MS)
        self._hold.timeout.connect(self._finish_when_ready)

    @property
    def running(self) -> bool:
        return self._number > 0

    def number(self) -> int:
        return self._number

    def start(self) -> None:
        """From the top (a second start while counting starts over)."""
        self._hold.stop()
        self._set(self._count_from)
        self._timer.start()

    def holding(self) -> bool:
        """At "1", waiting for the hands."""
        return self._hold.isActive()

    def cancel(self) -> None:
        if self.running:
            self._timer.stop()
            self._hold.stop()
            self._set(0)

    def _on_step(self) -> None:
        if self._number > 1:
            self._set(self._number - 1)
            return
        self._timer.stop()
        self._held_ms = 0
        self._finish_when_ready()

    def _finish_when_ready(self) -> None:
        if not self._ready() and self._held_ms < self._hold_ms:
            self._held_ms += HOLD_POLL_MS
            self._hold.start()
            return
        self._set(0)
        self.finished.emit()

    def _set(self, number: int) -> None:
        self._number = number
        self.number_changed.emit(number)
