"""What ⋯ shows while no staff PIN is set: a panel inside the kiosk's window, not a desktop message box.

It dims the mirror and says, in the UI's language, that the staff pages stay closed until staff set a PIN on the
kiosk PC with `nailmirror staff set-pin`, with one finger-sized button to close it; a tap on the dimmed mirror
closes it too. Whoever tapped ⋯ may be a customer, so the idle reset closes it (StaffDoor.leave): before, the
message box stayed on the mirror for the next customer.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from nailmirror_desktop.ui.staff.touch_controls import CONFIRM_BUTTON_PX

COMMAND = "nailmirror staff set-pin"  # a command: the same in every language
CARD_WIDTH = 760


class NoPinPanel(QWidget):
    """Covers its parent (the kiosk's window) while shown; `open()` shows it on top, `close_panel()` hides it."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("scrim")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)  # the dimmed backdrop is styled
        self.card = QFrame()
        self.card.setObjectName("noPinCard")
        self.card.setFixedWidth(CARD_WIDTH)
        card = QVBoxLayout(self.card)
        card.setContentsMargins(40, 36, 40, 36)
        card.setSpacing(20)
        self.title = QLabel()
        self.title.setObjectName("title")
        self.title.setWordWrap(True)
        self.body = QLabel()
        self.body.setWordWrap(True)
        self.command = QLabel(COMMAND)
        self.command.setObjectName("command")
        self.command.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.how = QLabel()
        self.how.setObjectName("muted")
        self.how.setWordWrap(True)
        self.close_button = QPushButton()
        self.close_button.setObjectName("primary")
        self.close_button.setMinimumSize(280, CONFIRM_BUTTON_PX)
        self.close_button.clicked.connect(self.close_panel)
        for widget in (self.title, self.body, self.command, self.how):
            card.addWidget(widget)
        card.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignHCenter)
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        outer.addWidget(self.card, 0, Qt.AlignmentFlag.AlignHCenter)
        outer.addStretch(1)
        parent.installEventFilter(self)  # it follows the window's size
        self._retranslate()
        self.hide()

    def text(self) -> str:
        """Everything the panel says, as one string (what a person reads on it)."""
        return "\n".join(label.text() for label in (self.title, self.body, self.command, self.how))

    def open(self) -> None:
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(parent.rect())
        self.show()
        self.raise_()

    def close_panel(self) -> None:
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        parent = self.parentWidget()
        if parent is not None and watched is parent and event.type() == QEvent.Type.Resize and self.isVisible():
            self.setGeometry(parent.rect())
        return False

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if not self.card.geometry().contains(event.position().toPoint()):
            self.close_panel()  # a tap on the dimmed mirror, beside the card
        event.accept()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.title.setText(self.tr("The staff pages are closed"))
        self.body.setText(self.tr("No staff PIN is set on this kiosk yet, and it cannot be set from this screen."))
        self.how.setText(self.tr("Staff: set one on this kiosk PC with the command above, run as the account the "
                                 "kiosk runs under. Then tap ⋯ again."))
        self.close_button.setText(self.tr("Got it"))
