"""The snapshot gallery behind the staff PIN: the before/after photos the kiosk keeps (ui/tryon/snapshot.py,
kept KioskConfig.snapshot_keep_days), newest first, each with its time and style; tap one to see it large; delete
one or all, each after a confirmation in the page (a bar with two large buttons, as closing the kiosk asks).

Files are listed and deleted by core/tryon/snapshots.py. Thumbnails are decoded off the GUI thread through the
bridge, a few at a time (THUMBS_PER_JOB per job, one job after the other), so a folder of hundreds of 720p PNGs
neither stalls the screen nor holds both of the runner's threads the mirror needs. A deletion removes the files
for good (the render's partial too) and is announced by `snapshots_deleted`, so the shell withdraws a share link
to a deleted photo. Times are stored UTC (in the file name) and shown in the store's time zone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import shiboken6
from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QImageReader, QPixmap, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from nailmirror_desktop.core.config import known_time_zone
from nailmirror_desktop.core.tryon.snapshots import SnapshotEntry, delete_all_snapshots, delete_snapshot, list_snapshots
from nailmirror_desktop.ui.bridge import RunInBackground
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.staff.touch_controls import TOUCH_PX, ConfirmBar

log = logging.getLogger(__name__)

THUMB = QSize(224, 168)
LARGE_MAX = QSize(1920, 1080)
THUMBS_PER_JOB = 8
StemRole = Qt.ItemDataRole.UserRole + 1
StyleNames = Callable[[str], tuple[str, str] | None]  # style code → (name, name_en), None when unknown


def _read_image(path: Path, limit: QSize) -> QImage:
    """Decode `path` scaled to fit `limit` (off the GUI thread: QImage and QImageReader are reentrant)."""
    reader = QImageReader(str(path))
    reader.setAutoTransform(True)
    size = reader.size()
    if size.isValid() and (size.width() > limit.width() or size.height() > limit.height()):
        reader.setScaledSize(size.scaled(limit, Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    if image.isNull():
        raise OSError(f"{path.name}: {reader.errorString()}")
    return image


class SnapshotGallery(QWidget):
    snapshots_deleted = Signal(list)  # list[Path]: the files that are gone

    def __init__(self, folder: Callable[[], Path], run_in_background: RunInBackground, *,
                 style_names: StyleNames | None = None, time_zone: str = "Asia/Shanghai",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._folder = folder
        self._run = run_in_background
        self._style_names = style_names or (lambda _code: None)
        # None: the machine's own zone (an unknown name; config.validated already refuses to keep one)
        self._zone: ZoneInfo | None = ZoneInfo(time_zone) if known_time_zone(time_zone) else None
        self._entries: list[SnapshotEntry] = []
        self._generation = 0  # bumped on every reload: thumbnails of an older listing are dropped
        self._open: SnapshotEntry | None = None
        self._showing_before = False
        self._pending: str | None = None  # what the confirm bar asks about: a stem, "*" for all, None
        self.busy = False  # a listing or deletion is on its way
        self._build()
        self._retranslate()

    # --- layout -----------------------------------------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        self.confirm_bar = ConfirmBar(self.confirm, self.cancel_confirmation)
        self.confirm_text = self.confirm_bar.text
        self.confirm_delete_button, self.keep_button = self.confirm_bar.yes_button, self.confirm_bar.no_button

        self.stack = QStackedWidget()
        grid_page = QWidget()
        grid = QVBoxLayout(grid_page)
        grid.setContentsMargins(0, 0, 0, 0)
        header = QHBoxLayout()
        self.count_label = QLabel()
        self.count_label.setObjectName("muted")
        self.delete_all_button = QPushButton()
        self.delete_all_button.setObjectName("danger")
        self.delete_all_button.clicked.connect(self.ask_delete_all)
        header.addWidget(self.count_label, 1)
        header.addWidget(self.delete_all_button)
        self.list_widget = QListWidget()
        self.list_widget.setObjectName("snapshotGrid")
        self.list_widget.setViewMode(QListWidget.ViewMode.IconMode)
        self.list_widget.setIconSize(THUMB)
        self.list_widget.setGridSize(QSize(THUMB.width() + 24, THUMB.height() + 100))
        self.list_widget.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.list_widget.setMovement(QListWidget.Movement.Static)
        self.list_widget.setWordWrap(True)
        self.list_widget.setUniformItemSizes(True)
        self.list_widget.setMinimumHeight(THUMB.height() + 96)
        self.list_widget.setStyleSheet(
            "QListWidget#snapshotGrid::item { border: 3px solid transparent; border-radius: 12px; }"
            "QListWidget#snapshotGrid::item:selected { background: transparent; border-color: #e8739a; }")
        self.list_widget.itemClicked.connect(lambda item: self.open_snapshot(item.data(StemRole)))
        self.empty_label = QLabel()
        self.empty_label.setObjectName("muted")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        grid.addLayout(header)
        grid.addWidget(self.list_widget, 1)
        grid.addWidget(self.empty_label)

        detail_page = QWidget()
        detail = QVBoxLayout(detail_page)
        detail.setContentsMargins(0, 0, 0, 0)
        self.large = QLabel()
        self.large.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.large.setMinimumSize(480, 320)
        self.large.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.caption = QLabel()
        self.caption.setObjectName("muted")
        buttons = QHBoxLayout()
        self.back_button = QPushButton()
        self.back_button.setObjectName("primary")
        self.back_button.clicked.connect(self.close_snapshot)
        self.side_button = QPushButton()
        self.side_button.clicked.connect(self.toggle_side)
        self.delete_button = QPushButton()
        self.delete_button.setObjectName("danger")
        self.delete_button.clicked.connect(self.ask_delete_open)
        buttons.addWidget(self.back_button)
        buttons.addStretch(1)
        buttons.addWidget(self.side_button)
        buttons.addWidget(self.delete_button)
        detail.addWidget(self.large, 1)
        detail.addWidget(self.caption)
        detail.addLayout(buttons)
        for button in (self.confirm_delete_button, self.keep_button, self.delete_all_button, self.back_button,
                       self.side_button, self.delete_button):
            button.setMinimumHeight(TOUCH_PX + 16)
            button.setMinimumWidth(TOUCH_PX * 2)

        self.stack.addWidget(grid_page)
        self.stack.addWidget(detail_page)
        layout.addWidget(self.confirm_bar)
        layout.addWidget(self.stack, 1)

    def _in_background(self, fn: Callable[[], Any], done: Callable[[Any, BaseException | None], None]) -> None:
        """`fn` on the bridge's worker; `done` on the GUI thread unless this page was deleted meanwhile (staff
        pages are rebuilt, tests close them) — a late answer must not touch a widget that is gone."""

        def guarded(result: Any, error: BaseException | None) -> None:
            if shiboken6.isValid(self):
                done(result, error)

        self._run(fn, guarded)

    # --- listing ---------------------------------------------------------------------------------------------
    def reload(self) -> None:
        """List the folder again (on a worker), then fill the grid; thumbnails follow a few at a time."""
        self._generation += 1
        generation = self._generation
        self.busy = True
        folder = self._folder()
        self._in_background(lambda: list_snapshots(folder),
                            lambda entries, error: self._on_listed(generation, entries, error))

    def entries(self) -> list[SnapshotEntry]:
        return list(self._entries)

    def _on_listed(self, generation: int, entries: list[SnapshotEntry] | None, error: BaseException | None) -> None:
        if generation != self._generation:
            return
        self.busy = False
        if error is not None:
            log.warning("snapshots could not be listed: %s", error)
            entries = []
        self._entries = entries or []
        self.list_widget.clear()
        for entry in self._entries:
            item = QListWidgetItem(self._caption(entry, short=True))
            item.setData(StemRole, entry.stem)
            item.setSizeHint(QSize(THUMB.width() + 16, THUMB.height() + 92))
            item.setTextAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            self.list_widget.addItem(item)
        self._show_counts()
        if self._open is not None and all(e.stem != self._open.stem for e in self._entries):
            self.close_snapshot()  # it was deleted (here, or by the retention purge)
        self._load_thumbnails(generation, 0)

    def _load_thumbnails(self, generation: int, start: int) -> None:
        batch = self._entries[start:start + THUMBS_PER_JOB]
        if not batch or generation != self._generation:
            return

        def decode() -> list[tuple[str, QImage | None]]:
            out: list[tuple[str, QImage | None]] = []
            for entry in batch:
                try:
                    out.append((entry.stem, _read_image(entry.shown, THUMB)))
                except OSError as exc:  # deleted meanwhile, or not an image: the tile keeps its caption
                    log.warning("snapshot thumbnail: %s", exc)
                    out.append((entry.stem, None))
            return out

        def done(images: list[tuple[str, QImage | None]] | None, error: BaseException | None) -> None:
            if generation != self._generation:
                return
            if error is None:
                for stem, image in images or []:
                    item = self._item(stem)
                    if item is not None and image is not None:
                        item.setIcon(QIcon(QPixmap.fromImage(image)))
            self._load_thumbnails(generation, start + THUMBS_PER_JOB)

        self._in_background(decode, done)

    def thumbnails_loaded(self) -> int:
        return sum(1 for i in range(self.list_widget.count()) if not self.list_widget.item(i).icon().isNull())

    def _item(self, stem: str) -> QListWidgetItem | None:
        for i in range(self.list_widget.count()):
            item = self.list_widget.item(i)
            if item.data(StemRole) == stem:
                return item
        return None

    # --- one snapshot large ----------------------------------------------------------------------------------
    def open_snapshot(self, stem: str) -> bool:
        entry = next((e for e in self._entries if e.stem == stem), None)
        if entry is None:
            return False
        self.cancel_confirmation()
        self._open, self._showing_before = entry, False
        self.stack.setCurrentIndex(1)
        self._show_open()
        return True

    def open_entry(self) -> SnapshotEntry | None:
        return self._open

    def toggle_side(self) -> None:
        if self._open is not None and self._open.before is not None and self._open.after is not None:
            self._showing_before = not self._showing_before
            self._show_open()

    def _show_open(self) -> None:
        entry = self._open
        if entry is None:
            return
        path = entry.before if self._showing_before and entry.before is not None else entry.shown
        self.caption.setText(self._caption(entry, short=False))
        self.side_button.setEnabled(entry.before is not None and entry.after is not None)
        self._retranslate_side()
        self.large.clear()
        stem = entry.stem

        def shown(image: QImage | None, error: BaseException | None) -> None:
            if self._open is None or self._open.stem != stem:
                return
            if error is not None or image is None:
                self.large.setText(self.tr("This photo cannot be shown."))
                return
            self.large.setPixmap(QPixmap.fromImage(image).scaled(
                self.large.size(), Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation))

        self._in_background(lambda: _read_image(path, LARGE_MAX), shown)

    def close_snapshot(self) -> None:
        self._open = None
        self.large.clear()
        self.cancel_confirmation()
        self.stack.setCurrentIndex(0)

    # --- deleting --------------------------------------------------------------------------------------------
    def ask_delete_open(self) -> None:
        if self._open is not None:
            self._ask(self._open.stem)

    def ask_delete_all(self) -> None:
        if self._entries:
            self._ask("*")

    def _ask(self, what: str) -> None:
        self._pending = what
        self._retranslate_confirm()
        self.confirm_bar.show()

    def cancel_confirmation(self) -> None:
        self._pending = None
        self.confirm_bar.hide()

    def confirm(self) -> None:
        """The confirm bar's "Yes, delete": delete for good on a worker, then list again."""
        what, self._pending = self._pending, None
        self.confirm_bar.hide()
        if what is None:
            return
        folder = self._folder()
        self.busy = True
        if what == "*":
            self._in_background(lambda: delete_all_snapshots(folder), self._on_deleted)
        else:
            self._in_background(lambda: delete_snapshot(folder, what), self._on_deleted)

    def _on_deleted(self, deleted: list[Path] | None, error: BaseException | None) -> None:
        if error is not None:
            log.warning("snapshot deletion failed: %s", error)
            self.count_label.setText(self.tr("Some photos could not be deleted; try again."))
        if deleted:
            self.snapshots_deleted.emit(list(deleted))
        self.close_snapshot()
        self.reload()

    # --- words -----------------------------------------------------------------------------------------------
    def _local_time(self, entry: SnapshotEntry) -> str:
        local: datetime = entry.taken_at.astimezone(self._zone) if self._zone else entry.taken_at.astimezone()
        return local.strftime("%Y-%m-%d %H:%M:%S")

    def _style_label(self, code: str) -> list[str]:
        """The style's name in the current language and its code (the code alone when the style is unknown)."""
        if not code:
            return [self.tr("no style")]
        names = self._style_names(code)
        if names is None:
            return [code]
        zh, en = names
        name = (en or zh) if i18n.current_language() == "en" else (zh or en)
        return [name, code] if name else [code]

    def _caption(self, entry: SnapshotEntry, *, short: bool) -> str:
        return ("\n" if short else " · ").join([self._local_time(entry), *self._style_label(entry.style_code)])

    def _show_counts(self) -> None:
        count = len(self._entries)
        self.count_label.setText(self.tr("%n photo(s) kept on this kiosk", "", count))
        self.delete_all_button.setEnabled(count > 0)
        self.empty_label.setVisible(count == 0)
        self.list_widget.setVisible(count > 0)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        self.reload()  # new snapshots were taken since staff last looked

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate_confirm(self) -> None:
        if self._pending == "*":
            self.confirm_text.setText(self.tr("Delete all %n photo(s) for good? This cannot be undone.", "",
                                              len(self._entries)))
            self.confirm_delete_button.setText(self.tr("Yes, delete all"))
        else:
            self.confirm_text.setText(self.tr("Delete this photo for good? This cannot be undone."))
            self.confirm_delete_button.setText(self.tr("Yes, delete it"))

    def _retranslate_side(self) -> None:
        self.side_button.setText(self.tr("Show after") if self._showing_before else self.tr("Show before"))

    def _retranslate(self) -> None:
        self.delete_all_button.setText(self.tr("Delete all"))
        self.empty_label.setText(self.tr("No photos are kept on this kiosk."))
        self.back_button.setText(self.tr("Back to all photos"))
        self.delete_button.setText(self.tr("Delete"))
        self.keep_button.setText(self.tr("Keep"))
        self._retranslate_confirm()
        self._retranslate_side()
        self._show_counts()
        for i, entry in enumerate(self._entries):
            item = self.list_widget.item(i)
            if item is not None:
                item.setText(self._caption(entry, short=True))
        if self._open is not None:
            self.caption.setText(self._caption(self._open, short=False))
