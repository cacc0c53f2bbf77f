"""The live mirror: a widget that paints the newest composited frame and the customer-facing overlays.

The widget only paints what it is given (`show_frame`); `mirror_loop.MirrorLoop` decides what that is.
Overlays: a hand-placement guide (an outline per hand and "place both hands flat inside the outlines") while
fewer hands than wanted are tracked (mirror_loop.py decides when, with a grace period), the 3-2-1 of a snapshot's
countdown, the customer's hand-off number ("show this to our staff: A012", ui/tryon/handoff.py), a banner for
camera trouble, and the selected style: its name large (what the customer reads and remembers), the store's
price under it when the store set one (core/catalog/price.py formats it: ¥128, ¥128.50), and its code small
underneath, once, so the customer can still read it out to the technician.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QImage,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QTransform,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from nailmirror_desktop.core.catalog.price import format_price
from nailmirror_desktop.ui.shell import i18n, theme


class MirrorView(QWidget):
    pressed = Signal()  # a touch on the mirror (it cancels a snapshot's countdown)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mirror")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(480, 360)
        self._image: QImage | None = None
        self._guide_visible = True
        self._guide_hands = 2
        self._countdown = 0  # the number on screen while a snapshot counts down; 0: none
        self._ticket = ""  # the customer's hand-off number; "": none
        self._banner = ""
        self._style_code = ""
        self._style_names = ("", "")  # (zh, en): the language is chosen when painting, so a switch needs no reload
        self._price: tuple[int, str] | None = None  # (minor units, currency), formatted when painting
        self.frames_painted = 0
        self._guide_cache: tuple[QRectF | None, QPainterPath | None] = (None, None)
        self._retranslate()

    # --- what the loop and the window tell it -------------------------------------------------------------
    def show_frame(self, image: QImage) -> None:
        self._image = image
        self.update()

    def clear_frame(self) -> None:
        self._image = None
        self.update()

    def has_frame(self) -> bool:
        return self._image is not None

    def set_guide_visible(self, visible: bool) -> None:
        if visible != self._guide_visible:
            self._guide_visible = visible
            self.update()

    def guide_visible(self) -> bool:
        return self._guide_visible

    def set_guide_hands(self, hands: int) -> None:
        """How many hand outlines the guide draws (the hands the tracker follows: 1 or 2)."""
        self._guide_hands = 1 if hands < 2 else 2
        self._guide_cache = (None, None)
        self._retranslate()

    def guide_text(self) -> str:
        return self._guide_text

    def set_countdown(self, number: int) -> None:
        """The snapshot countdown's number, large in the middle (0: none)."""
        if number != self._countdown:
            self._countdown = number
            self.update()

    def countdown(self) -> int:
        return self._countdown

    def set_ticket(self, number: str) -> None:
        """The customer's hand-off request number ("" hides it)."""
        if number != self._ticket:
            self._ticket = number
            self.update()

    def ticket_text(self) -> str:
        """The hand-off line as shown now ("" without one)."""
        return self.tr("Show this to our staff: %1").replace("%1", self._ticket) if self._ticket else ""

    def set_banner(self, text: str) -> None:
        if text != self._banner:
            self._banner = text
            self.update()

    def banner(self) -> str:
        return self._banner

    def set_style(self, code: str, name: str, name_en: str = "", price: tuple[int, str] | None = None) -> None:
        """`price`: (minor units, currency code) when the store set one, else None (no price line)."""
        self._style_code, self._style_names, self._price = code, (name, name_en), price
        self.update()

    def price_text(self) -> str:
        """The price line as shown now ("" without one)."""
        if self._price is None:
            return ""
        return format_price(self._price[0], self._price[1], i18n.current_language())

    def style_label_lines(self) -> list[tuple[str, int]]:
        """The style overlay's lines, top to bottom, as (text, pixel size): the name large, the code small.
        A style without a name shows its code alone, still small-ish: it is a reference, not a headline."""
        if not self._style_code:
            return []
        zh, en = self._style_names
        name = (en or zh) if i18n.current_language() == "en" else (zh or en)
        code_px = max(16, self.height() // 36)
        price = [(self.price_text(), max(22, self.height() // 24))] if self._price is not None else []
        if not name or name == self._style_code:
            return [(self._style_code, max(22, self.height() // 24)), *price]
        return [(name, max(28, self.height() // 16)), *price, (self._style_code, code_px)]

    # --- painting ---------------------------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.fillRect(self.rect(), QColor("#0d0b0f"))
        if self._image is not None:
            self._paint_cover(painter, self._image)
        if self._guide_visible:
            self._paint_guide(painter)
        label = self._paint_style_label(painter) if self._style_code else None
        if self._ticket:
            self._paint_ticket(painter, label)
        if self._countdown > 0:
            self._paint_countdown(painter)
        if self._banner:
            self._paint_banner(painter)
        painter.end()
        if self._image is not None:
            self.frames_painted += 1

    def _paint_cover(self, painter: QPainter, image: QImage) -> None:
        """Scale to fill the widget and crop the overflow, centred (a mirror has no letterbox). The loop's
        worker already scaled the frame to this size, so normally this is a plain 1:1 blit."""
        if image.width() == self.width() and image.height() == self.height():
            painter.drawImage(0, 0, image)
            return
        scale = max(self.width() / image.width(), self.height() / image.height())
        src_w, src_h = self.width() / scale, self.height() / scale
        source = QRectF((image.width() - src_w) / 2, (image.height() - src_h) / 2, src_w, src_h)
        painter.drawImage(QRectF(self.rect()), image, source)

    def _paint_guide(self, painter: QPainter) -> None:
        w, h = self.width(), self.height()
        if self._guide_hands == 2:  # side by side, thumbs towards each other, as hands lie flat on a counter
            area = QRectF(self.rect()).adjusted(w * 0.12, h * 0.2, -w * 0.12, -h * 0.14)
        else:
            area = QRectF(self.rect()).adjusted(w * 0.3, h * 0.18, -w * 0.3, -h * 0.14)
        painter.setPen(QPen(QColor(255, 255, 255, 200), 4, Qt.PenStyle.DashLine))
        painter.setBrush(QColor(255, 255, 255, 28))
        cached_area, outline = self._guide_cache
        if outline is None or cached_area != area:
            outline = _hands_outline(area, self._guide_hands)
            self._guide_cache = (area, outline)
        painter.drawPath(outline)
        painter.setPen(QColor(theme.TEXT))
        font = painter.font()
        font.setPixelSize(max(22, self.height() // 22))
        font.setWeight(QFont.Weight.DemiBold)
        fits = self.width() * 0.94
        while font.pixelSize() > 16 and QFontMetrics(font).horizontalAdvance(self._guide_text) > fits:
            font.setPixelSize(font.pixelSize() - 2)  # a long sentence (English) on a narrow mirror
        painter.setFont(font)
        text_box = QRectF(0, area.bottom() + 8, self.width(), self.height() - area.bottom() - 8)
        painter.drawText(text_box, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, self._guide_text)

    def _paint_style_label(self, painter: QPainter) -> QRectF:
        lines = self.style_label_lines()
        fonts = []
        for i, (_text, pixels) in enumerate(lines):
            font = QFont(painter.font())
            font.setPixelSize(pixels)
            font.setWeight(QFont.Weight.Bold if i == 0 else QFont.Weight.Normal)
            fonts.append(font)
        max_text = self.width() * 0.6  # a long name is elided rather than covering the customer's hand
        widths = [min(max_text, QFontMetrics(f).horizontalAdvance(t)) for f, (t, _p) in zip(fonts, lines, strict=True)]
        heights = [QFontMetrics(f).height() for f in fonts]
        box = QRectF(24, 24, max(widths) + 48, sum(heights) + 8 * (len(lines) - 1) + 32)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(20, 16, 22, 190))
        painter.drawRoundedRect(box, 18, 18)
        y = box.top() + 16
        colours = (QColor(theme.TEXT), QColor(theme.MUTED))
        price = self.price_text()
        for i, ((text, _pixels), font, height) in enumerate(zip(lines, fonts, heights, strict=True)):
            painter.setFont(font)
            painter.setPen(QColor(theme.ACCENT) if i > 0 and price and text == price else colours[min(i, 1)])
            shown = QFontMetrics(font).elidedText(text, Qt.TextElideMode.ElideRight, int(max_text))
            painter.drawText(QRectF(box.left() + 24, y, box.width() - 48, height),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, shown)
            y += height + 8
        return box

    def _paint_countdown(self, painter: QPainter) -> None:
        side = min(self.width(), self.height()) * 0.36
        box = QRectF((self.width() - side) / 2, (self.height() - side) / 2, side, side)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(20, 16, 22, 150))
        painter.drawEllipse(box)
        font = QFont(painter.font())
        font.setPixelSize(int(side * 0.6))
        font.setWeight(QFont.Weight.Bold)
        painter.setFont(font)
        painter.setPen(QColor("white"))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, str(self._countdown))

    def _paint_ticket(self, painter: QPainter, style_label: QRectF | None) -> None:
        """Top right, large and high-contrast: read out at the counter, or shown from arm's length; under the
        style's label when both do not fit side by side (a narrow mirror)."""
        font = QFont(painter.font())
        font.setPixelSize(max(26, self.height() // 18))
        font.setWeight(QFont.Weight.Bold)
        text = self.ticket_text()
        metrics = QFontMetrics(font)
        width, height = metrics.horizontalAdvance(text) + 48, metrics.height() + 28
        box = QRectF(self.width() - width - 24, 24, width, height)
        if style_label is not None and box.intersects(style_label.adjusted(-12, -12, 12, 12)):
            box.moveTo(style_label.left(), style_label.bottom() + 16)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(theme.ACCENT))
        painter.drawRoundedRect(box, 18, 18)
        painter.setFont(font)
        painter.setPen(QColor("white"))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self.pressed.emit()
        super().mousePressEvent(event)

    def _paint_banner(self, painter: QPainter) -> None:
        font = painter.font()
        font.setPixelSize(max(20, self.height() // 28))
        painter.setFont(font)
        height = painter.fontMetrics().height() + 32
        box = QRectF(self.width() * 0.1, self.height() - height - 32, self.width() * 0.8, height)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(120, 40, 60, 220))
        painter.drawRoundedRect(box, 16, 16)
        painter.setPen(QColor("white"))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self._banner)

    # --- language -----------------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self._guide_text = (self.tr("Place both hands flat inside the outlines") if self._guide_hands == 2 else
                            self.tr("Place your hand flat inside the outline"))
        self.update()


def _hands_outline(area: QRectF, hands: int) -> QPainterPath:
    """One hand in the middle of `area`, or two side by side: a left hand (the right one mirrored) and a right."""
    if hands < 2:
        return _hand_outline(area)
    gap = max(area.width() * 0.06, area.height() * 0.3)  # the thumbs reach inwards: on a narrow mirror they crossed
    half = (area.width() - gap) / 2
    right = _hand_outline(QRectF(area.left() + half + gap, area.top(), half, area.height()))
    mirror = QTransform().translate(2 * area.center().x(), 0).scale(-1, 1)  # x → (left + right) − x
    path = QPainterPath(right)
    path.addPath(mirror.map(right))
    return path


def _hand_outline(area: QRectF) -> QPainterPath:
    """An open hand drawn as a palm and five rounded fingers inside `area` (a guide, not anatomy)."""
    path = QPainterPath()
    w, h = area.width(), area.height()
    palm = QRectF(area.left() + w * 0.18, area.top() + h * 0.45, w * 0.62, h * 0.55)
    path.addRoundedRect(palm, w * 0.2, w * 0.2)
    finger_w = w * 0.13
    tops = (0.12, 0.0, 0.05, 0.16)  # index, middle, ring, pinky: how far from the top each tip sits
    for i, top in enumerate(tops):
        x = palm.left() + i * (palm.width() - finger_w) / 3
        finger = QRectF(x, area.top() + h * top, finger_w, h * 0.5 - h * top + w * 0.1)
        path.addRoundedRect(finger, finger_w / 2, finger_w / 2)
    thumb = QPainterPath()
    thumb.addRoundedRect(QRectF(-finger_w / 2, -h * 0.2, finger_w, h * 0.34), finger_w / 2, finger_w / 2)
    transform = QTransform().translate(palm.left() - w * 0.02, palm.top() + h * 0.22).rotate(-40)
    path.addPath(transform.map(thumb))
    return path.simplified()

