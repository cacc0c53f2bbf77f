"""The staff door: a touch keypad asking for the PIN. Only the salted scrypt hash is stored (core.config)."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QDialog, QGridLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from nailmirror_desktop.core.config import KioskConfig, pin_matches

MAX_TRIES = 5
LOCKOUT_S = 60.0


class PinDialog(QDialog):
    """accept()s only when the PIN matches; after MAX_TRIES wrong PINs the keypad locks for LOCKOUT_S."""

    _failures = 0
    _locked_until = 0.0

    def __init__(self, config: KioskConfig, parent: QWidget | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(parent)
        self._config = config
        self._clock = clock
        self.setModal(True)
        self.setMinimumWidth(420)
        layout = QVBoxLayout(self)
        layout.setSpacing(14)
        self.title = QLabel()
        self.title.setObjectName("title")
        self.entry = QLineEdit()
        self.entry.setEchoMode(QLineEdit.EchoMode.Password)
        self.entry.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.entry.setMaxLength(8)
        self.entry.returnPressed.connect(self.try_pin)
        self.message = QLabel()
        self.message.setObjectName("muted")
        grid = QGridLayout()
        grid.setSpacing(10)
        keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "OK"]
        for i, key in enumerate(keys):
            button = QPushButton(key)
            button.setMinimumSize(96, 72)
            if key == "OK":
                button.setObjectName("primary")
            button.clicked.connect(lambda _=False, k=key: self._on_key(k))
            grid.addWidget(button, i // 3, i % 3)
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("ghost")
        self.cancel_button.clicked.connect(self.reject)
        layout.addWidget(self.title)
        layout.addWidget(self.entry)
        layout.addWidget(self.message)
        layout.addLayout(grid)
        layout.addWidget(self.cancel_button)
        self._retranslate()

    def _on_key(self, key: str) -> None:
        if key == "⌫":
            self.entry.backspace()
        elif key == "OK":
            self.try_pin()
        else:
            self.entry.insert(key)

    def try_pin(self) -> bool:
        if self._clock() < PinDialog._locked_until:
            self.message.setText(self.tr("Too many wrong PINs. Wait a minute."))
            return False
        if pin_matches(self._config, self.entry.text()):
            PinDialog._failures = 0
            self.accept()
            return True
        PinDialog._failures += 1
        self.entry.clear()
        if PinDialog._failures >= MAX_TRIES:
            PinDialog._failures = 0
            PinDialog._locked_until = self._clock() + LOCKOUT_S
            self.message.setText(self.tr("Too many wrong PINs. Wait a minute."))
        else:
            self.message.setText(self.tr("Wrong PIN."))
        return False

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.setWindowTitle(self.tr("Staff"))
        self.title.setText(self.tr("Staff PIN"))
        self.cancel_button.setText(self.tr("Cancel"))
