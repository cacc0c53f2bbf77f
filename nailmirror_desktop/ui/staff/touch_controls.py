"""Controls made for fingers on the staff pages: every target at least TOUCH_PX (48 px) square.

`TouchComboBox` is a drop-down whose open list has finger-sized rows (the theme's LIST_ROW_PX, which Qt applies
only to a styled list view, not to QComboBox's own) and which a mouse wheel passing over it, closed, does not
change: the wheel scrolls the page instead (the Language setting used to switch as staff scrolled past it).

`TouchSpinBox` replaces QSpinBox's 12 px arrows with two full-size − / + buttons beside the number (which can
still be typed, on the on-screen keyboard); it forwards the QSpinBox calls the pages use. `ConfirmBar` asks
before something that cannot be undone (closing the kiosk, deleting photos) in the page itself: a sentence and
two large buttons, not a small dialog box.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QListView, QPushButton, QSpinBox, QWidget

TOUCH_PX = 48
CONFIRM_BUTTON_PX = 64  # the answer to "for good?" gets a bigger target than the page's other buttons
NO_ARROWS = "QSpinBox::up-button, QSpinBox::down-button { width: 0px; border: none; }"


class TouchComboBox(QComboBox):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setView(QListView())  # a styled view: the theme's row height applies to it
        self.setMinimumHeight(TOUCH_PX)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # not WheelFocus: a wheel passing by takes nothing

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        if self.view().isVisible():
            super().wheelEvent(event)
        else:
            event.ignore()  # to the scroll area around the page


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


class ConfirmBar(QWidget):
    """A hidden panel: `text` (the question), `yes_button` (danger style) and `no_button` (primary style); the
    page sets their words (they are translated there) and shows the bar when it asks; "no" hides it unless the
    page gives its own `on_no`. `answers_first` puts the two answers at the left, under a button there that
    asked."""

    def __init__(self, on_yes: Callable[[], object], on_no: Callable[[], object] | None = None,
                 parent: QWidget | None = None, *, answers_first: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("panel")
        row = QHBoxLayout(self)
        row.setContentsMargins(16, 8, 16, 8)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.yes_button = QPushButton()
        self.yes_button.setObjectName("danger")
        self.no_button = QPushButton()
        self.no_button.setObjectName("primary")
        for button in (self.yes_button, self.no_button):
            button.setMinimumHeight(CONFIRM_BUTTON_PX)
        self.yes_button.clicked.connect(on_yes)
        self.no_button.clicked.connect(on_no if on_no is not None else self.hide)
        if answers_first:  # the answers under the button that asked (at the bar's left), the question after them
            row.addWidget(self.yes_button)
            row.addWidget(self.no_button)
            row.addWidget(self.text, 1)
        else:
            row.addWidget(self.text, 1)
            row.addWidget(self.yes_button)
            row.addWidget(self.no_button)
        self.hide()
