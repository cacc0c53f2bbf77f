"""Before/after snapshots, and the idle watcher that ends a customer's session.

`BeforeAfterView` paints the same instant twice, split by a line the customer drags: the customer's own nails
("before") on the left of the line, the style ("after") on its right, as everyone reads a before/after, each
side named by a badge in its top corner. The line and its grip are drawn on the image itself: a slider under a
letterboxed image spanned the whole width, so its handle was not under the line it moved. Dragged to the right
end the whole image is the before, to the left end the after. The split starts where the after side covers
every painted nail (`default_split`): with one hand painted on the left of the frame, a plain half-way split
showed no paint at all.
Files go to data_dir()/snapshots (written on a worker by the controller) and are deleted after
KioskConfig.snapshot_keep_days (purge_expired_snapshots, at start-up and after each session).
The live pair is shown at once; while the still path renders the "after" again (an EFFECT_PREVIEW task,
core/tryon/effect_preview.py) the page shows its progress, and `show_render` swaps the finished render in.
`IdleWatcher` restarts its timer on every touch, click or key; when it fires the session is reset.
"""

from __future__ import annotations

import os
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent, QPen, QPolygonF, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from nailmirror_desktop.core.paths import data_dir, private_dir, write_private_file
from nailmirror_desktop.core.tryon.effect_preview import frames_dir
from nailmirror_desktop.core.tryon.retention import purge_expired_photos
from nailmirror_desktop.ui.shell import theme

_ACTIVITY_EVENTS = {
    QEvent.Type.MouseButtonPress, QEvent.Type.TouchBegin, QEvent.Type.TouchUpdate, QEvent.Type.KeyPress,
    QEvent.Type.Wheel,
}


def snapshots_dir() -> Path:
    return private_dir(data_dir() / "snapshots")  # customers' hands: owner-only (core/paths.py)


def save_snapshot(before: np.ndarray, after: np.ndarray, style_code: str) -> Path:
    """Write `<UTC time>_<code>_before.png` and `..._after.png` ((H, W, 3) uint8 BGR each); returns the after
    file. Runs on a worker: PNG encoding a 720p frame takes tens of milliseconds."""
    import cv2

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    stem = f"{stamp}_{style_code or 'none'}"
    folder = snapshots_dir()
    for suffix, image in (("before", before), ("after", after)):
        ok, encoded = cv2.imencode(".png", image)
        if not ok:
            raise OSError("SNAPSHOT_ENCODE_FAILED")
        target = folder / f"{stem}_{suffix}.png"
        partial = target.with_suffix(".part")  # renamed into place: a reader never sees half a photo
        write_private_file(partial, encoded.tobytes())
        os.replace(partial, target)
    return folder / f"{stem}_after.png"


def before_file(after: Path) -> Path:
    """The "before" file saved with `after` (save_snapshot's names)."""
    return after.with_name(after.name.removesuffix("_after.png") + "_before.png")


