"""Choosing style folders to import by touch, in the kiosk's own widgets and language (no native file dialog).

It opens on what staff most often bring: the style folders found on inserted USB drives and other removable
media, then those drives and the kiosk account's home folder to browse. Rows are large (64 px), with Back (the
previous view) and Up (the parent folder). "Import" takes the folder shown: a style folder (what `nailmirror
styles import` reads: core/catalog/content.py) imports as one style; a folder of style folders imports them all.

Which volumes count as removable (`removable_volumes`, fed QStorageInfo.mountedVolumes() by `mounted_volumes`,
or any list in tests): ready ones mounted where desktops mount USB media — /media/…, /run/media/<user>/… on
Linux, /Volumes/… on macOS — and on Windows every drive letter except the system drive. On Linux the
/media/* and /run/media/*/* folders are looked at too, for a mount Qt did not report. The search for style
folders on them is bounded (a few levels deep, a few hundred folders) and runs off the GUI thread.
"""

from __future__ import annotations

import os
import string
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from nailmirror_desktop.core.catalog.content import TEXTURE_SLOTS
from nailmirror_desktop.ui.bridge import RunInBackground, run_in_background

ROW_HEIGHT = 64
SEARCH_DEPTH = 3  # drive root / collection / style: deeper folders are reached by browsing
SEARCH_LIMIT = 400  # folders looked at per volume, so a full backup drive does not keep staff waiting


@dataclass(frozen=True)
class Volume:
    """A mounted volume as QStorageInfo reports it."""

    root: Path
    name: str = ""
    ready: bool = True


@dataclass(frozen=True)
class Importable:
    """A folder the import can take: one style folder (styles == 1, is_style) or a folder holding `styles`."""

    path: Path
    styles: int
    is_style: bool
    volume: str = ""


def is_style_folder(path: Path) -> bool:
    """A folder with at least one texture file (nail.png, accent.png or a finger's): what the import reads."""
    try:
        return path.is_dir() and any((path / f"{slot}.png").is_file() for slot in TEXTURE_SLOTS)
    except OSError:
        return False


def subfolders(path: Path) -> list[Path]:
    """The visible folders directly in `path`, by name (an unreadable folder has none)."""
    try:
        entries = [p for p in path.iterdir() if not p.name.startswith(".") and p.is_dir()]
    except OSError:
        return []
    return sorted(entries, key=lambda p: p.name.casefold())


def style_folders_in(path: Path) -> list[Path]:
    """What importing `path` imports: itself when it is a style folder, else the style folders directly in it."""
    if is_style_folder(path):
        return [path]
    return [p for p in subfolders(path) if is_style_folder(p)]


def find_importable(root: Path, *, depth: int = SEARCH_DEPTH, limit: int = SEARCH_LIMIT,
                    volume: str = "") -> list[Importable]:
    """The style folders and folders of style folders under `root`, shallowest first (breadth-first, at most
    `depth` levels and `limit` folders): a folder holding two or more style folders is one row that imports them
    all; a lone style folder is its own row. Style folders are not looked into; other folders are."""
    found: list[Importable] = []
    level = [root]
    seen = 0
    for _ in range(depth + 1):
        deeper: list[Path] = []
        for folder in level:
            seen += 1
            if seen > limit:
                return found
            if is_style_folder(folder):
                found.append(Importable(folder, 1, True, volume))
                continue
            children = subfolders(folder)
            styles = [c for c in children if is_style_folder(c)]
            if len(styles) == 1:
                found.append(Importable(styles[0], 1, True, volume))
            elif styles:
                found.append(Importable(folder, len(styles), False, volume))
            deeper.extend(c for c in children if c not in styles)
        level = deeper
    return found


def removable_volumes(volumes: Iterable[Volume], *, platform: str = sys.platform,
                      system_drive: str | None = None, extra_roots: Iterable[Path] = ()) -> list[Volume]:
    """The ready volumes that are removable media (see the module doc), each once, in the order given, then the
    `extra_roots` (folders found under /media and /run/media) not among them."""
    system = (system_drive or os.environ.get("SYSTEMDRIVE", "C:")).rstrip("\\/").upper()
    chosen: list[Volume] = []
    for volume in volumes:
        if not volume.ready or not _removable_root(volume.root, platform, system):
            continue
        if all(v.root != volume.root for v in chosen):
            chosen.append(volume)
    for root in extra_roots:
        if root.is_dir() and all(v.root != root for v in chosen):
            chosen.append(Volume(root, root.name))
    return chosen


def _removable_root(root: Path, platform: str, system_drive: str) -> bool:
    text = str(root).replace("\\", "/")
    if platform.startswith("win"):
        drive = text.rstrip("/").upper()
        return len(drive) == 2 and drive[1] == ":" and drive[0] in string.ascii_uppercase and drive != system_drive
    if platform == "darwin":
        return text.startswith("/Volumes/")
    return text.startswith(("/media/", "/run/media/"))


