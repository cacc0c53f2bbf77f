"""The take-home card: what a customer photographs, or shows a nail artist, to come back for the same style.

A line for the staff on top, then the style's own picture beside the customer's painted nails (cropped to her
hands, vision/paint/framing.py), the style's name, its code, the store's price when one is set, and the store.
It works with no network at all, so it is also what the share page offers when a phone cannot reach the kiosk.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QImage, QPixmap, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

HANDS_ASPECT = 1.5  # the painted nails at 3:2 beside the style's own (square) picture
IMAGE_HEIGHT = (200, 360)  # px, the least and the most: the pictures grow with the card (a 1920×1080 counter)
MARGIN = 28
SPACING = 16


class StyleCard(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("styleCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, 24, MARGIN, 24)
        layout.setSpacing(8)
        self.heading = QLabel()
        self.heading.setObjectName("cardStaffLine")
        self.heading.setWordWrap(True)
        self._height = IMAGE_HEIGHT[0]
        self._images: dict[str, QImage | None] = {"picture": None, "hands": None}
        self.picture = _image_label("cardPicture")
        self.hands = _image_label("cardHands")
        images = QHBoxLayout()
        images.setSpacing(SPACING)
        images.addStretch(1)
        images.addWidget(self.picture)
        images.addWidget(self.hands)
        images.addStretch(1)
        self.name = QLabel()
        self.name.setObjectName("cardName")
        self.name.setWordWrap(True)
        self.form = QLabel()  # her shape and length ("杏仁形 · 中长"): the nail artist builds what she saw
        self.form.setObjectName("cardCode")
        self.code = QLabel()
        self.code.setObjectName("cardCode")
        self.code.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.price = QLabel()
        self.price.setObjectName("cardPrice")
        self.store = QLabel()
        self.store.setObjectName("muted")
        self.store.setWordWrap(True)
        layout.addStretch(1)
        layout.addWidget(self.heading)
        layout.addSpacing(8)
        layout.addLayout(images)
        layout.addSpacing(8)
        for label in (self.heading, self.name, self.form, self.code, self.price, self.store):
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        for label in (self.name, self.form, self.code, self.price, self.store):
            layout.addWidget(label)
        layout.addStretch(1)
        self._code = ""
        self.show_style("", "")

    def show_style(self, name: str, code: str, price: str | None = None, *, picture: QImage | None = None,
                   hands: QImage | None = None, store: str = "", form: str = "") -> None:
        """`price` as the store writes it (already formatted), or None when the store set none; `picture`: the
        style's own; `hands`: the customer's painted nails, cropped; `store`: the store's name ('' leaves it
        out); `form`: her nail shape and length in words ('' for natural nails: left out). An empty name and
        code clear the card."""
        self._code = code
        self.name.setText(name or code)
        self.form.setText(form)
        self.form.setVisible(bool(form))
        self.price.setText(price or "")
        self.price.setVisible(bool(price))
        self.store.setText(store)
        self.store.setVisible(bool(store))
        self._images = {"picture": picture, "hands": hands}
        self._show_images()
        self._retranslate()

    def clear(self) -> None:
        self.show_style("", "")

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        room = (event.size().width() - 2 * MARGIN - SPACING) / (1 + HANDS_ASPECT)
        height = int(min(IMAGE_HEIGHT[1], max(IMAGE_HEIGHT[0], room)))
        if height != self._height:
            self._height = height
            self._show_images()

    def _show_images(self) -> None:
        height = self._height
        _show_image(self.picture, self._images["picture"], QSize(height, height))
        _show_image(self.hands, self._images["hands"], QSize(round(height * HANDS_ASPECT), height))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        shown = bool(self._code or self.name.text())
        self.heading.setText(self.tr("Show this card to your nail artist") if shown else "")
        self.code.setText(self.tr("Style code %1").replace("%1", self._code) if self._code else "")


def _image_label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    return label


def _show_image(label: QLabel, image: QImage | None, size: QSize) -> None:
    """`image` scaled to fit `size` whole, or the label hidden (and its pixmap dropped) when there is none."""
    label.setFixedSize(size)
    if image is None or image.isNull():
        label.clear()
        label.hide()
        return
    label.setPixmap(QPixmap.fromImage(image).scaled(size, Qt.AspectRatioMode.KeepAspectRatio,
                                                    Qt.TransformationMode.SmoothTransformation))
    label.show()
