"""A button that says what it is doing ("Keeping a copy…", "Not sent. Tap to try again"): one state at a time,
tappable only in the states that accept a tap, its text retranslated when the language changes.

Subclasses name their states and write `_retranslate` (their own `self.tr`, so each keeps its translation
context)."""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QPushButton, QWidget


class StateButton(QPushButton):
    WAITING = "waiting"
    TAPPABLE: tuple[str, ...] = ()  # the states in which a tap does something

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = self.WAITING
        self.set_state(self.WAITING)

    def set_state(self, state: str) -> None:
        self._state = state
        self.setEnabled(state in self.TAPPABLE)
        self._retranslate()

    def state(self) -> str:
        return self._state

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        raise NotImplementedError