def linux_media_roots(media: Path = Path("/media"), run_media: Path = Path("/run/media")) -> list[Path]:
    """/media/* (and the /media/<user>/* that Ubuntu uses) and /run/media/*/*: where USB media are mounted."""
    roots: list[Path] = []
    for folder in subfolders(media):
        inner = subfolders(folder)
        if inner and not os.path.ismount(folder):  # /media/<user>/<LABEL>
            roots.extend(inner)
        else:
            roots.append(folder)
    for user in subfolders(run_media):
        roots.extend(subfolders(user))
    return roots


def mounted_volumes() -> list[Volume]:
    """The removable volumes mounted now (QStorageInfo.mountedVolumes(), and on Linux /media and /run/media)."""
    from PySide6.QtCore import QStorageInfo

    volumes = [Volume(Path(info.rootPath()), info.displayName() or info.name(), info.isValid() and info.isReady())
               for info in QStorageInfo.mountedVolumes()]
    extra = linux_media_roots() if sys.platform.startswith("linux") else []
    return removable_volumes(volumes, extra_roots=extra)


def find_on_volumes(volumes: Iterable[Volume]) -> list[Importable]:
    """Everything importable on `volumes` (blocking: run off the GUI thread)."""
    return [item for volume in volumes for item in find_importable(volume.root, volume=volume.name)]


def import_failure_text(folder: str, error: BaseException) -> str:
    """Why one folder was not imported, in one line: the reason in the UI's language, then the rule the style
    domain gave (file names and limits, never file contents) without the folder's long path."""
    code = str(getattr(error, "code", "") or (error.args[0] if error.args else ""))
    detail = str(getattr(error, "detail", "") or "").replace(str(Path(folder)) + os.sep, "")
    detail = detail.replace(str(Path(folder)), "").strip(" :")
    reasons = {
        "STYLE_FOLDER_INVALID": QCoreApplication.translate("FolderChooser", "not a style folder the kiosk can read"),
        "NO_CATALOG": QCoreApplication.translate("FolderChooser", "the style catalog is not open"),
    }
    reason = reasons.get(code) or code or type(error).__name__
    line = f"{reason} ({detail})" if detail else reason
    return " ".join(line.split())[:300]


