"""Two styles side by side: their preview cards large, names first, and "try this one" under each.

The customer taps Compare beside the style on their nails, then another tile (style_browser); this page shows
the pair; choosing one puts it on and returns to the mirror.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QPixmap, QResizeEvent
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from nailmirror_desktop.ui.generation.generate_panel import StyleCard
from nailmirror_desktop.ui.shell import i18n


class ComparePage(QWidget):
    chosen = Signal(str)  # style code
    back_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._cards: tuple[StyleCard, ...] = ()
        self._pixmaps: list[QPixmap] = [QPixmap(), QPixmap()]
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.setSpacing(16)
        self.title = QLabel()
        self.title.setObjectName("title")
        grid = QGridLayout()
        grid.setHorizontalSpacing(24)
        self.previews, self.names, self.codes, self.try_buttons = [], [], [], []
        for column in range(2):
            preview = QLabel()
            preview.setAlignment(Qt.AlignmentFlag.AlignCenter)
            preview.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
            name = QLabel()
            name.setObjectName("title")
            name.setAlignment(Qt.AlignmentFlag.AlignCenter)
            code = QLabel()
            code.setObjectName("muted")
            code.setAlignment(Qt.AlignmentFlag.AlignCenter)
            button = QPushButton()
            button.setObjectName("primary")
            button.setMinimumHeight(64)
            button.clicked.connect(lambda _=False, c=column: self._on_try(c))
            for row, widget in enumerate((preview, name, code, button)):
                grid.addWidget(widget, row, column)
            self.previews.append(preview)
            self.names.append(name)
            self.codes.append(code)
            self.try_buttons.append(button)
        grid.setRowStretch(0, 1)
        self.back_button = QPushButton()
        self.back_button.setMinimumHeight(64)
        self.back_button.clicked.connect(self.back_requested)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.back_button)
        layout.addWidget(self.title)
        layout.addLayout(grid, 1)
        layout.addLayout(bottom)
        self._retranslate()

    def show_styles(self, first: StyleCard, second: StyleCard) -> None:
        self._cards = (first, second)
        self._pixmaps = [QPixmap(str(c.preview)) if c.preview is not None else QPixmap() for c in self._cards]
        for column, card in enumerate(self._cards):
            self.codes[column].setText(card.code)
        self._scale_previews()
        self._retranslate()

    def shown_codes(self) -> tuple[str, ...]:
        return tuple(c.code for c in self._cards)

    def clear(self) -> None:
        self._cards = ()
        self._pixmaps = [QPixmap(), QPixmap()]
        for column in range(2):
            self.previews[column].clear()
            self.names[column].clear()
            self.codes[column].clear()

    def _on_try(self, column: int) -> None:
        if column < len(self._cards):
            self.chosen.emit(self._cards[column].code)

    def _scale_previews(self) -> None:
        for label, pixmap in zip(self.previews, self._pixmaps, strict=True):
            if pixmap.isNull():
                label.clear()
                continue
            label.setPixmap(pixmap.scaled(label.size(), Qt.AspectRatioMode.KeepAspectRatio,
                                          Qt.TransformationMode.SmoothTransformation))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._scale_previews()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.title.setText(self.tr("Compare two styles"))
        self.back_button.setText(self.tr("Back to the mirror"))
        english = i18n.current_language() == "en"
        for column in range(2):
            self.try_buttons[column].setText(self.tr("Try this one"))
            if column < len(self._cards):
                card = self._cards[column]
                self.names[column].setText((card.name_en or card.name) if english else (card.name or card.name_en))
