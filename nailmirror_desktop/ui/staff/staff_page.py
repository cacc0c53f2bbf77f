"""The staff pages behind the PIN: customers' requests, review, tasks, credits, snapshots (the gallery),
settings, diagnostics, and the two ways out, at the header's two ends. Back to the customer screen is its main
button (top right); closing the kiosk is a quiet red-outlined button by the title (top left), and asks first in a
bar under the header: the two sat side by side, and a finger meant for one could take the other. (The header,
not a footer: the pages must fit a 1280×800 screen, and a footer's row left the review page's buttons out of
sight.)"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Signal
from PySide6.QtGui import QHideEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QScrollArea, QTabWidget, QVBoxLayout, QWidget

from nailmirror_desktop.ui.staff.touch_controls import ConfirmBar


class StaffPage(QWidget):
    leave_requested = Signal()
    quit_requested = Signal()

    def __init__(self, pages: list[tuple[str, QWidget]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._page_keys = [key for key, _ in pages]
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        header = QHBoxLayout()
        self.title = QLabel()
        self.title.setObjectName("title")
        self.leave_button = QPushButton()
        self.leave_button.setObjectName("primary")
        self.leave_button.clicked.connect(self.leave_requested)
        self.quit_button = QPushButton()
        self.quit_button.setObjectName("quietDanger")
        self.quit_button.clicked.connect(self.ask_to_quit)
        for button in (self.leave_button, self.quit_button):
            button.setMinimumHeight(64)
        header.addWidget(self.title)
        header.addSpacing(24)
        header.addWidget(self.quit_button)
        header.addStretch(1)
        header.addWidget(self.leave_button)
        # Closing the kiosk leaves the counter without a mirror until someone starts it again: asked first, in
        # the page (a bar with two large buttons), not in a small dialog box.
        self.confirm_bar = ConfirmBar(self._confirm_quit, answers_first=True)  # not under the way back
        self.confirm_text = self.confirm_bar.text
        self.confirm_quit_button, self.keep_running_button = self.confirm_bar.yes_button, self.confirm_bar.no_button
        self.tabs = QTabWidget()
        for _key, widget in pages:
            scroll = QScrollArea()  # staff pages must fit a 1280×800 kiosk screen: they scroll instead of growing it
            scroll.setWidget(widget)
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QScrollArea.Shape.NoFrame)
            self.tabs.addTab(scroll, "")
        layout.addLayout(header)
        layout.addWidget(self.confirm_bar)
        layout.addWidget(self.tabs, 1)
        self._retranslate()

    def ask_to_quit(self) -> None:
        self.confirm_bar.show()

    def _confirm_quit(self) -> None:
        self.confirm_bar.hide()
        self.quit_requested.emit()

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802
        self.confirm_bar.hide()  # a question left open is not asked again the next time staff come in
        super().hideEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.title.setText(self.tr("Staff"))
        self.leave_button.setText(self.tr("Back to the customer screen"))
        self.quit_button.setText(self.tr("Close the kiosk"))
        self.confirm_text.setText(self.tr("Close the kiosk? The counter shows nothing until it is started again."))
        self.confirm_quit_button.setText(self.tr("Yes, close it"))
        self.keep_running_button.setText(self.tr("Keep it running"))
        names = {"requests": self.tr("Requests"), "review": self.tr("Review"), "tasks": self.tr("Tasks"),
                 "credits": self.tr("Credits"), "snapshots": self.tr("Photos"), "settings": self.tr("Settings"),
                 "diagnostics": self.tr("Diagnostics"), "captures": self.tr("Photo copies")}
        for i, key in enumerate(self._page_keys):
            self.tabs.setTabText(i, names[key])
