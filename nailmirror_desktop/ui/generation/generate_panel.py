"""AI design: a text box, quick-pick chips from the prompt parser's vocabulary, and the task's progress.

The panel only shows; the controller submits the STYLE_GENERATION task and feeds task signals back through
`show_*` methods, so the screen never waits on a provider. A finished design is shown by its preview card and
its name (the code small, for staff), with a note when some of the customer's words were left out, under the
kiosk's "designed by you" mark (a label of this screen, never part of the style's name). Its versions are
tiles large enough to tell apart and tap: each its preview card and its own name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from nailmirror_desktop.core.generation import vocabulary
from nailmirror_desktop.ui.shell import i18n

CHIP_COLUMNS = 3
PREVIEW_HEIGHT = 180
# a version's preview card (3:2) fills its tile's width, between these heights: a third of the panel on a
# 1280×800 screen up to a 1920×1080 one
VERSION_IMAGE_HEIGHT = 84
VERSION_IMAGE_MAX_HEIGHT = 170
VERSION_TILE_MIN_HEIGHT = VERSION_IMAGE_HEIGHT + 64  # the card, a two-line name and the frame
PREVIEW_MIN_HEIGHT = 72
CHIP_ROW_HEIGHT = 56


@dataclass(frozen=True)
class StyleCard:
    """What the panel shows of a finished design: names in both languages and its preview card (a file)."""

    code: str
    name: str
    name_en: str
    preview: Path | None
_COLOR_CHIPS = 12
_PATTERN_CHIPS = 15


def quick_pick_terms() -> list[tuple[str, str]]:
    """(Chinese word, English word) pairs the parser understands, in the order the chips show them."""
    terms = []
    for _rgb, english, forms in list(vocabulary.COLORS.values())[:_COLOR_CHIPS]:
        terms.append((forms[0], english))
    for _phrase, forms in vocabulary.FINISHES.values():
        terms.append((forms[0], _first_ascii(forms)))
    for _phrase, forms in list(vocabulary.PATTERNS.values())[:_PATTERN_CHIPS]:
        terms.append((forms[0], _first_ascii(forms)))
    terms.append((vocabulary.FINGERS["ring"][0] + vocabulary.ACCENT_FORMS[0], "ring finger accent"))
    return terms


def _first_ascii(forms: tuple[str, ...]) -> str:
    return next((f for f in forms if f.isascii()), forms[0])


class _Preview(QLabel):
    """The design's preview card, as tall as the panel can spare between PREVIEW_MIN_HEIGHT and PREVIEW_HEIGHT,
    scaled whole into it. A fixed height could not shrink when the panel was short (a 1280×800 screen), and the
    layout then laid the name over the picture."""

    def __init__(self) -> None:
        super().__init__()
        self._source = QPixmap()
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setMinimumHeight(PREVIEW_MIN_HEIGHT)
        self.setMaximumHeight(PREVIEW_HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)

    def set_source(self, pixmap: QPixmap) -> None:
        self._source = pixmap
        self._scale()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(0, PREVIEW_HEIGHT)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._scale()

    def _scale(self) -> None:
        if self._source.isNull():
            self.setPixmap(QPixmap())
            return
        self.setPixmap(self._source.scaled(self.size(), Qt.AspectRatioMode.KeepAspectRatio,
                                           Qt.TransformationMode.SmoothTransformation))


class GeneratePanel(QWidget):
    generate_requested = Signal(str)
    try_on_requested = Signal(str)  # style code
    more_requested = Signal()  # "show me more versions of this design"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._result_code = ""
        self._card: StyleCard | None = None
        self._first_card: StyleCard | None = None  # the design the variations are versions of
        self.variation_buttons: list[QPushButton] = []
        self._variation_cards: list[StyleCard] = []
        self._variation_labels: list[QLabel] = []  # each tile's name
        self._build()
        self._retranslate()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 8, 4, 4)
        layout.setSpacing(8)  # 12 left a 1280×800 window no room for the design's card under the prompt
        self.title = QLabel()
        self.title.setObjectName("title")
        self.prompt = QLineEdit()
        self.prompt.setMaxLength(500)
        self.prompt.returnPressed.connect(self._on_generate_click)
        self.generate_button = QPushButton()
        self.generate_button.setObjectName("primary")
        self.generate_button.setMinimumHeight(60)
        self.generate_button.clicked.connect(self._on_generate_click)
        self.chips: list[QPushButton] = []
        grid = QGridLayout()
        grid.setSpacing(8)
        for i, (zh, en) in enumerate(quick_pick_terms()):
            chip = QPushButton()
            chip.setObjectName("chip")
            chip.setProperty("terms", (zh, en))
            chip.clicked.connect(self._on_chip_click)
            grid.addWidget(chip, i // CHIP_COLUMNS, i % CHIP_COLUMNS)
            self.chips.append(chip)
        chip_box = QWidget()
        chip_box.setLayout(grid)
        scroll = QScrollArea()
        scroll.setWidget(chip_box)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumHeight(CHIP_ROW_HEIGHT)  # one row of chips at the least: it scrolls for the rest
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setTextVisible(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setObjectName("muted")
        self.preview = _Preview()
        self.yours = QLabel()
        self.yours.setObjectName("muted")
        self.yours.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.result_name = QLabel()
        self.result_name.setObjectName("title")
        self.result_name.setWordWrap(True)
        self.result_name.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.result_code = QLabel()
        self.result_code.setObjectName("muted")
        self.result_code.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.try_button = QPushButton()
        self.try_button.setMinimumHeight(60)
        self.try_button.clicked.connect(lambda: self.try_on_requested.emit(self._result_code))
        self.more_button = QPushButton()
        self.more_button.setMinimumHeight(56)
        self.more_button.clicked.connect(self.more_requested)
        self.variation_row = QHBoxLayout()
        self.variation_row.setSpacing(8)
        row = QHBoxLayout()
        row.addWidget(self.prompt, 1)
        layout.addWidget(self.title)
        layout.addLayout(row)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.generate_button)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        # The finished design, folded away while the on-screen keyboard is up (set_keyboard_up): the customer
        # is writing the next prompt, and squeezed under the keyboard the card drew its name over its picture.
        self.result_box = QWidget()
        result = QVBoxLayout(self.result_box)
        result.setContentsMargins(0, 0, 0, 0)
        result.setSpacing(8)
        result.addWidget(self.preview)
        result.addWidget(self.yours)
        result.addWidget(self.result_name)
        result.addWidget(self.result_code)
        result.addWidget(self.try_button)
        result.addLayout(self.variation_row)
        result.addWidget(self.more_button)
        layout.addWidget(self.result_box)
        self.show_idle()

    def set_keyboard_up(self, up: bool) -> None:
        """The on-screen keyboard is up (or went): the result card folds away to leave the prompt, the chips and
        "Create" their room, and comes back as it was."""
        self.result_box.setVisible(not up)

    # --- what the controller tells it -------------------------------------------------------------------
    def show_idle(self) -> None:
        self._result_code = ""
        self._clear_variations()
        self.progress.setVisible(False)
        self.status.setText("")
        self._show_card(None)
        self.generate_button.setEnabled(True)

    def show_working(self, fraction: float, text: str) -> None:
        self.progress.setVisible(True)
        self.progress.setValue(int(max(0.05, min(1.0, fraction)) * 100))
        self.status.setText(text)
        self.generate_button.setEnabled(False)

    def show_result(self, style_code: str, card: StyleCard | None = None, note: str = "") -> None:
        """The design is on the customer's nails: its preview, name and code; `note` says what was left out."""
        self._result_code = style_code
        self.progress.setValue(100)
        ready = self.tr("Your design is ready and on your nails now.")
        self.status.setText(f"{ready}\n{note}" if note else ready)
        self._clear_variations()
        self._show_card(card or StyleCard(style_code, "", "", None))
        self._first_card = self._card
        self.more_button.setVisible(True)
        self.generate_button.setEnabled(True)

    # --- variations: more versions of the design on show, to pick from -----------------------------------
    def offers_more(self) -> bool:
        """A design is on show and its variations were not asked for yet."""
        return self.more_button.isVisibleTo(self.result_box) and not self.variation_buttons

    def show_variations_working(self, text: str) -> None:
        self.more_button.setVisible(False)
        self.progress.setVisible(True)
        self.progress.setValue(10)
        self.status.setText(text)
        self.generate_button.setEnabled(False)
        if self._first_card is not None and not self.variation_buttons:
            self._add_variation_button(self._first_card)

    def add_variation(self, card: StyleCard) -> None:
        self._add_variation_button(card)
        self.progress.setValue(min(95, self.progress.value() + 40))

    def show_variations_done(self) -> None:
        self.progress.setVisible(False)
        self.generate_button.setEnabled(True)
        self.status.setText(self.tr("Tap a version to try it on.") if len(self.variation_buttons) > 1 else
                            self.tr("No more versions could be made this time."))

    def _add_variation_button(self, card: StyleCard) -> None:
        """A tile: the version's preview card over its name, the whole tile one touch target."""
        button = QPushButton()
        button.setObjectName("variation")
        button.setCheckable(True)
        button.setStyleSheet(  # min-height here: the kiosk's stylesheet (48 px for every button) beats setMinimumHeight
            "QPushButton#variation { background: #2d2733; border: 3px solid transparent; border-radius: 14px;"
            f" padding: 6px; min-height: {VERSION_TILE_MIN_HEIGHT - 18}px; }}"
            "QPushButton#variation:checked { background: #2d2733; border: 3px solid #e8739a; }")
        image = _FittedImage(QPixmap(str(card.preview)) if card.preview is not None else QPixmap())
        name = QLabel()
        name.setObjectName("versionName")
        name.setAlignment(Qt.AlignmentFlag.AlignCenter)
        name.setWordWrap(True)
        name.setStyleSheet("background: transparent; font-size: 17px;")
        inside = QVBoxLayout(button)
        inside.setContentsMargins(6, 6, 6, 6)
        inside.setSpacing(4)
        for label in (image, name):
            label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
            inside.addWidget(label)
        button.setMinimumHeight(VERSION_TILE_MIN_HEIGHT)
        button.setChecked(card.code == self._result_code)
        button.clicked.connect(lambda _=False, c=card, b=button: self._on_variation_click(c, b))
        self.variation_row.addWidget(button, 1)
        self.variation_buttons.append(button)
        self._variation_cards.append(card)
        self._variation_labels.append(name)
        self._retranslate_variations()
        # the tiles show every version, the chosen one framed, and a tap tries it on: no big card, no button
        self.preview.setVisible(False)
        self.try_button.setVisible(False)

    def variation_names(self) -> list[str]:
        """The names on the version tiles, as shown."""
        return [label.text() for label in self._variation_labels]

    def _on_variation_click(self, card: StyleCard, clicked: QPushButton) -> None:
        for button in self.variation_buttons:
            button.setChecked(button is clicked)
        self._result_code = card.code
        self._show_card(card)
        self.preview.setVisible(False)  # the framed tile is its picture
        self.try_button.setVisible(False)
        self.try_on_requested.emit(card.code)

    def _clear_variations(self) -> None:
        for button in self.variation_buttons:
            self.variation_row.removeWidget(button)
            button.deleteLater()
        self.variation_buttons = []
        self._variation_cards = []
        self._variation_labels = []
        self._first_card = None
        self.more_button.setVisible(False)

    def clear_result(self) -> None:
        """No design on show any more (the customer emptied the box): its card and its versions go."""
        self._result_code = ""
        self._clear_variations()
        self._show_card(None)

    def show_error(self, text: str) -> None:
        """Nothing was made (or nothing was queued): the reason, and no stale result beside it."""
        self.progress.setVisible(False)
        self.status.setText(text)
        self._show_card(None)
        self.more_button.setVisible(False)
        self.generate_button.setEnabled(True)

    def _show_card(self, card: StyleCard | None) -> None:
        self._card = card
        pixmap = QPixmap(str(card.preview)) if card is not None and card.preview is not None else QPixmap()
        self.preview.set_source(pixmap)
        self.preview.setVisible(not pixmap.isNull())
        self.result_code.setText(card.code if card is not None else "")
        self.yours.setVisible(card is not None)
        self.try_button.setVisible(card is not None)
        self._retranslate_card()

    def _retranslate_card(self) -> None:
        card = self._card
        name = "" if card is None else _name_of(card)
        self.result_name.setText(name)
        self.result_name.setVisible(bool(name))

    def _retranslate_variations(self) -> None:
        for label, card in zip(self._variation_labels, self._variation_cards, strict=True):
            label.setText(_name_of(card) or card.code)

    def clear(self) -> None:
        """Idle reset: forget what the customer typed."""
        self.prompt.clear()
        self.show_idle()

    # --- view → signals ---------------------------------------------------------------------------------
    def _on_generate_click(self) -> None:
        # Even an empty box is sent on: the controller is the one place that decides, and says why it refuses.
        self.generate_requested.emit(self.prompt.text().strip())

    def _on_chip_click(self) -> None:
        zh, en = self.sender().property("terms")
        word = en if i18n.current_language() == "en" else zh
        current = self.prompt.text().strip()
        separator = ", " if i18n.current_language() == "en" else "，"
        self.prompt.setText(f"{current}{separator}{word}" if current else word)

    # --- language -----------------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        english = i18n.current_language() == "en"
        self.title.setText(self.tr("Describe your dream nails"))
        self.prompt.setPlaceholderText(self.tr("e.g. milky white, shell flakes, ring finger accent"))
        self.generate_button.setText(self.tr("Create my design"))
        self.try_button.setText(self.tr("Try it on again"))
        self.more_button.setText(self.tr("Show me 2 more versions"))
        self.yours.setText(self.tr("✦ Designed by you"))
        for chip in self.chips:
            zh, en = chip.property("terms")
            chip.setText(en if english else zh)
        self._retranslate_card()
        self._retranslate_variations()


class _FittedImage(QLabel):
    """A preview card scaled to the label's size, its aspect kept (a version tile's picture)."""

    def __init__(self, source: QPixmap) -> None:
        super().__init__()
        self._source = source
        self.setObjectName("versionPicture")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setMinimumSize(VERSION_IMAGE_HEIGHT * 3 // 2, VERSION_IMAGE_HEIGHT)
        self.setMaximumHeight(VERSION_IMAGE_MAX_HEIGHT)
        if not source.isNull():  # until the layout gives it its size
            self.setPixmap(source.scaledToHeight(VERSION_IMAGE_HEIGHT, Qt.TransformationMode.SmoothTransformation))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        if not self._source.isNull():
            self.setPixmap(self._source.scaled(self.contentsRect().size(), Qt.AspectRatioMode.KeepAspectRatio,
                                               Qt.TransformationMode.SmoothTransformation))
        super().resizeEvent(event)


def _name_of(card: StyleCard) -> str:
    """The card's name in the language on screen (the other one when it has none)."""
    return (card.name_en or card.name) if i18n.current_language() == "en" else (card.name or card.name_en)