def save_frozen_frame(frame: np.ndarray) -> Path:
    """Write the frozen raw frame ((H, W, 3) uint8 BGR) to a private temp PNG for the EFFECT_PREVIEW task; the
    task deletes it when it ends. Fast PNG compression: it lives for seconds. Runs on a worker."""
    import cv2

    ok, encoded = cv2.imencode(".png", frame, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    if not ok:
        raise OSError("SNAPSHOT_ENCODE_FAILED")
    folder = frames_dir()
    target = folder / f"{uuid.uuid4().hex}.png"
    partial = folder / f"{target.stem}.part"
    write_private_file(partial, encoded.tobytes())
    os.replace(partial, target)
    return target


SPLIT_MARGIN = 0.05  # of the width, kept between the first painted nail and the split line
HANDLE_RADIUS = 36  # px: the grip on the split line, a fingertip wide
BADGE_MARGIN = 16  # px: the Before / After badges from the image's top corners


def default_split(paint_span: tuple[float, float] | None) -> float:
    """Where the split starts (fraction of the image's width; before on its left, after on its right): half-way,
    or further left so the after side holds every painted nail (`paint_span`: their horizontal extent,
    fractions of the width)."""
    if paint_span is None:
        return 0.5
    return max(0.0, min(0.5, paint_span[0] - SPLIT_MARGIN))


def purge_expired_snapshots(keep_days: int) -> list[Path]:
    """Delete snapshots older than `keep_days` (core/tryon/retention.py); runs on a worker."""
    return purge_expired_photos(snapshots_dir(), keep_days, time.time())


class BeforeAfterView(QWidget):
    """The pair on one image: before left of the split line, after right of it, a badge naming each side in
    its top corner, and a round grip on the line. A finger drags the line (or taps where it should be) anywhere
    on the image; the line and its grip are where the image is, never on the letterbox bars beside it."""

    split_changed = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._before: QImage | None = None
        self._after: QImage | None = None
        self._split = 0.5
        self.setMinimumSize(480, 320)
        self.setCursor(Qt.CursorShape.SizeHorCursor)
        self.before_badge, self.after_badge = QLabel(self), QLabel(self)
        for badge in (self.before_badge, self.after_badge):
            badge.setObjectName("compareBadge")
            badge.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)  # a drag starting on it works
            badge.hide()

    def set_labels(self, before: str, after: str) -> None:
        self.before_badge.setText(before)
        self.after_badge.setText(after)
        self._place_badges()

    def set_images(self, before: QImage | None, after: QImage | None) -> None:
        self._before, self._after = before, after
        self._place_badges()
        self.update()

    def set_after(self, after: QImage) -> None:
        self._after = after
        self.update()

    def after_image(self) -> QImage | None:
        return self._after

    def has_images(self) -> bool:
        return self._before is not None

    def set_split(self, fraction: float) -> None:
        split = min(1.0, max(0.0, fraction))
        if split != self._split:
            self._split = split
            self.split_changed.emit(split)
        self.update()

    def split(self) -> float:
        return self._split

    def image_rect(self) -> QRectF:
        """Where the image is drawn (letterboxed into the view); empty without images."""
        if self._before is None or self._before.isNull():
            return QRectF()
        return _fit(self._before, QRectF(self.rect()))

    def split_x(self) -> float:
        target = self.image_rect()
        return target.left() + target.width() * self._split

    def handle_center(self) -> QPointF:
        """The grip's centre: on the split line, half-way down the image."""
        return QPointF(self.split_x(), self.image_rect().center().y())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor("#0d0b0f"))
        if self._before is None or self._after is None:
            painter.end()
            return
        target = self.image_rect()
        split_x = self.split_x()
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.drawImage(target, self._after)
        painter.setClipRect(QRectF(target.left(), target.top(), split_x - target.left(), target.height()))
        painter.drawImage(target, self._before)
        painter.setClipping(False)
        painter.setPen(QPen(QColor(theme.ACCENT), 4))
        painter.drawLine(QPointF(split_x, target.top()), QPointF(split_x, target.bottom()))
        _draw_grip(painter, self.handle_center())
        painter.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self._follow(event.position().x())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._follow(event.position().x())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._place_badges()

    def _follow(self, x: float) -> None:
        target = self.image_rect()
        if target.width() > 0:
            self.set_split((x - target.left()) / target.width())

    def _place_badges(self) -> None:
        target = self.image_rect()
        shown = not target.isEmpty()
        for badge, left in ((self.before_badge, True), (self.after_badge, False)):
            badge.setVisible(shown and bool(badge.text()))
            if not shown:
                continue
            badge.adjustSize()
            x = target.left() + BADGE_MARGIN if left else target.right() - BADGE_MARGIN - badge.width()
            badge.move(round(x), round(target.top() + BADGE_MARGIN))


def _draw_grip(painter: QPainter, centre: QPointF) -> None:
    """A round accent grip with an arrow each way: "drag me sideways"."""
    painter.setPen(QPen(QColor(theme.TEXT), 3))
    painter.setBrush(QColor(theme.ACCENT))
    painter.drawEllipse(centre, HANDLE_RADIUS, HANDLE_RADIUS)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor("#1b1218"))
    x, y, w, h = centre.x(), centre.y(), HANDLE_RADIUS * 0.32, HANDLE_RADIUS * 0.36
    gap = HANDLE_RADIUS * 0.14
    for sign in (-1, 1):
        tip, base = x + sign * (gap + w * 2), x + sign * gap
        painter.drawPolygon(QPolygonF([QPointF(tip, y), QPointF(base, y - h), QPointF(base, y + h)]))


