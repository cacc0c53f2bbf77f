"""The customer's style browser: category tabs, tag chips and search over a Model/View list of thumbnails.

`StyleListModel` reads the repository (PUBLISHED and previewable styles only) and owns nothing else; the
panel turns taps into `style_chosen(code)` and accent-finger toggles into `accent_changed(set)`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractListModel, QEvent, QModelIndex, QObject, QPersistentModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QScrollArea,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from nailmirror_desktop.core.catalog.records import Category, StyleRecord
from nailmirror_desktop.core.catalog.repository import AssetType, StyleFilter, StyleRepository, StyleSource
from nailmirror_desktop.core.catalog.status import StyleStatus
from nailmirror_desktop.core.fingers import Finger
from nailmirror_desktop.ui.shell import i18n

CodeRole = Qt.ItemDataRole.UserRole + 1
READY, LOADING, UNAVAILABLE = "ready", "loading", "unavailable"  # the catalog, as the empty list explains it
THUMB_SIZE = QSize(104, 104)
_ROOT = QModelIndex()
ModelIndex = QModelIndex | QPersistentModelIndex


class StyleListModel(QAbstractListModel):
    """Rows are StyleRecords of the customer's view; thumbnails are read once per style and kept."""

    def __init__(self, repository: StyleRepository | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._repository = repository
        self._rows: list[StyleRecord] = []
        self._icons: dict[tuple[int, int], QIcon] = {}
        self.category_code: str | None = None
        self.tag_code: str | None = None
        self.text = ""
        self.status: StyleStatus = StyleStatus.PUBLISHED  # the customer's view; staff review pages change it
        self.previewable_only = True

    def refresh(self) -> None:
        query = StyleFilter(status=self.status, previewable_only=self.previewable_only,
                            category_code=self.category_code, tag_code=self.tag_code,
                            text=self.text.strip() or None, limit=200)
        self.beginResetModel()
        self._rows = self._repository.list_styles(query) if self._repository is not None else []
        self.endResetModel()

    def rowCount(self, parent: ModelIndex = _ROOT) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        style = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{style.name}\n{style.style_code}"
        if role == Qt.ItemDataRole.DecorationRole:
            return self._icon(style)
        if role == CodeRole:
            return style.style_code
        if role == Qt.ItemDataRole.ToolTipRole:
            return style.name_en or style.name
        return None

    def style_at(self, row: int) -> StyleRecord:
        return self._rows[row]

    def codes(self) -> list[str]:
        return [s.style_code for s in self._rows]

    def default_code(self) -> str | None:
        if self._repository is None:
            return None
        everyone = StyleFilter(status=StyleStatus.PUBLISHED, previewable_only=True, limit=200)
        rows = self._repository.list_styles(everyone)  # whatever filter the last customer left on
        return next((s.style_code for s in rows if s.source != StyleSource.AI), None)

    def _icon(self, style: StyleRecord) -> QIcon:
        key = (style.id, style.content_version)
        if key not in self._icons:
            self._icons[key] = QIcon(self._thumbnail(style))
        return self._icons[key]

    def _thumbnail(self, style: StyleRecord) -> QPixmap:
        repository = self._repository
        store = repository.store if repository is not None else None
        for asset_type in (AssetType.THUMBNAIL, AssetType.COVER):
            assets = repository.assets(style.id, asset_type=asset_type) if repository is not None else []
            if assets and store is not None:
                pixmap = QPixmap(str(store.path_of(assets[0].storage_path)))
                if not pixmap.isNull():
                    return pixmap.scaled(THUMB_SIZE, Qt.AspectRatioMode.KeepAspectRatioByExpanding,
                                         Qt.TransformationMode.SmoothTransformation)
        empty = QPixmap(THUMB_SIZE)
        empty.fill(Qt.GlobalColor.darkGray)
        return empty


class StyleBrowser(QWidget):
    style_chosen = Signal(str)
    accent_changed = Signal(object)  # frozenset[Finger]

    def __init__(self, repository: StyleRepository | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._repository = repository
        self.model = StyleListModel(repository, self)
        self._categories: list[Category] = []
        self._catalog_state = READY
        self._build()
        self._retranslate()
        self.reload()

    # --- layout -------------------------------------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 8, 4, 4)
        layout.setSpacing(10)
        self.search = QLineEdit()
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._on_search_change)
        self.category_tabs = QTabBar()
        self.category_tabs.setExpanding(False)
        self.category_tabs.setDrawBase(False)
        self.category_tabs.currentChanged.connect(self._on_category_change)
        self.tag_row = QHBoxLayout()
        self.tag_row.setSpacing(8)
        self.tag_group = QButtonGroup(self)
        self.tag_group.setExclusive(False)
        self.tag_group.buttonToggled.connect(self._on_tag_toggle)
        tags = QWidget()
        tags.setLayout(self.tag_row)
        tag_scroll = QScrollArea()
        tag_scroll.setWidget(tags)
        tag_scroll.setWidgetResizable(True)
        tag_scroll.setFixedHeight(64)
        tag_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        tag_scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list_view = QListView()
        self.list_view.setObjectName("styleList")
        self.list_view.setModel(self.model)
        self.list_view.setViewMode(QListView.ViewMode.IconMode)
        self.list_view.setIconSize(THUMB_SIZE)
        self.list_view.setGridSize(QSize(124, 152))
        self.list_view.setResizeMode(QListView.ResizeMode.Adjust)
        self.list_view.setMovement(QListView.Movement.Static)
        self.list_view.setWordWrap(True)
        self.list_view.setUniformItemSizes(True)
        self.list_view.clicked.connect(self._on_style_click)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("muted")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # The style on the nails: its name leads, its code follows small (staff still read it).
        self.current_name = QLabel("")
        self.current_name.setObjectName("title")
        self.current_name.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.current_name.setVisible(False)
        self.current_code = QLabel("")
        self.current_code.setVisible(False)
        self.current_code.setObjectName("muted")
        self.current_code.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._current_names = ("", "")
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
        layout.addWidget(self.search)
        layout.addWidget(self.category_tabs)
        layout.addWidget(tag_scroll)
        layout.addWidget(self.list_view, 1)
        layout.addWidget(self.empty_label)
        layout.addWidget(self.current_name)
        layout.addWidget(self.current_code)
        layout.addWidget(self.accent_title)
        layout.addLayout(accent_row)
        self.set_accent_options(False, frozenset())

    # --- model → view -----------------------------------------------------------------------------------
    def reset_filters(self) -> None:
        """Back to 'All', no tag, no search text (idle reset)."""
        for widget in (self.search, self.category_tabs, self.tag_group):
            widget.blockSignals(True)
        self.search.clear()
        self.category_tabs.setCurrentIndex(0)
        for button in self.tag_group.buttons():
            button.setChecked(False)
        for widget in (self.search, self.category_tabs, self.tag_group):
            widget.blockSignals(False)
        self.model.text, self.model.category_code, self.model.tag_code = "", None, None
        self.model.refresh()
        self._update_empty_state()

    def default_code(self) -> str | None:
        """The style a new customer's mirror opens with: the newest catalog or staff-made style. Never an AI
        one, even published: it was one customer's own design, and the next customer did not ask for it."""
        return self.model.default_code()

    def reload(self) -> None:
        """Re-read categories, tags and the list (after the catalog loads or staff publish a style)."""
        self._fill_categories()
        self._fill_tags()
        self.model.refresh()
        self._update_empty_state()

    def _fill_categories(self) -> None:
        self._categories = self._repository.categories() if self._repository is not None else []
        self.category_tabs.blockSignals(True)
        while self.category_tabs.count():
            self.category_tabs.removeTab(0)
        self.category_tabs.addTab("")
        for _category in self._categories:
            self.category_tabs.addTab("")
        self.category_tabs.blockSignals(False)
        self._retranslate_categories()

    def _fill_tags(self) -> None:
        for button in self.tag_group.buttons():
            self.tag_group.removeButton(button)
            button.deleteLater()
        tags = self._repository.tags() if self._repository is not None else []
        for tag in tags[:16]:
            button = QPushButton()
            button.setObjectName("chip")
            button.setCheckable(True)
            button.setProperty("tag", tag)
            self.tag_group.addButton(button)
            self.tag_row.addWidget(button)
        self.tag_row.addStretch(1)
        self._retranslate_tags()

    def show_current(self, code: str, name: str = "", name_en: str = "") -> None:
        self._current_names = (name, name_en)
        self.current_code.setText(code)
        self.current_code.setVisible(bool(code))
        self._retranslate_current()

    def _retranslate_current(self) -> None:
        zh, en = self._current_names
        name = (en or zh) if self._english() else (zh or en)
        self.current_name.setText(name)
        self.current_name.setVisible(bool(name) and bool(self.current_code.text()))

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

    def _retranslate_empty(self) -> None:
        if self._catalog_state == LOADING:
            text = self.tr("Setting up the style catalog for the first time… one moment.")
        elif self._catalog_state == UNAVAILABLE:
            text = self.tr("The style catalog could not be loaded. Please ask our staff.")
        else:
            text = self.tr("No styles match. Try another word or category.")
        self.empty_label.setText(text)

    # --- view → model / signals -------------------------------------------------------------------------
    def _on_search_change(self, text: str) -> None:
        self.model.text = text
        self.model.refresh()
        self._update_empty_state()

    def _on_category_change(self, index: int) -> None:
        self.model.category_code = self._categories[index - 1].code if index > 0 else None
        self.model.refresh()
        self._update_empty_state()

    def _on_tag_toggle(self, button: QAbstractButton, checked: bool) -> None:
        if checked:
            for other in self.tag_group.buttons():
                if other is not button:
                    other.blockSignals(True)
                    other.setChecked(False)
                    other.blockSignals(False)
        self.model.tag_code = button.property("tag").code if checked else None
        self.model.refresh()
        self._update_empty_state()

    def _on_style_click(self, index: QModelIndex) -> None:
        self.style_chosen.emit(index.data(CodeRole))

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
        names = {
            Finger.THUMB: self.tr("Thumb"), Finger.INDEX: self.tr("Index"), Finger.MIDDLE: self.tr("Middle"),
            Finger.RING: self.tr("Ring"), Finger.PINKY: self.tr("Pinky"),
        }
        for finger, button in self.accent_buttons.items():
            button.setText(names[finger])
        self._retranslate_categories()
        self._retranslate_tags()
        self._retranslate_current()

    def _retranslate_categories(self) -> None:
        if self.category_tabs.count() == 0:
            return
        self.category_tabs.setTabText(0, self.tr("All"))
        english = self._english()
        for i, category in enumerate(self._categories, start=1):
            self.category_tabs.setTabText(i, (category.name_en if english and category.name_en else category.name_zh))

    def _retranslate_tags(self) -> None:
        english = self._english()
        for button in self.tag_group.buttons():
            tag = button.property("tag")
            button.setText("#" + (tag.name_en if english and tag.name_en else tag.name_zh))
