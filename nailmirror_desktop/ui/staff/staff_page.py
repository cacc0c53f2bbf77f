"""The staff pages behind the PIN: review, tasks, settings, diagnostics, and the way back out."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QScrollArea, QTabWidget, QVBoxLayout, QWidget


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
        self.quit_button.clicked.connect(self.quit_requested)
        header.addWidget(self.title)
        header.addStretch(1)
        header.addWidget(self.quit_button)
        header.addWidget(self.leave_button)
        self.tabs = QTabWidget()
        for _key, widget in pages:
            scroll = QScrollArea()  # staff pages must fit a 1280×800 kiosk screen: they scroll instead of growing it
            scroll.setWidget(widget)
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QScrollArea.Shape.NoFrame)
            self.tabs.addTab(scroll, "")
        layout.addLayout(header)
        layout.addWidget(self.tabs, 1)
        self._retranslate()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.title.setText(self.tr("Staff"))
        self.leave_button.setText(self.tr("Back to the customer screen"))
        self.quit_button.setText(self.tr("Close the kiosk"))
        names = {"review": self.tr("Review"), "tasks": self.tr("Tasks"),
                 "credits": self.tr("Credits"), "settings": self.tr("Settings"),
                 "diagnostics": self.tr("Diagnostics")}
        for i, key in enumerate(self._page_keys):
            self.tabs.setTabText(i, names[key])
