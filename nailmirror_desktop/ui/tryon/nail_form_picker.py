"""The shape and length picker on the style card (issue 24): six tip shapes and five lengths, each a button with
a small picture of a nail drawn here from the same tip profiles the mirror paints (`vision/nails/extension.py`),
and, when the style recommends a shape and length, a "designer's choice" button that puts them on.

The choice is the customer's for her session: the controller hands it to the try-on session, and the idle reset
puts the picker back to natural (`reset`). `form_words` names a choice the way the take-home card prints it
("杏仁形 · 中长").
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, QPointF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from nailmirror_desktop.core.nail_form import LENGTH_MULTIPLES, NATURAL, NailForm, NailLength, NailShape
from nailmirror_desktop.ui.shell import theme
from nailmirror_desktop.vision.nails.extension import PROFILES, tip_half_width

ICON_SIZE = QSize(26, 36)
_SKIN = QColor("#e7b99b")
_NAIL = QColor(theme.ACCENT)
_EDGE = QColor("#1b1218")


def shape_name(shape: NailShape) -> str:
    names = {
        NailShape.ROUND: QCoreApplication.translate("NailForm", "Round"),
        NailShape.SQUARE: QCoreApplication.translate("NailForm", "Square"),
        NailShape.SQUOVAL: QCoreApplication.translate("NailForm", "Squoval"),
        NailShape.ALMOND: QCoreApplication.translate("NailForm", "Almond"),
        NailShape.COFFIN: QCoreApplication.translate("NailForm", "Coffin"),
        NailShape.STILETTO: QCoreApplication.translate("NailForm", "Stiletto"),
    }
    return names[shape]


def length_name(length: NailLength) -> str:
    names = {
        NailLength.NATURAL: QCoreApplication.translate("NailForm", "Natural"),
        NailLength.SHORT: QCoreApplication.translate("NailForm", "Short"),
        NailLength.MEDIUM: QCoreApplication.translate("NailForm", "Medium"),
        NailLength.LONG: QCoreApplication.translate("NailForm", "Long"),
        NailLength.EXTRA_LONG: QCoreApplication.translate("NailForm", "Extra long"),
    }
    return names[length]


def form_words(form: NailForm) -> str:
    """The choice as the card names it: "Almond · Medium" ("杏仁形 · 中长"); natural length is only "Natural"
    (the nail as found has no shape of ours)."""
    if not form.extends:
        return length_name(form.length)
    return f"{shape_name(form.shape)} · {length_name(form.length)}"


def nail_picture(form: NailForm, size: QSize = ICON_SIZE) -> QPixmap:
    """A fingertip seen from above with its nail in `form`: the icon of a shape or length button."""
    width, height = size.width(), size.height()
    pixmap = QPixmap(size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    finger_w = width * 0.62
    nail_w = finger_w * 0.72
    nail_len = height * 0.3
    reach = LENGTH_MULTIPLES[form.length] * nail_len
    cuticle = height - 2.0
    free_edge = cuticle - nail_len
    tip = free_edge - reach
    centre = width / 2.0
    finger = QPainterPath()
    finger.addRoundedRect(centre - finger_w / 2, free_edge - finger_w * 0.25, finger_w, height, finger_w / 2,
                          finger_w / 2)
    painter.fillPath(finger, _SKIN)
    nail = _nail_path(form, centre, nail_w / 2.0, cuticle, free_edge, tip)
    painter.fillPath(nail, _NAIL)
    painter.setPen(QPen(_EDGE, 1.2))  # the outline keeps the shape readable on a chosen (pink) button too
    painter.drawPath(nail)
    painter.end()
    return pixmap


def _nail_path(form: NailForm, centre: float, half: float, cuticle: float, free_edge: float,
               tip: float) -> QPainterPath:
    """The nail's outline: straight sides from the cuticle, then the tip's cap (a natural nail: a round one)."""
    shape = form.shape if form.extends else NailShape.ROUND
    depth = min(PROFILES[shape].depth * 2.0 * half, max(cuticle - tip - half * 0.4, 1.0))
    if not form.extends:
        depth = half * 0.8
    x = np.linspace(1.0, 0.0, 16) ** 2
    widths = tip_half_width(shape, x) * half
    path = QPainterPath(QPointF(centre - half, cuticle))
    path.lineTo(QPointF(centre - half, tip + depth))
    for share, w in zip(x, widths, strict=True):
        path.lineTo(QPointF(centre - float(w), tip + float(share) * depth))
    for share, w in zip(x[::-1], widths[::-1], strict=True):
        path.lineTo(QPointF(centre + float(w), tip + float(share) * depth))
    path.lineTo(QPointF(centre + half, cuticle))
    path.closeSubpath()
    return path


class NailFormPicker(QWidget):
    """Two rows of picture buttons (shape, length) and the designer's choice; `form_changed(NailForm)` on a tap.

    Folded away until its `toggle` (a chip the style browser puts beside the style's name, showing the choice
    now) is tapped: open all the time, the rows would take two rows of style tiles off the grid."""

    form_changed = Signal(object)  # NailForm

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._form = NATURAL
        self._recommended: NailForm | None = None
        self.title = QLabel()
        self.title.setObjectName("muted")
        self.shape_buttons: dict[NailShape, QToolButton] = {}
        self.length_buttons: dict[NailLength, QToolButton] = {}
        self._shape_group = QButtonGroup(self)
        self._length_group = QButtonGroup(self)
        shapes, lengths = QHBoxLayout(), QHBoxLayout()
        for row in (shapes, lengths):
            row.setSpacing(4)
        for shape in NailShape:
            button = self._button(nail_picture(NailForm(shape, NailLength.LONG)))
            button.clicked.connect(lambda _checked=False, s=shape: self._on_shape(s))
            self._shape_group.addButton(button)
            self.shape_buttons[shape] = button
            shapes.addWidget(button)
        for length in NailLength:
            button = self._button(QPixmap())
            button.clicked.connect(lambda _checked=False, n=length: self._on_length(n))
            self._length_group.addButton(button)
            self.length_buttons[length] = button
            lengths.addWidget(button)
        self.designer_button = QToolButton()
        self.designer_button.setObjectName("formChip")
        self.designer_button.setMinimumHeight(48)
        self.designer_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.designer_button.clicked.connect(self.apply_recommended)
        self.designer_button.setVisible(False)
        self.toggle = QToolButton()
        self.toggle.setObjectName("formChip")
        self.toggle.setCheckable(True)
        self.toggle.setMinimumHeight(48)
        self.toggle.setIconSize(QSize(24, 32))
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.toggled.connect(self.setVisible)
        self.toggle.setStyleSheet(self._STYLE)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.title)
        column.addLayout(shapes)
        column.addLayout(lengths)
        column.addWidget(self.designer_button)
        self.setStyleSheet(self._STYLE)
        self.setVisible(False)
        self._retranslate()
        self._show_form()

    _STYLE = ("QToolButton#formChip { background: #3a3140; border: none; border-radius: 14px; padding: 2px 6px;"
              " font-size: 14px; min-width: 48px; }"
              f"QToolButton#formChip:checked {{ background: {theme.ACCENT}; color: #1b1218; }}")

    def _button(self, picture: QPixmap) -> QToolButton:
        button = QToolButton()
        button.setObjectName("formChip")
        button.setCheckable(True)
        button.setIcon(QIcon(picture))
        button.setIconSize(ICON_SIZE)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)
        button.setMinimumSize(52, 66)
        return button

    # --- state --------------------------------------------------------------------------------------------
    def form(self) -> NailForm:
        return self._form

    def set_form(self, form: NailForm) -> None:
        """Show `form` as chosen (no signal: the caller already applied it)."""
        self._form = form
        self._show_form()

    def set_recommended(self, form: NailForm | None) -> None:
        """The style's own shape and length (None: it recommends none): offered as the designer's choice."""
        self._recommended = form
        self.designer_button.setVisible(form is not None)
        self._retranslate_designer()
        self._retranslate_toggle()

    def apply_recommended(self) -> None:
        if self._recommended is not None:
            self._choose(self._recommended)

    def reset(self) -> None:
        """Natural again and folded away (the idle reset): the next customer starts with her own nails."""
        self._form = NATURAL
        self.toggle.setChecked(False)
        self._show_form()

    def _on_shape(self, shape: NailShape) -> None:
        # a shape on a natural nail would change nothing: it comes with a length to show it
        length = self._form.length if self._form.extends else NailLength.MEDIUM
        self._choose(NailForm(shape, length))

    def _on_length(self, length: NailLength) -> None:
        self._choose(NailForm(self._form.shape, length))

    def _choose(self, form: NailForm) -> None:
        self._form = form
        self._show_form()
        self.form_changed.emit(form)

    def _show_form(self) -> None:
        form = self._form
        for shape, button in self.shape_buttons.items():
            button.setChecked(form.extends and shape is form.shape)
        for length, button in self.length_buttons.items():
            button.setChecked(length is form.length)
            button.setIcon(QIcon(nail_picture(NailForm(form.shape, length))))
        # an exclusive group cannot show "no shape" (natural): these groups stay non-exclusive, _show_form decides
        self._shape_group.setExclusive(False)
        self._length_group.setExclusive(False)
        self.toggle.setIcon(QIcon(nail_picture(form, QSize(24, 32))))
        self._retranslate_toggle()

    # --- language -----------------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.title.setText(self.tr("Nail shape and length"))
        for shape, button in self.shape_buttons.items():
            button.setText(shape_name(shape))
        for length, button in self.length_buttons.items():
            button.setText(length_name(length))
        self._retranslate_designer()
        self._retranslate_toggle()

    def _retranslate_toggle(self) -> None:
        star = " ★" if self._recommended is not None else ""  # the style has a designer's choice inside
        self.toggle.setText(form_words(self._form) + star)
        self.toggle.setToolTip(self.tr("Nail shape and length"))

    def _retranslate_designer(self) -> None:
        form = self._recommended
        if form is None:
            return
        self.designer_button.setIcon(QIcon(nail_picture(form, QSize(24, 32))))
        self.designer_button.setText(self.tr("Designer's choice: %1").replace("%1", form_words(form)))