class FolderChooser(QDialog):
    """The touch folder chooser. `chosen` carries the style folders to import (list of str paths)."""

    chosen = Signal(list)

    def __init__(self, parent: QWidget | None = None, *, volumes: Callable[[], list[Volume]] = mounted_volumes,
                 run: RunInBackground = run_in_background, home: Path | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("folderChooser")
        self.setModal(True)
        self._volumes = volumes
        self._run = run
        self._home = home if home is not None else Path.home()
        self._current: Path | None = None  # None: the start view (drives and what was found on them)
        self._history: list[Path | None] = []
        self._found: list[Importable] | None = None
        self._drives: list[Volume] = []
        self._scan_token = 0
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        self.title = QLabel()
        self.title.setObjectName("title")
        self.where = QLabel()
        self.where.setObjectName("muted")
        self.where.setWordWrap(True)
        nav = QHBoxLayout()
        self.back_button = QPushButton()
        self.up_button = QPushButton()
        self.start_button = QPushButton()
        for button in (self.back_button, self.up_button, self.start_button):
            button.setMinimumHeight(ROW_HEIGHT)
            nav.addWidget(button)
        nav.addStretch(1)
        self.back_button.clicked.connect(self.go_back)
        self.up_button.clicked.connect(self.go_up)
        self.start_button.clicked.connect(self.show_drives)
        self.rows = QListWidget()
        self.rows.setObjectName("folderRows")
        self.rows.setStyleSheet("QListWidget#folderRows { font-size: 18px; }")  # read at arm's length on a counter
        self.rows.setUniformItemSizes(True)
        self.rows.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        self.rows.itemClicked.connect(self._on_row)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        actions = QHBoxLayout()
        self.cancel_button = QPushButton()
        self.import_button = QPushButton()
        self.import_button.setObjectName("primary")
        for button in (self.cancel_button, self.import_button):
            button.setMinimumHeight(ROW_HEIGHT)
        self.cancel_button.clicked.connect(self.reject)
        self.import_button.clicked.connect(self._import)
        actions.addWidget(self.summary, 1)
        actions.addWidget(self.cancel_button)
        actions.addWidget(self.import_button)
        layout.addWidget(self.title)
        layout.addWidget(self.where)
        layout.addLayout(nav)
        layout.addWidget(self.rows, 1)
        layout.addLayout(actions)
        self._retranslate()
        self.open_folder(None, remember=False)

    # --- navigation ------------------------------------------------------------------------------------------
    @property
    def current(self) -> Path | None:
        return self._current

    def open_folder(self, folder: Path | None, *, remember: bool = True) -> None:
        if remember and folder != self._current:
            self._history.append(self._current)
        self._current = folder
        if folder is None:
            self._scan()
        self._show()

    def go_back(self) -> None:
        if self._history:
            self._current = self._history.pop()
            if self._current is None:
                self._scan()
            self._show()

    def go_up(self) -> None:
        folder = self._current
        if folder is None:
            return
        at_top = folder.parent == folder or any(folder == v.root for v in self._drives) or folder == self._home
        self.open_folder(None if at_top else folder.parent)

    def show_drives(self) -> None:
        """The start view; tapped there, it looks at the drives again (a stick inserted meanwhile)."""
        if self._current is None:
            self._scan()
            self._show()
        else:
            self.open_folder(None)

    def _scan(self) -> None:
        """The drives now, and the search on them off the GUI thread; the start view fills in when it is done."""
        self._scan_token += 1
        token = self._scan_token
        self._found = None
        self._drives = self._volumes()
        drives = list(self._drives)
        self._run(lambda: find_on_volumes(drives), lambda found, error: self._on_found(token, found, error))

    def _on_found(self, token: int, found: list[Importable] | None, error: BaseException | None) -> None:
        if token != self._scan_token:
            return
        self._found = found or []
        if self._current is None:
            self._show()

    # --- the rows ---------------------------------------------------------------------------------------------
    def _show(self) -> None:
        self.rows.clear()
        if self._current is None:
            self._show_start()
        else:
            self._show_folder(self._current)
        self.back_button.setEnabled(bool(self._history))
        self.up_button.setEnabled(self._current is not None)
        styles = style_folders_in(self._current) if self._current is not None else []
        self._to_import = styles
        self.import_button.setEnabled(bool(styles))
        if self._current is None:
            self.summary.setText(self.tr("Open a folder, then import it."))
        elif not styles:
            self.summary.setText(self.tr("No style here: a style folder holds nail.png (and style.json)."))
        elif styles == [self._current]:
            self.summary.setText(self.tr("This is a style folder."))
        else:
            self.summary.setText(self.tr("%n style folder(s) here.", "", len(styles)))
        self.import_button.setText(self.tr("Import %n style(s)", "", len(styles)) if styles else self.tr("Import"))

    def _show_start(self) -> None:
        self.where.setText(self.tr("USB drives and folders"))
        self._heading(self.tr("Styles found on USB drives"))
        if self._found is None:
            self._note(self.tr("Looking at the drives…"))
        elif not self._found:
            self._note(self.tr("No style folders found on a USB drive.") if self._drives else
                       self.tr("No USB drive found. Insert one, then tap USB drives."))
        for item in self._found or []:
            text = item.path.name or str(item.path)
            detail = self.tr("a style") if item.is_style else self.tr("%n style(s)", "", item.styles)
            self._row(f"{text}  ·  {detail}" + (f"  ·  {item.volume}" if item.volume else ""), item.path)
        self._heading(self.tr("Drives and folders"))
        for volume in self._drives:
            self._row(self.tr("USB drive: %1").replace("%1", volume.name or str(volume.root)), volume.root)
        self._row(self.tr("This kiosk's home folder"), self._home)

    def _show_folder(self, folder: Path) -> None:
        self.where.setText(str(folder))
        if is_style_folder(folder):
            files = sorted(p.name for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
            self._note(self.tr("Files: %1").replace("%1", ", ".join(files)))
        children = subfolders(folder)
        for child in children:
            mark = self.tr("  ·  a style") if is_style_folder(child) else ""
            self._row(child.name + mark, child)
        if not children and not is_style_folder(folder):
            self._note(self.tr("This folder has no folders in it."))

    def _row(self, text: str, path: Path) -> None:
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, str(path))
        item.setSizeHint(QSize(0, ROW_HEIGHT))
        self.rows.addItem(item)

    def _note(self, text: str) -> None:
        item = QListWidgetItem(text)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)  # readable, not selectable: it opens nothing
        item.setSizeHint(QSize(0, ROW_HEIGHT))
        self.rows.addItem(item)

    def _heading(self, text: str) -> None:
        item = QListWidgetItem(text)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        font = item.font()
        font.setBold(True)
        item.setFont(font)
        item.setSizeHint(QSize(0, ROW_HEIGHT - 16))
        self.rows.addItem(item)

    def row_texts(self) -> list[str]:
        return [self.rows.item(i).text() for i in range(self.rows.count())]

    def row_for(self, path: Path) -> QListWidgetItem | None:
        for i in range(self.rows.count()):
            if self.rows.item(i).data(Qt.ItemDataRole.UserRole) == str(path):
                return self.rows.item(i)
        return None

    def _on_row(self, item: QListWidgetItem) -> None:
        path = item.data(Qt.ItemDataRole.UserRole)
        if path:
            self.open_folder(Path(path))

    def _import(self) -> None:
        if self._to_import:
            self.chosen.emit([str(p) for p in self._to_import])
            self.accept()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange and hasattr(self, "rows"):
            self._retranslate()
            self._show()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.setWindowTitle(self.tr("Import styles"))
        self.title.setText(self.tr("Import styles"))
        self.back_button.setText(self.tr("Back"))
        self.up_button.setText(self.tr("Up one folder"))
        self.start_button.setText(self.tr("USB drives"))
        self.cancel_button.setText(self.tr("Cancel"))
