"""Controls made for fingers on the staff pages: every target at least TOUCH_PX (48 px) square.

`TouchSpinBox` replaces QSpinBox's 12 px arrows with two full-size − / + buttons beside the number (which can
still be typed, on the on-screen keyboard); it forwards the QSpinBox calls the pages use.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QSpinBox, QWidget

TOUCH_PX = 48
NO_ARROWS = "QSpinBox::up-button, QSpinBox::down-button { width: 0px; border: none; }"


class TouchSpinBox(QWidget):
    valueChanged = Signal(int)  # noqa: N815 - QSpinBox's name, so callers need not know the difference

    def __init__(self, parent: QWidget | None = None, *, step: int = 1) -> None:
        super().__init__(parent)
        self.spin = QSpinBox()
        # The arrows are styled away rather than turned off: with NoButtons, Qt's style-sheet style gives the
        # number field 1 px of width (PySide6 6.12), so the value vanished.
        self.spin.setStyleSheet(NO_ARROWS)
        self.spin.setMinimumHeight(TOUCH_PX)
        self.spin.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.spin.setSingleStep(step)
        self.spin.valueChanged.connect(self.valueChanged)
        self.minus = QPushButton("−")
        self.plus = QPushButton("+")
        for button, direction in ((self.minus, -1), (self.plus, 1)):
            button.setObjectName("stepButton")
            button.setFixedSize(64, TOUCH_PX + 8)
            button.setAutoRepeat(True)  # held down, it keeps stepping, as the arrows did
            button.clicked.connect(lambda _checked=False, d=direction: self.spin.stepBy(d))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(self.minus)
        layout.addWidget(self.spin, 1)
        layout.addWidget(self.plus)

    def value(self) -> int:
        return self.spin.value()

    def setValue(self, value: int) -> None:  # noqa: N802
        self.spin.setValue(value)

    def setRange(self, low: int, high: int) -> None:  # noqa: N802
        self.spin.setRange(low, high)

    def setSuffix(self, suffix: str) -> None:  # noqa: N802
        self.spin.setSuffix(suffix)