def _fit(image: QImage, area: QRectF) -> QRectF:
    scale = min(area.width() / image.width(), area.height() / image.height())
    width, height = image.width() * scale, image.height() * scale
    return QRectF(area.left() + (area.width() - width) / 2, area.top() + (area.height() - height) / 2, width, height)


class SnapshotPage(QWidget):
    back_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.setSpacing(16)
        self.title = QLabel()
        self.title.setObjectName("title")
        self.view = BeforeAfterView()
        self.hint = QLabel()  # how the picture works, under it
        self.hint.setObjectName("muted")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.saved_label = QLabel()
        self.saved_label.setObjectName("muted")
        self.render_label = QLabel()
        self.render_label.setObjectName("muted")
        self.render_bar = QProgressBar()
        self.render_bar.setRange(0, 100)
        self.render_bar.setTextVisible(False)
        self.render_bar.setMaximumHeight(12)
        self._set_rendering(False)
        self.back_button = QPushButton()
        self.back_button.setObjectName("primary")
        self.back_button.setMinimumHeight(64)
        self.back_button.clicked.connect(self.back_requested)
        layout.addWidget(self.title)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.hint)
        rendering = QHBoxLayout()
        rendering.addWidget(self.render_label)
        rendering.addWidget(self.render_bar, 1)
        layout.addLayout(rendering)
        bottom = QHBoxLayout()
        bottom.addWidget(self.saved_label, 1)
        bottom.addWidget(self.back_button)
        layout.addLayout(bottom)
        self._bottom = bottom
        self._retranslate()

    def add_action(self, button: QWidget) -> None:
        """A button before "Back to the mirror" (ui/share's "send to my phone")."""
        self._bottom.insertWidget(self._bottom.count() - 1, button)

    def show_pair(self, before: QImage, after: QImage, style_label: str,
                  paint_span: tuple[float, float] | None = None) -> None:
        """Freeze a pair; `style_label` names the style in the title, `paint_span` places the first split."""
        self.view.set_images(before, after)
        self.view.set_split(default_split(paint_span))
        self.saved_label.setText("")
        self._set_rendering(False)
        title = self.tr("Before / after · %1").replace("%1", style_label) if style_label else self.tr("Before / after")
        self.title.setText(title)

    def show_render_progress(self, fraction: float) -> None:
        """The still render of the "after" is on its way (fraction 0..1)."""
        self._set_rendering(True)
        self.render_bar.setValue(round(min(1.0, max(0.0, fraction)) * 100))

    def show_render(self, after: QImage | None) -> None:
        """The still render finished: `after` replaces the live one (None: the live one stays)."""
        self._set_rendering(False)
        if after is not None and self.view.has_images():
            self.view.set_after(after)

    def is_rendering(self) -> bool:
        return not self.render_bar.isHidden()

    def _set_rendering(self, on: bool) -> None:
        self.render_label.setVisible(on)
        self.render_bar.setVisible(on)
        if not on:
            self.render_bar.setValue(0)

    def show_saved(self, path: Path | None) -> None:
        self.saved_label.setText(self.tr("Saved on this kiosk. Ask our staff for a copy.") if path else
                                 self.tr("The photo could not be saved."))

    def clear(self) -> None:
        """Drop the customer's images and their style's name (idle reset)."""
        self.view.set_images(None, None)
        self.title.setText("")
        self.saved_label.setText("")
        self._set_rendering(False)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.view.set_labels(self.tr("Before"), self.tr("After"))
        self.hint.setText(self.tr("Drag the line to compare"))
        self.back_button.setText(self.tr("Back to the mirror"))
        self.render_label.setText(self.tr("Perfecting your photo…"))


class IdleWatcher(QObject):
    """Emits `idle` after `timeout_ms` with no touch, click or key anywhere in the application."""

    idle = Signal()

    def __init__(self, timeout_ms: int, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(timeout_ms)
        self._timer.timeout.connect(self.idle)

    def start(self, app: QObject) -> None:
        app.installEventFilter(self)
        self._timer.start()

    def stop(self, app: QObject) -> None:
        app.removeEventFilter(self)
        self._timer.stop()

    def set_timeout_ms(self, timeout_ms: int) -> None:
        self._timer.setInterval(timeout_ms)
        self._timer.start()

    def poke(self) -> None:
        self._timer.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() in _ACTIVITY_EVENTS:
            self._timer.start()
        return False
