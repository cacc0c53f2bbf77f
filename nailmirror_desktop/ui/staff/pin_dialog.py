"""The staff door: a touch keypad asking for the PIN. The check, the stored hash and the lockout that survives a
restart are core/staff_pin.py's; this only shows them."""

from __future__ import annotations

import math

from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import QDialog, QGridLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from nailmirror_desktop.core.staff_pin import PinAttempt, PinOutcome, StaffPin


def wait_text(seconds: float) -> str:
    """'Try again in 30 s' / 'in 4 min', rounded up."""
    if seconds < 60:
        return QCoreApplication.translate("PinDialog", "Too many wrong PINs. Try again in {0} s.").format(
            max(1, math.ceil(seconds)))
    return QCoreApplication.translate("PinDialog", "Too many wrong PINs. Try again in {0} min.").format(
        math.ceil(seconds / 60))


class PinDialog(QDialog):
    """accept()s only when the PIN matches; wrong PINs lock the keypad for longer and longer (core.staff_pin)."""

    def __init__(self, staff_pin: StaffPin, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._staff_pin = staff_pin
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
        attempt = self._staff_pin.attempt(self.entry.text())
        self.entry.clear()
        if attempt.outcome == PinOutcome.ACCEPTED:
            self.accept()
            return True
        self.message.setText(self.text_for(attempt))
        return False

    def text_for(self, attempt: PinAttempt) -> str:
        if attempt.outcome == PinOutcome.NOT_SET:
            return self.tr("No staff PIN is set on this kiosk.")
        if attempt.outcome == PinOutcome.LOCKED or attempt.wait_s > 0:
            return wait_text(attempt.wait_s)
        return self.tr("Wrong PIN.")

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.setWindowTitle(self.tr("Staff"))
        self.title.setText(self.tr("Staff PIN"))
        self.cancel_button.setText(self.tr("Cancel"))
