"""The customer's style browser: category chips, tag chips and search over a Model/View grid of thumbnails.

`StyleListModel` reads the repository (PUBLISHED and previewable styles only) and owns nothing else; the
panel turns taps into `style_chosen(code)`, accent-finger toggles into `accent_changed(set)`, the shape and
length picker into `nail_form_changed(NailForm)` and a compare into `compare_requested(first, second)`.

Made for fingers on a counter screen (issue 13): category chips wrap onto more lines instead of hiding behind
a tab bar's scroll arrows; tags scroll sideways by dragging, with a visible scroll bar as the cue that there is
more; every target is at least `TOUCH_MIN` px; a tapped thumbnail is framed, never tinted by Qt's selection
colour. Favourites are the customer's own (kept for this session only, forgotten at the idle reset).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QScrollArea,
    QScroller,
    QVBoxLayout,
    QWidget,
)

from nailmirror_desktop.core.catalog.records import Category, StyleRecord
from nailmirror_desktop.core.catalog.repository import StyleFilter, StyleRepository, StyleSource
from nailmirror_desktop.core.catalog.status import StyleStatus
from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.ui.bridge import Channel
from nailmirror_desktop.ui.shell import i18n, theme
from nailmirror_desktop.ui.tryon.nail_form_picker import NailFormPicker

CodeRole = Qt.ItemDataRole.UserRole + 1
READY, LOADING, UNAVAILABLE = "ready", "loading", "unavailable"  # the catalog, as the empty list explains it
THUMB_SIZE = QSize(104, 70)  # the preview cards are 3:2: a square icon left a third of each tile empty
GRID_SIZE = QSize(124, 134)  # the thumbnail, two lines of text (name, code) and the gaps
GRID_SIZE_EN = QSize(124, 156)  # English names take two lines where Chinese takes one: a line more for them
TOUCH_MIN = 48  # px: the smallest target a fingertip hits reliably
PAGE = 200  # styles read at a time; the next page is read as the list scrolls near its end
ICON_CACHE = 600  # decoded thumbnails kept (~30 kB each): a few screens' worth either way of the one shown
SEARCH_PAUSE_MS = 250  # the list follows the search box once typing pauses, not at every keystroke
NAME_LINES = 2  # the worn style's name under the grid: a longer one ends in "…" (the mirror's card shows it whole)
FAVOURITES = "__favourites__"  # the category chip that shows the customer's favourites
_ROOT = QModelIndex()
ModelIndex = QModelIndex | QPersistentModelIndex


class StyleListModel(QAbstractListModel):
    """Rows are StyleRecords of the customer's view, read a page at a time as the list scrolls (fetchMore).

    The GUI thread never decodes an image: a tile's thumbnail is decoded and scaled on the thread pool the first
    time the view asks for it (the tile shows the grey placeholder meanwhile) and kept in a bounded cache, so a
    5,000-style catalog scrolls without a stall (benchmarks/style_browser.py). The paths of a page's thumbnails
    come with the page, in one query."""

    def __init__(self, repository: StyleRepository | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._repository = repository
        self._rows: list[StyleRecord] = []
        self._row_of: dict[int, int] = {}  # style id → row
        self._paths: dict[int, str] = {}  # style id → its thumbnail's storage path (current version)
        self._icons: OrderedDict[tuple[int, int], QIcon] = OrderedDict()  # least recently used first
        self._loading: set[tuple[int, int]] = set()
        self._more = False
        self._offset = 0  # rows read so far (before the favourites filter)
        self._placeholder: QIcon | None = None
        self._channel = Channel()  # thumbnails decoded off the GUI thread; dropped once the model is detached
        self.category_code: str | None = None
        self.tag_code: str | None = None
        self.text = ""
        self.status: StyleStatus = StyleStatus.PUBLISHED  # the customer's view; staff review pages change it
        self.previewable_only = True
        self.only_codes: frozenset[str] | None = None  # e.g. the customer's favourites; None = no such filter

    def refresh(self) -> None:
        self.beginResetModel()
        self._rows, self._row_of, self._paths = [], {}, {}
        self._more, self._offset = False, 0
        self._append(self._page(0))
        self.endResetModel()

    def canFetchMore(self, parent: ModelIndex = _ROOT) -> bool:  # noqa: N802
        return not parent.isValid() and self._more and self._repository is not None

    def fetchMore(self, parent: ModelIndex = _ROOT) -> None:  # noqa: N802
        if not self.canFetchMore(parent):
            return
        page = self._page(self._offset)
        kept = self._kept(page)
        if kept:
            self.beginInsertRows(_ROOT, len(self._rows), len(self._rows) + len(kept) - 1)
        self._append(page)
        if kept:
            self.endInsertRows()

    def rowCount(self, parent: ModelIndex = _ROOT) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        style = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{display_name(style.name, style.name_en)}\n{style.style_code}"
        if role == Qt.ItemDataRole.DecorationRole:
            return self._icon(style)
        if role == CodeRole:
            return style.style_code
        if role == Qt.ItemDataRole.ToolTipRole:
            return style.name_en or style.name
        return None

    def retranslate(self) -> None:
        """The language changed: every tile's name is read again (the rows carry both)."""
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, 0),
                                  [Qt.ItemDataRole.DisplayRole])

    def detach(self) -> None:
        """The kiosk is shutting down and closes its database: rows already read stay, a thumbnail not yet read
        is the grey placeholder (a last paint after shutdown used to read the closed database and raise), and a
        thumbnail still being decoded is dropped."""
        self._repository = None
        self._more = False
        self._channel.close()

    def style_at(self, row: int) -> StyleRecord:
        return self._rows[row]

    def codes(self) -> list[str]:
        return [s.style_code for s in self._rows]

    def default_code(self) -> str | None:
        if self._repository is None:
            return None
        everyone = StyleFilter(status=StyleStatus.PUBLISHED, previewable_only=True, limit=PAGE)
        rows = self._repository.list_styles(everyone)  # whatever filter the last customer left on
        return next((s.style_code for s in rows if s.source != StyleSource.AI), None)

    def thumbnails_pending(self) -> int:
        """Thumbnails being decoded now (tests and the benchmark wait for none)."""
        return len(self._loading)

    # --- pages ------------------------------------------------------------------------------------------
    def _page(self, offset: int) -> list[StyleRecord]:
        if self._repository is None:
            return []
        query = StyleFilter(status=self.status, previewable_only=self.previewable_only,
                            category_code=self.category_code, tag_code=self.tag_code,
                            text=self.text.strip() or None, limit=PAGE, offset=offset)
        return self._repository.list_styles(query)

    def _kept(self, page: list[StyleRecord]) -> list[StyleRecord]:
        only = self.only_codes
        return page if only is None else [r for r in page if r.style_code in only]

    def _append(self, page: list[StyleRecord]) -> None:
        self._offset += len(page)
        self._more = len(page) == PAGE
        kept = self._kept(page)
        if self._repository is not None:
            self._paths.update(self._repository.thumbnail_paths(kept))
        for style in kept:
            self._row_of[style.id] = len(self._rows)
            self._rows.append(style)

    # --- thumbnails -------------------------------------------------------------------------------------
    def _icon(self, style: StyleRecord) -> QIcon:
        key = (style.id, style.content_version)
        icon = self._icons.get(key)
        if icon is not None:
            self._icons.move_to_end(key)
            return icon
        self._load(style, key)
        return self._grey()

    def _load(self, style: StyleRecord, key: tuple[int, int]) -> None:
        repository, relative = self._repository, self._paths.get(style.id)
        if key in self._loading or repository is None or repository.store is None or relative is None:
            return
        path = str(repository.store.path_of(relative))
        self._loading.add(key)
        self._channel.run_in_background(lambda: _decode_thumbnail(path),
                                        lambda image, error: self._on_decoded(key, image, error))

    def _on_decoded(self, key: tuple[int, int], image: QImage | None, error: BaseException | None) -> None:
        self._loading.discard(key)
        # An unreadable image gets the placeholder, kept: it is not tried again.
        pixmap = self._grey().pixmap(THUMB_SIZE) if error is not None or image is None else QPixmap.fromImage(image)
        icon = QIcon(pixmap)
        # The same pixels when selected: Qt's default selected icon is tinted with the highlight colour, which
        # hid the very colours the customer chose the style for. The frame says "selected" instead.
        icon.addPixmap(pixmap, QIcon.Mode.Selected)
        self._icons[key] = icon
        while len(self._icons) > ICON_CACHE:
            self._icons.popitem(last=False)
        row = self._row_of.get(key[0])
        if row is not None and row < len(self._rows) and self._rows[row].content_version == key[1]:
            index = self.index(row, 0)
            self.dataChanged.emit(index, index, [Qt.ItemDataRole.DecorationRole])

    def _grey(self) -> QIcon:
        if self._placeholder is None:
            empty = QPixmap(THUMB_SIZE)
            empty.fill(Qt.GlobalColor.darkGray)
            self._placeholder = QIcon(empty)
        return self._placeholder


