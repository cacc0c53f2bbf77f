"""The "take it home" page: a QR code for the one-time link beside the style card, and what to do if the phone
cannot reach the kiosk.

States: LINK (a QR code; after NOT_REACHED_AFTER_MS without a download the page adds that a guest Wi-Fi may
keep the phone away, and points at the card), SENT (downloaded), NO_NETWORK (the kiosk has no address a phone
could use), UNAVAILABLE (the port could not be opened), OFF (sharing is off in settings: the card only),
SAVING (the snapshot is not on disk yet).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from nailmirror_desktop.ui.share.qr_image import qr_image
from nailmirror_desktop.ui.share.style_card import StyleCard

LINK, SENT, NO_NETWORK, UNAVAILABLE, OFF, SAVING = "LINK", "SENT", "NO_NETWORK", "UNAVAILABLE", "OFF", "SAVING"
NOT_REACHED_AFTER_MS = 45_000
QR_SIDE_PX = 360
CARD_MAX_WIDTH = 1000


class SharePage(QWidget):
    back_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = OFF
        self._minutes = 5
        self._not_reached = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 24, 32, 24)
        layout.setSpacing(16)
        self.title = QLabel()
        self.title.setObjectName("title")
        row = QHBoxLayout()
        row.setSpacing(32)
        self.qr = QLabel()
        self.qr.setObjectName("qrCode")
        self.qr.setFixedSize(QR_SIDE_PX, QR_SIDE_PX)
        self.qr.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.card = StyleCard()
        # the card takes half the room beside the QR code (its pictures grow with it, style_card.py), up to a
        # width a customer still reads at a glance
        self.card.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.card.setMaximumWidth(CARD_MAX_WIDTH)
        row.addStretch(1)
        row.addWidget(self.qr)
        row.addWidget(self.card, 2)
        row.addStretch(1)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint = QLabel()
        self.hint.setObjectName("muted")
        self.hint.setWordWrap(True)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.back_button = QPushButton()
        self.back_button.setObjectName("primary")
        self.back_button.setMinimumHeight(64)
        self.back_button.clicked.connect(self.back_requested)
        layout.addWidget(self.title)
        layout.addLayout(row, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.hint)
        layout.addWidget(self.back_button, 0, Qt.AlignmentFlag.AlignRight)
        self._not_reached_timer = QTimer(self)
        self._not_reached_timer.setSingleShot(True)
        self._not_reached_timer.setInterval(NOT_REACHED_AFTER_MS)
        self._not_reached_timer.timeout.connect(self._on_not_reached)
        self._render()

    @property
    def state(self) -> str:
        return self._state

    def show_link(self, url: str, minutes: int) -> None:
        self.qr.setPixmap(QPixmap.fromImage(qr_image(url)).scaled(
            QR_SIDE_PX, QR_SIDE_PX, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.FastTransformation))
        self._minutes = minutes
        self._set_state(LINK)
        self._not_reached_timer.start()

    def show_state(self, state: str) -> None:
        """Any state but LINK (which needs a URL): the QR code goes, the card stays."""
        self.qr.clear()
        self._set_state(state)

    def show_style(self, name: str, code: str, price: str | None = None, *, picture: QImage | None = None,
                   hands: QImage | None = None, store: str = "", form: str = "") -> None:
        """The take-home card (style_card.py says what each part is)."""
        self.card.show_style(name, code, price, picture=picture, hands=hands, store=store, form=form)

    def clear(self) -> None:
        self.qr.clear()
        self.card.clear()
        self._set_state(OFF)

    def _set_state(self, state: str) -> None:
        self._state = state
        self._not_reached = False
        if state != LINK:
            self._not_reached_timer.stop()
        self._render()

    def _on_not_reached(self) -> None:
        self._not_reached = True
        self._render()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._render()
        super().changeEvent(event)

    def _render(self) -> None:
        self.title.setText(self.tr("Take it home"))
        self.back_button.setText(self.tr("Back to my photo"))
        self.qr.setVisible(self._state == LINK)
        card_hint = self.tr("Or photograph the style card: our staff find this style again from its code.")
        messages = {
            LINK: self.tr("Scan the code with your phone's camera to save the photo. The link works on this "
                          "store's Wi-Fi for %1 minutes, and ends when you leave the kiosk.").replace(
                              "%1", str(self._minutes)),
            SENT: self.tr("Sent to your phone. The link ends when you leave the kiosk."),
            NO_NETWORK: self.tr("This kiosk is not on a network your phone can reach right now."),
            UNAVAILABLE: self.tr("Sending to a phone does not work on this kiosk right now."),
            OFF: self.tr("This kiosk keeps photos to itself."),
            SAVING: self.tr("The photo is still being saved: try again in a moment."),
        }
        self.message.setText(messages.get(self._state, ""))
        if self._state == LINK and self._not_reached:
            self.hint.setText(self.tr("Not opening? A guest Wi-Fi may keep your phone away from this kiosk: "
                                      "photograph the style card instead."))
        else:
            self.hint.setText(card_hint if self._state != SENT else "")
