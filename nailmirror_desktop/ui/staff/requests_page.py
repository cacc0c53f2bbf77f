"""Customers' requests behind the staff PIN (issue #22 §3): each "I want this one" of today not done yet, oldest
first, with the number the customer shows, her snapshot, the style's name, code and price, and the time she
asked; "Done" takes it off the list (the purge deletes it and its photo copy, core/tryon/handoff.py).

The page reads the requests when it is shown and when a customer makes one (`reload`). Photos are decoded off
the GUI thread through the bridge; times are stored UTC and shown in the store's time zone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import shiboken6
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QImage, QImageReader, QPixmap, QShowEvent
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from nailmirror_desktop.core.catalog.price import format_price
from nailmirror_desktop.core.credits.caps import time_zone
from nailmirror_desktop.core.tryon.handoff import HandoffRequest, HandoffRequests
from nailmirror_desktop.ui.bridge import RunInBackground
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.staff.touch_controls import CONFIRM_BUTTON_PX

log = logging.getLogger(__name__)

PHOTO = QSize(320, 180)


def read_photo(path: Path, limit: QSize) -> QImage:
    """Decode `path` scaled to fit `limit` (on a worker: QImageReader is reentrant)."""
    reader = QImageReader(str(path))
    size = reader.size()
    if size.isValid():
        reader.setScaledSize(size.scaled(limit, Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    if image.isNull():
        raise OSError(f"{path.name}: {reader.errorString()}")
    return image


class RequestsPage(QWidget):
    def __init__(self, requests: HandoffRequests, run_in_background: RunInBackground, zone: Callable[[], str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._requests = requests
        self._run = run_in_background
        self._zone = zone
        self.rows: dict[int, RequestRow] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(12)
        self.hint = QLabel()
        self.hint.setObjectName("muted")
        self.hint.setWordWrap(True)
        self.feedback = QLabel()
        self.empty = QLabel()
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.list_layout = QVBoxLayout()
        self.list_layout.setSpacing(12)
        layout.addWidget(self.hint)
        layout.addWidget(self.feedback)
        layout.addWidget(self.empty)
        layout.addLayout(self.list_layout)
        layout.addStretch(1)
        self._retranslate()

    def reload(self) -> None:
        """Read today's open requests again and show them."""
        try:
            shown = self._requests.open_requests(self._zone())
        except Exception as exc:
            log.error("handoff requests not read: %s", exc)
            self.feedback.setText(self.tr("The requests could not be read."))
            return
        for row in self.rows.values():
            self.list_layout.removeWidget(row)
            row.deleteLater()
        self.rows = {}
        for request in shown:
            row = RequestRow(request, self._zone())
            row.done_button.clicked.connect(lambda _checked=False, r=request: self.mark_done(r))
            self.rows[request.id] = row
            self.list_layout.addWidget(row)
            self._load_photo(request, row)
        self.empty.setVisible(not shown)

    def numbers(self) -> list[str]:
        return [row.request.number for row in self.rows.values()]

    def mark_done(self, request: HandoffRequest) -> None:
        try:
            self._requests.mark_done(request.id)
        except Exception as exc:
            log.error("handoff %s not marked done: %s", request.number, exc)
            self.feedback.setText(self.tr("%1 could not be marked done.").replace("%1", request.number))
            return
        self.feedback.setText(self.tr("%1 done.").replace("%1", request.number))
        self.reload()

    def _load_photo(self, request: HandoffRequest, row: RequestRow) -> None:
        path = self._requests.photo_path(request)
        if path is None:
            return

        def shown(image: QImage | None, error: BaseException | None) -> None:
            if not shiboken6.isValid(row):
                return  # reloaded meanwhile
            if error is not None or image is None:
                log.warning("handoff %s: photo not shown: %s", request.number, error)
                return
            row.photo.setPixmap(QPixmap.fromImage(image))

        self._run(lambda: read_photo(path, PHOTO), shown)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        self.reload()
        super().showEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.hint.setText(self.tr("What customers chose today with \"I want this one\", oldest first. The number is "
                                  "the one on the customer's screen. Mark a request done when you have taken it."))
        self.empty.setText(self.tr("No requests right now."))


class RequestRow(QFrame):
    """One request: the number large, the photo, the style and the time, and "Done"."""

    def __init__(self, request: HandoffRequest, zone: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.setObjectName("panel")
        self.setStyleSheet("QLabel { background: transparent; }")  # the row's panel colour shows through
        grid = QGridLayout(self)
        grid.setContentsMargins(16, 12, 16, 12)
        self.number = QLabel(request.number)
        self.number.setObjectName("styleCode")
        self.photo = QLabel()
        self.photo.setFixedSize(PHOTO)
        self.photo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        name = (request.style_name_en or request.style_name) if i18n.current_language() == "en" else \
            request.style_name
        price = "" if request.price_minor is None else \
            "  ·  " + format_price(request.price_minor, request.currency, i18n.current_language())
        self.style_label = QLabel(f"{name}{price}")
        self.style_label.setObjectName("title")
        self.code = QLabel(request.style_code)
        asked = request.created_at.astimezone(time_zone(zone)).strftime("%H:%M")
        self.time = QLabel(self.tr("Asked at %1").replace("%1", asked))
        self.time.setObjectName("muted")
        self.done_button = QPushButton(self.tr("Done"))
        self.done_button.setObjectName("primary")
        self.done_button.setMinimumSize(160, CONFIRM_BUTTON_PX)
        grid.addWidget(self.number, 0, 0, 2, 1)
        grid.addWidget(self.photo, 0, 1, 3, 1)
        grid.addWidget(self.style_label, 0, 2)
        grid.addWidget(self.code, 1, 2)
        grid.addWidget(self.time, 2, 2)
        grid.addWidget(self.done_button, 0, 3, 3, 1)
        grid.setColumnStretch(2, 1)