def display_name(name: str, name_en: str) -> str:
    """A style's name in the language on screen: English when it has one (else its Chinese name, never pinyin)."""
    return (name_en or name) if i18n.current_language() == "en" else (name or name_en)


def chip_text(text: str) -> str:
    """A name as a button shows it: "&" is a button's shortcut mark ("Glitter & chrome" showed "Glitter_chrome")."""
    return text.replace("&", "&&")


def _decode_thumbnail(path: str) -> QImage | None:
    """On a pool thread: the tile's image, scaled to fill THUMB_SIZE (QImage, unlike QPixmap, is thread-safe)."""
    image = QImage(path)
    if image.isNull():
        return None
    return image.scaled(THUMB_SIZE, Qt.AspectRatioMode.KeepAspectRatioByExpanding,
                        Qt.TransformationMode.SmoothTransformation)


class StyleBrowser(QWidget):
    style_chosen = Signal(str)
    accent_changed = Signal(object)  # frozenset[Finger]
    nail_form_changed = Signal(object)  # NailForm: the customer's shape and length (nail_form_picker.py)
    compare_requested = Signal(str, str)  # the style on the nails, the one tapped to compare with it

    def __init__(self, repository: StyleRepository | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._repository = repository
        self.model = StyleListModel(repository, self)
        self._categories: list[Category] = []
        self._catalog_state = READY
        self.favourites: set[str] = set()
        self._current = ""
        self._keyboard_up = False
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_PAUSE_MS)
        self._search_timer.timeout.connect(self._refresh)
        self._build()
        self._retranslate()
        self.reload()

    # --- layout -------------------------------------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 8, 4, 4)
        layout.setSpacing(8)
        self.search = QLineEdit()
        self.search.setMinimumHeight(TOUCH_MIN + 8)
        self.search.textChanged.connect(self._on_search_change)
        # Qt's own clear button (setClearButtonEnabled) is a ~12 px icon inside the field: too small for a finger.
        self.search_clear = QPushButton("✕")
        self.search_clear.setObjectName("chip")
        self.search_clear.setFixedSize(TOUCH_MIN + 8, TOUCH_MIN + 8)
        self.search_clear.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a tap keeps the keyboard on the field
        self.search_clear.clicked.connect(self.search.clear)
        self.search_clear.setVisible(False)
        search_row = QHBoxLayout()
        search_row.setSpacing(8)
        search_row.addWidget(self.search, 1)
        search_row.addWidget(self.search_clear)
        # Categories and tags share one strip that scrolls sideways (the bar is the cue that there is more). At
        # 1280×800 in English the categories wrapped onto three lines above a tag row of their own, and the style
        # grid under them was left a strip of cut tiles (78 px): one strip keeps the grid two rows of whole tiles.
        self.category_group = QButtonGroup(self)
        self.category_group.setExclusive(True)
        self.category_group.buttonToggled.connect(self._on_category_toggle)
        self.tag_group = QButtonGroup(self)
        self.tag_group.setExclusive(False)
        self.tag_group.buttonToggled.connect(self._on_tag_toggle)
        self.filter_row = QHBoxLayout()
        self.filter_row.setContentsMargins(0, 0, 0, 0)
        self.filter_row.setSpacing(8)
        self.filter_divider = QFrame()  # between the categories (pick one) and the tags (any number)
        self.filter_divider.setFrameShape(QFrame.Shape.VLine)
        self.filter_divider.setFixedSize(2, TOUCH_MIN - 12)
        self.filter_divider.setStyleSheet(f"background: {theme.MUTED}; border: none;")
        chips = QWidget()
        chips.setLayout(self.filter_row)
        self.filter_strip = QScrollArea()
        self.filter_strip.setWidget(chips)
        self.filter_strip.setWidgetResizable(True)
        self.filter_strip.setFrameShape(QFrame.Shape.NoFrame)
        self.filter_strip.setFixedHeight(TOUCH_MIN + 22)
        self.filter_strip.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.filter_strip.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)  # shown = more to see
        self.filter_strip.setStyleSheet(
            "QScrollBar:horizontal { height: 8px; background: #2d2733; border-radius: 4px; }"
            f"QScrollBar::handle:horizontal {{ background: {theme.MUTED}; border-radius: 4px; min-width: 40px; }}"
            "QScrollBar::add-line:horizontal, QScrollBar::sub-line:horizontal { width: 0; }")
        QScroller.grabGesture(self.filter_strip.viewport(), QScroller.ScrollerGestureType.LeftMouseButtonGesture)
        self.list_view = QListView()
        self.list_view.setObjectName("styleList")
        self.list_view.setModel(self.model)
        self.list_view.setViewMode(QListView.ViewMode.IconMode)
        self.list_view.setIconSize(THUMB_SIZE)
        self.list_view.setGridSize(GRID_SIZE)
        self.list_view.setResizeMode(QListView.ResizeMode.Adjust)
        self.list_view.setMovement(QListView.Movement.Static)
        self.list_view.setWordWrap(True)
        self.list_view.setUniformItemSizes(True)
        self.list_view.setStyleSheet(  # every item has the frame's width, so selecting one moves nothing
            "QListView#styleList::item { border: 3px solid transparent; border-radius: 12px; }"
            "QListView#styleList::item:selected { background: transparent;"
            f" border: 3px solid {theme.ACCENT}; border-radius: 12px; color: {theme.TEXT}; }}")
        QScroller.grabGesture(self.list_view.viewport(), QScroller.ScrollerGestureType.LeftMouseButtonGesture)
        self.list_view.clicked.connect(self._on_style_click)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("muted")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addLayout(search_row)
        layout.addWidget(self.filter_strip)
        layout.addWidget(self.list_view, 1)
        layout.addWidget(self.empty_label)
        # The style worn and its accent fingers: folded away with the chips while the on-screen keyboard is up
        # (set_keyboard_up); squeezed under it, the grid was one row of tiles, cut.
        self.details = QWidget()
        details = QVBoxLayout(self.details)
        details.setContentsMargins(0, 0, 0, 0)
        details.addLayout(self._build_current_row())
        details.addLayout(self._build_accent_row())
        details.addWidget(self.nail_form_picker)
        layout.addWidget(self.details)
        self.set_accent_options(False, frozenset())

    def set_keyboard_up(self, up: bool) -> None:
        """The on-screen keyboard is up (the customer types a search) or went: the category and tag chips and the
        worn style's rows fold away, so the grid keeps rows of whole tiles (two at 1280×800, three at
        1920×1080) for what is typed, and come back as they were (the chosen category still applies)."""
        self.details.setVisible(not up)
        self._keyboard_up = up
        self._fold_chips()  # the chip strip: folded while the keyboard is up
        self._fit_grid()

    def _fold_chips(self) -> None:
        """The category and tag chips fold away while the keyboard is up or the shape and length rows are open:
        those rows need the room, and the grid keeps rows of whole tiles."""
        self.filter_strip.setVisible(not self._keyboard_up and not self.nail_form_picker.toggle.isChecked())

    def _fit_grid(self) -> None:
        """English names take two lines (a taller tile); with the keyboard up that cost a whole row, so there the
        tiles keep Chinese's height and an English name is cut to one line with "…" (its code still shows)."""
        tall = self._english() and not self._keyboard_up
        self.list_view.setWordWrap(tall or not self._english())
        self.list_view.setGridSize(GRID_SIZE_EN if tall else GRID_SIZE)

    def _build_current_row(self) -> QHBoxLayout:
        """The style on the nails: its name leads, its code follows small (staff still read it); beside it the
        favourite heart and the compare button."""
        self.current_name = QLabel("")
        self.current_name.setObjectName("currentName")
        self.current_name.setWordWrap(True)  # an English name takes two lines rather than being cut
        self.current_name.installEventFilter(self)  # its width decides where it is cut (_fit_current_name)
        self.current_name.setVisible(False)
        self.current_code = QLabel("")
        self.current_code.setVisible(False)
        self.current_code.setObjectName("muted")
        self._current_names = ("", "")
        self._shown_name = ""  # the whole name in the language on screen (the label may show it cut)
        names = QVBoxLayout()
        names.setSpacing(0)
        names.addWidget(self.current_name)
        names.addWidget(self.current_code)
        self.favourite_button = QPushButton()
        self.favourite_button.setObjectName("chip")
        self.favourite_button.setCheckable(True)
        self.favourite_button.setMinimumSize(TOUCH_MIN + 16, TOUCH_MIN)
        self.favourite_button.toggled.connect(self._on_favourite_toggle)
        self.compare_button = QPushButton()
        self.compare_button.setObjectName("chip")
        self.compare_button.setCheckable(True)
        self.compare_button.setMinimumHeight(TOUCH_MIN)
        self.compare_button.toggled.connect(self._on_compare_toggle)
        self.nail_form_picker = NailFormPicker()
        self.nail_form_picker.form_changed.connect(self.nail_form_changed)
        row = QHBoxLayout()
        row.addLayout(names, 1)
        row.addWidget(self.nail_form_picker.toggle)  # opens the shape and length rows (below the accents)
        self.nail_form_picker.toggle.toggled.connect(lambda _open: self._fold_chips())
        row.addWidget(self.favourite_button)
        row.addWidget(self.compare_button)
        self._update_current_buttons()
        return row

    def _build_accent_row(self) -> QVBoxLayout:
        self.accent_title = QLabel()
        self.accent_title.setObjectName("muted")
        accent_row = QHBoxLayout()
        self.accent_buttons: dict[Finger, QPushButton] = {}
        for finger in Finger:
            button = QPushButton()
            button.setObjectName("fingerChip")
            button.setCheckable(True)
            button.setMinimumHeight(52)
            button.toggled.connect(self._on_accent_toggle)
            self.accent_buttons[finger] = button
            accent_row.addWidget(button)
        column = QVBoxLayout()
        column.setSpacing(4)
        column.addWidget(self.accent_title)
        column.addLayout(accent_row)
        return column

    def _chip(self, objectName: str = "chip") -> QPushButton:  # noqa: N803 (Qt's word)
        button = QPushButton()
        button.setObjectName(objectName)
        button.setCheckable(True)
        button.setMinimumHeight(TOUCH_MIN)
        return button

    # --- model → view -----------------------------------------------------------------------------------
    def reset_filters(self) -> None:
        """Back to 'All', no tag, no search text, no favourites, no compare (idle reset: a new customer)."""
        for widget in (self.search, self.category_group, self.tag_group, self.compare_button,
                       self.favourite_button):
            widget.blockSignals(True)
        self.search.clear()
        self.search_clear.setVisible(False)
        buttons = self.category_group.buttons()
        if buttons:
            buttons[0].setChecked(True)
        for button in self.tag_group.buttons():
            button.setChecked(False)
        self.compare_button.setChecked(False)
        for widget in (self.search, self.category_group, self.tag_group, self.compare_button,
                       self.favourite_button):
            widget.blockSignals(False)
        self.favourites.clear()
        self.filter_strip.horizontalScrollBar().setValue(0)  # the next customer sees the strip from its start
        self.model.text, self.model.category_code, self.model.tag_code = "", None, None
        self.model.only_codes = None
        self._retranslate_categories()
        self._refresh()

    def default_code(self) -> str | None:
        """The style a new customer's mirror opens with: the newest catalog or staff-made style. Never an AI
        one, even published: it was one customer's own design, and the next customer did not ask for it."""
        return self.model.default_code()

    def reload(self) -> None:
        """Re-read categories, tags and the list (after the catalog loads or staff publish a style)."""
        self._fill_categories()
        self._fill_tags()
        self._refresh()

    def _refresh(self) -> None:
        self._search_timer.stop()  # this refresh reads the search text as it is
        self.model.refresh()
        self._update_empty_state()
        self._select_current()  # a reset model forgets its selection

    def _fill_categories(self) -> None:
        chosen = self.model.category_code
        self._categories = self._repository.categories() if self._repository is not None else []
        self.category_group.blockSignals(True)
        for button in self.category_group.buttons():
            self.category_group.removeButton(button)
            button.hide()
            button.deleteLater()
        # Her favourites lead after "All": the count beside the heart answers her tap without a swipe along the strip
        codes: list[str | None] = [None, FAVOURITES, *(c.code for c in self._categories)]
        for code in codes:
            button = self._chip()
            button.setProperty("category", code)
            self.category_group.addButton(button)
            button.setChecked(code == (FAVOURITES if self.model.only_codes is not None else chosen))
        if self.category_group.checkedButton() is None:
            self.category_group.buttons()[0].setChecked(True)
            self.model.category_code = None
        self.category_group.blockSignals(False)
        self._lay_out_filters()
        self._retranslate_categories()

    def _fill_tags(self) -> None:
        for button in self.tag_group.buttons():
            self.tag_group.removeButton(button)
            button.hide()
            button.deleteLater()
        tags = self._repository.tags() if self._repository is not None else []
        for tag in tags[:16]:
            button = self._chip()
            button.setProperty("tag", tag)
            self.tag_group.addButton(button)
        self._lay_out_filters()
        self._retranslate_tags()

    def _lay_out_filters(self) -> None:
        """The strip in order: the categories, the divider, the tags (each group refilled on its own)."""
        while self.filter_row.count():
            self.filter_row.takeAt(0)
        for button in self.category_group.buttons():
            self.filter_row.addWidget(button)
        tags = self.tag_group.buttons()
        self.filter_row.addWidget(self.filter_divider, 0, Qt.AlignmentFlag.AlignVCenter)
        self.filter_divider.setVisible(bool(tags))
        for button in tags:
            self.filter_row.addWidget(button)
        self.filter_row.addStretch(1)

    def show_current(self, code: str, name: str = "", name_en: str = "") -> None:
        self._current = code
        self._current_names = (name, name_en)
        self.current_code.setText(code)
        self.current_code.setVisible(bool(code))
        self._retranslate_current()
        self._update_current_buttons()
        self._select_current()

    def _select_current(self) -> None:
        """Frame the tile of the style on the nails, and no other: an AI design (not in the grid) or no style
        leaves no tile framed, where the last tapped one stayed highlighted."""
        row = next((r for r in range(self.model.rowCount()) if self.model.style_at(r).style_code == self._current),
                   None)
        selection = self.list_view.selectionModel()
        if row is None or not self._current:
            selection.clearSelection()
            self.list_view.setCurrentIndex(QModelIndex())
        else:
            self.list_view.setCurrentIndex(self.model.index(row, 0))

    def _update_current_buttons(self) -> None:
        for button in (self.favourite_button, self.compare_button):
            button.setVisible(bool(self._current))
        self.favourite_button.blockSignals(True)
        self.favourite_button.setChecked(self._current in self.favourites)
        self.favourite_button.blockSignals(False)
        self.favourite_button.setText("♥" if self._current in self.favourites else "♡")

    def _retranslate_current(self) -> None:
        zh, en = self._current_names
        name = (en or zh) if self._english() else (zh or en)
        self._shown_name = name
        self._fit_current_name()
        self.current_name.setVisible(bool(name) and bool(self.current_code.text()))

    def _fit_current_name(self) -> None:
        """The worn style's name in at most NAME_LINES lines at the label's width, cut with "…" past that: a three-
        line English name took the rows the grid needs at 1280×800."""
        label, name = self.current_name, self._shown_name
        metrics, width = label.fontMetrics(), label.width()

        def fits(text: str) -> bool:
            box = metrics.boundingRect(QRect(0, 0, width, 10_000), Qt.TextFlag.TextWordWrap, text)
            return box.height() <= NAME_LINES * metrics.lineSpacing()

        if width <= 0 or fits(name):
            label.setText(name)
            return
        low, high = 0, len(name)  # the longest start of the name that fits with "…" after it
        while low < high:
            middle = (low + high + 1) // 2
            if fits(name[:middle].rstrip() + "…"):
                low = middle
            else:
                high = middle - 1
        label.setText(name[:low].rstrip() + "…")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.current_name and event.type() == QEvent.Type.Resize:
            self._fit_current_name()
        return super().eventFilter(watched, event)

    def set_accent_options(self, available: bool, chosen: frozenset[Finger]) -> None:
        for finger, button in self.accent_buttons.items():
            button.blockSignals(True)
            button.setEnabled(available)
            button.setChecked(finger in chosen)
            button.blockSignals(False)

    def set_catalog_state(self, state: str) -> None:
        """LOADING while the first start imports the starter catalog (an empty list then means "wait", not "no
        match"), UNAVAILABLE when that failed, READY otherwise."""
        self._catalog_state = state
        self._retranslate_empty()
        self._update_empty_state()

    def _update_empty_state(self) -> None:
        self.empty_label.setVisible(self.model.rowCount() == 0)

    def visible_tile_count(self) -> int:
        """Tiles shown whole without scrolling (what a customer sees at a glance)."""
        viewport = self.list_view.viewport().rect()
        return sum(1 for row in range(self.model.rowCount())
                   if viewport.contains(self.list_view.visualRect(self.model.index(row, 0))))

    # --- view → model / signals -------------------------------------------------------------------------
    def _on_search_change(self, text: str) -> None:
        self.search_clear.setVisible(bool(text))
        self.model.text = text
        self._search_timer.start()  # restarted by every keystroke: one query once typing pauses

    def apply_search_now(self) -> None:
        """Run a search that is waiting for typing to pause (tests; a search key)."""
        if self._search_timer.isActive():
            self._search_timer.stop()
            self._refresh()

    def _on_category_toggle(self, button: QAbstractButton, checked: bool) -> None:
        if not checked:
            return
        self.filter_strip.ensureWidgetVisible(button)  # a chip tapped at the strip's edge comes wholly into view
        code = button.property("category")
        if code == FAVOURITES:
            self.model.category_code, self.model.only_codes = None, frozenset(self.favourites)
        else:
            self.model.category_code, self.model.only_codes = code, None
        self._retranslate_empty()
        self._refresh()

    def _on_tag_toggle(self, button: QAbstractButton, checked: bool) -> None:
        if checked:
            for other in self.tag_group.buttons():
                if other is not button:
                    other.blockSignals(True)
                    other.setChecked(False)
                    other.blockSignals(False)
        if checked:
            self.filter_strip.ensureWidgetVisible(button)
        self.model.tag_code = button.property("tag").code if checked else None
        self._refresh()

    def _on_style_click(self, index: QModelIndex) -> None:
        code = index.data(CodeRole)
        if self.compare_button.isChecked() and self._current and code != self._current:
            self.compare_button.setChecked(False)
            self.compare_requested.emit(self._current, code)
            return
        self.style_chosen.emit(code)

    def _on_favourite_toggle(self, checked: bool) -> None:
        if not self._current:
            return
        if checked:
            self.favourites.add(self._current)
        else:
            self.favourites.discard(self._current)
        self._update_current_buttons()
        if self.model.only_codes is not None:
            self.model.only_codes = frozenset(self.favourites)
            self._refresh()
        self._retranslate_categories()

    def _on_compare_toggle(self, _checked: bool) -> None:
        self._retranslate_compare()

    def _on_accent_toggle(self, _checked: bool) -> None:
        chosen = frozenset(f for f, b in self.accent_buttons.items() if b.isChecked())
        self.accent_changed.emit(chosen)

    # --- language -----------------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _english(self) -> bool:
        return i18n.current_language() == "en"  # category and tag names come from the database in both languages

    def _retranslate(self) -> None:
        self.search.setPlaceholderText(self.tr("Search by name or style code"))
        self._retranslate_empty()
        self.accent_title.setText(self.tr("Accent nails (tap a finger)"))
        self.favourite_button.setToolTip(self.tr("Save to my favourites"))
        names = {
            Finger.THUMB: self.tr("Thumb"), Finger.INDEX: self.tr("Index"), Finger.MIDDLE: self.tr("Middle"),
            Finger.RING: self.tr("Ring"), Finger.PINKY: self.tr("Pinky"),
        }
        for finger, button in self.accent_buttons.items():
            button.setText(names[finger])
        self._retranslate_categories()
        self._retranslate_tags()
        self._retranslate_current()
        self._retranslate_compare()
        self._fit_grid()
        self.model.retranslate()

    def _retranslate_empty(self) -> None:
        if self._catalog_state == LOADING:
            text = self.tr("Setting up the style catalog for the first time… one moment.")
        elif self._catalog_state == UNAVAILABLE:
            text = self.tr("The style catalog could not be loaded. Please ask our staff.")
        elif self.model.only_codes is not None:
            text = self.tr("No favourites yet: tap ♡ beside a style you like.")
        else:
            text = self.tr("No styles match. Try another word or category.")
        self.empty_label.setText(text)

    def _retranslate_compare(self) -> None:
        self.compare_button.setText(self.tr("Tap a style…") if self.compare_button.isChecked() else
                                    self.tr("Compare"))

    def _retranslate_categories(self) -> None:
        english = self._english()
        names = {c.code: (c.name_en if english and c.name_en else c.name_zh) for c in self._categories}
        for button in self.category_group.buttons():
            code = button.property("category")
            if code is None:
                button.setText(self.tr("All"))
            elif code == FAVOURITES:
                button.setText(self.tr("♥ Favourites (%1)").replace("%1", str(len(self.favourites))))
            else:
                button.setText(chip_text(names.get(code, code)))

    def _retranslate_tags(self) -> None:
        english = self._english()
        for button in self.tag_group.buttons():
            tag = button.property("tag")
            button.setText(chip_text("#" + (tag.name_en if english and tag.name_en else tag.name_zh)))
