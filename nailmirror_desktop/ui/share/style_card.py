"""The style card: what a customer photographs to come back for the same style (name, code, price if set).

It works with no network at all, so it is also what the share page offers when a phone cannot reach the kiosk.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget


class StyleCard(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("styleCard")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 24, 28, 24)
        layout.setSpacing(8)
        self.heading = QLabel()
        self.heading.setObjectName("muted")
        self.name = QLabel()
        self.name.setObjectName("cardName")
        self.name.setWordWrap(True)
        self.code = QLabel()
        self.code.setObjectName("cardCode")
        self.code.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.price = QLabel()
        self.price.setObjectName("cardPrice")
        layout.addStretch(1)
        for label in (self.heading, self.name, self.code, self.price):
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            layout.addWidget(label)
        layout.addStretch(1)

    def show_style(self, name: str, code: str, price: str | None = None) -> None:
        """`price` as the store writes it (already formatted), or None when the store set none."""
        self.heading.setText(self.tr("Show this card to our staff"))
        self.name.setText(name or code)
        self.code.setText(self.tr("Style code %1").replace("%1", code) if code else "")
        self.price.setText(price or "")
        self.price.setVisible(bool(price))
