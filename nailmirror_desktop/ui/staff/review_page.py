"""Review: styles by status with their images; approve, reject with a reason, publish, take off shelf, send
back to draft; import a style folder; set or clear the store's price (any style, HQ's too: a price is the
store's own). Every decision goes through the repository (audit log written there); the style's trail is shown
as sentences at the store's local time, newest first (audit_text.py)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QModelIndex, QRegularExpression, Qt, Signal
from PySide6.QtGui import QPixmap, QRegularExpressionValidator
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from nailmirror_desktop.core.catalog.errors import StyleError
from nailmirror_desktop.core.catalog.price import DEFAULT_CURRENCY, currency, format_amount, format_price, parse_price
from nailmirror_desktop.core.catalog.records import AuditEntry, StyleRecord
from nailmirror_desktop.core.catalog.repository import AssetType, StyleFilter, StyleRepository
from nailmirror_desktop.core.catalog.status import StyleStatus
from nailmirror_desktop.core.config import FALLBACK_TIME_ZONE
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.shell.messages import style_status_text
from nailmirror_desktop.ui.staff.audit_text import audit_sentence
from nailmirror_desktop.ui.staff.folder_chooser import FolderChooser
from nailmirror_desktop.ui.staff.touch_controls import TOUCH_PX
from nailmirror_desktop.ui.tryon.style_browser import THUMB_SIZE, CodeRole, StyleListModel

REVIEW_STATUSES = (StyleStatus.PENDING_REVIEW, StyleStatus.DRAFT, StyleStatus.PUBLISHED, StyleStatus.OFF_SHELF,
                   StyleStatus.REJECTED)
# button → (target status, the status it must come from)
ACTIONS = {
    "submit": (StyleStatus.PENDING_REVIEW, StyleStatus.DRAFT),
    "approve": (StyleStatus.PUBLISHED, StyleStatus.PENDING_REVIEW),
    "reject": (StyleStatus.REJECTED, StyleStatus.PENDING_REVIEW),
    "publish": (StyleStatus.PUBLISHED, StyleStatus.OFF_SHELF),
    "off_shelf": (StyleStatus.OFF_SHELF, StyleStatus.PUBLISHED),
    "revise": (StyleStatus.DRAFT, None),
}
ACTOR = "staff"


class ReviewPage(QWidget):
    catalog_changed = Signal()
    import_requested = Signal(str)  # one folder
    import_folders_requested = Signal(list)  # style folders chosen together (a folder of style folders)
    folder_chooser: FolderChooser | None = None  # the chooser while it is open (tests drive it)

    def __init__(self, repository: StyleRepository, parent: QWidget | None = None, *,
                 currency_code: str = DEFAULT_CURRENCY, time_zone: str = FALLBACK_TIME_ZONE) -> None:
        super().__init__(parent)
        self._repository = repository
        self._currency = currency(currency_code)
        self._time_zone = time_zone
        self._trail: list[AuditEntry] = []
        self.model = StyleListModel(repository, self)
        self.model.previewable_only = False
        self.model.status = REVIEW_STATUSES[0]
        self._selected: StyleRecord | None = None
        self._build()
        self._retranslate()
        self.reload()

    def _build(self) -> None:
        outer = QHBoxLayout(self)
        left = QVBoxLayout()
        self.status_tabs = QTabBar()
        self.status_tabs.setExpanding(False)
        for _ in REVIEW_STATUSES:
            self.status_tabs.addTab("")
        self.status_tabs.currentChanged.connect(self._on_status_change)
        self.list_view = QListView()
        self.list_view.setModel(self.model)
        self.list_view.setViewMode(QListView.ViewMode.IconMode)
        self.list_view.setIconSize(THUMB_SIZE)
        self.list_view.setResizeMode(QListView.ResizeMode.Adjust)
        self.list_view.setWordWrap(True)
        self.list_view.setObjectName("styleList")
        self.list_view.clicked.connect(self._on_style_click)
        self.import_button = QPushButton()
        self.import_button.clicked.connect(self._on_import_click)
        left.addWidget(self.status_tabs)
        left.addWidget(self.list_view, 1)
        left.addWidget(self.import_button)
        right = QVBoxLayout()
        self.cover = QLabel()
        self.cover.setFixedSize(320, 200)
        self.cover.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.heading = QLabel()
        self.heading.setObjectName("title")
        self.details = QLabel()
        self.details.setObjectName("muted")
        self.details.setWordWrap(True)
        price_row = self._build_price_row()
        self.reason = QLineEdit()
        self.buttons: dict[str, QPushButton] = {}
        row = QGridLayout()
        for i, name in enumerate(ACTIONS):
            button = QPushButton()
            button.clicked.connect(lambda _=False, n=name: self.decide(n, self.reason.text()))
            self.buttons[name] = button
            row.addWidget(button, i // 3, i % 3)
        self.history = QPlainTextEdit()
        self.history.setReadOnly(True)
        self.history.setMinimumHeight(60)
        self.feedback = QLabel()
        self.feedback.setWordWrap(True)
        # An import's result is a line per failed folder: the label keeps the height its lines need.
        self.feedback.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        right.addWidget(self.cover)
        right.addWidget(self.heading)
        right.addWidget(self.details)
        right.addLayout(price_row)
        right.addWidget(self.reason)
        right.addLayout(row)
        right.addWidget(self.feedback)
        right.addWidget(self.history, 1)
        outer.addLayout(left, 3)
        outer.addLayout(right, 2)
        self._show_selected()

    def set_currency(self, currency_code: str) -> None:
        """The store changed its currency in settings: prices are read, shown and typed in it from now on (the
        numbers already set stay as they are; core/config.py)."""
        self._currency = currency(currency_code)
        self._set_price_validator()
        self._retranslate()

    def set_time_zone(self, time_zone: str) -> None:
        """The store's zone changed in settings: the trail's times are shown in it."""
        self._time_zone = time_zone
        self._show_trail()

    def _set_price_validator(self) -> None:
        decimals = f"(\\.[0-9]{{0,{self._currency.exponent}}})?" if self._currency.exponent else ""
        self.price_edit.setValidator(QRegularExpressionValidator(QRegularExpression(f"[0-9]{{0,6}}{decimals}"),
                                                                 self.price_edit))

    def _build_price_row(self) -> QHBoxLayout:
        """The store's price: typed on the on-screen keyboard (digits and one point), set or cleared with two
        finger-sized buttons."""
        row = QHBoxLayout()
        self.price_label = QLabel()
        self.price_edit = QLineEdit()
        self.price_edit.setObjectName("priceEdit")
        self.price_edit.setMinimumHeight(TOUCH_PX)
        self.price_edit.setMaxLength(12)
        self.price_edit.setMaximumWidth(200)  # a price is short: the buttons keep their words
        self.price_edit.setInputMethodHints(Qt.InputMethodHint.ImhFormattedNumbersOnly)
        self._set_price_validator()
        self.price_edit.returnPressed.connect(lambda: self.set_price(self.price_edit.text()))
        self.set_price_button = QPushButton()
        self.set_price_button.clicked.connect(lambda: self.set_price(self.price_edit.text()))
        self.clear_price_button = QPushButton()
        self.clear_price_button.clicked.connect(self.clear_price)
        for button in (self.set_price_button, self.clear_price_button):
            button.setMinimumSize(TOUCH_PX * 2, TOUCH_PX)
        row.addWidget(self.price_label)
        row.addWidget(self.price_edit, 1)
        row.addWidget(self.set_price_button)
        row.addWidget(self.clear_price_button)
        return row

    # --- model → view -----------------------------------------------------------------------------------
    def reload(self) -> None:
        self.model.refresh()
        self._counts = {status: len(self._repository.list_styles(StyleFilter(status=status, limit=999)))
                        for status in REVIEW_STATUSES}
        self._retranslate_tabs()
        if self._selected is not None:
            self._selected = self._repository.get(self._selected.id)
        self._show_selected()

    def select_code(self, code: str) -> None:
        self._selected = self._repository.get_by_code(code)
        self._show_selected()

    def _show_selected(self) -> None:
        style = self._selected
        for name, button in self.buttons.items():
            _to, from_status = ACTIONS[name]
            allowed = style is not None and (from_status is None and style.status in (StyleStatus.REJECTED,
                                             StyleStatus.OFF_SHELF) or style.status == from_status)
            button.setEnabled(bool(allowed))
        self._show_price()
        if style is None:
            self.heading.setText("")
            self.details.setText("")
            self._trail = []
            self.history.setPlainText("")
            self.cover.clear()
            return
        self.heading.setText(f"{style.style_code}  {style.name}")
        self.cover.setPixmap(self._cover(style))
        self._trail = self._repository.audit_trail(style.id)
        self._show_trail()

    def _show_trail(self) -> None:
        """The audit trail as sentences, newest first (no database read: a language change words it again)."""
        style = self._selected
        self.history.setPlainText("" if style is None else "\n".join(
            audit_sentence(entry, style.style_code, time_zone=self._time_zone, currency_code=self._currency.code,
                           language=i18n.current_language()) for entry in reversed(self._trail)))

    def _cover(self, style: StyleRecord) -> QPixmap:
        for asset_type in (AssetType.COVER, AssetType.THUMBNAIL):
            assets = self._repository.assets(style.id, asset_type=asset_type)
            if assets and self._repository.store is not None:
                pixmap = QPixmap(str(self._repository.store.path_of(assets[0].storage_path)))
                if not pixmap.isNull():
                    return pixmap.scaled(self.cover.size(), Qt.AspectRatioMode.KeepAspectRatio,
                                         Qt.TransformationMode.SmoothTransformation)
        return QPixmap()

    def _show_price(self) -> None:
        """The price field, its buttons and the details line, from the selected row (no database read: this
        also runs on a language change, which may come after the kiosk closed its database)."""
        style = self._selected
        for widget in (self.price_edit, self.set_price_button):
            widget.setEnabled(style is not None)
        self.clear_price_button.setEnabled(style is not None and style.price_minor is not None)
        self.price_edit.setText("" if style is None or style.price_minor is None else
                                format_amount(style.price_minor, self._currency.code))
        if style is not None:
            self.details.setText(f"{style_status_text(style.status.value)} · {style.source}"
                                 f" · v{style.content_version} · {style.category_name or '—'}"
                                 f" · {self._price_shown(style)}")

    def _price_shown(self, style: StyleRecord) -> str:
        if style.price_minor is None:
            return self.tr("no price")
        return format_price(style.price_minor, self._currency.code, i18n.current_language())

    # --- prices -------------------------------------------------------------------------------------------
    def set_price(self, text: str) -> bool:
        """Set the selected style's price from what staff typed (128, 128.50); False with a message if refused."""
        if self._selected is None:
            return False
        if not text.strip():
            self.feedback.setText(self.tr("Type a price first, or clear it."))
            return False
        try:
            minor = parse_price(text, self._currency.code)
        except StyleError:
            self.feedback.setText(self.tr("Write the price as digits, such as 128 or 128.50."))
            return False
        return self._save_price(minor)

    def clear_price(self) -> bool:
        """Remove the selected style's price: customers then see none."""
        return self._selected is not None and self._save_price(None)

    def _save_price(self, minor: int | None) -> bool:
        assert self._selected is not None
        try:
            self._selected = self._repository.set_price(self._selected.id, minor, actor=ACTOR)
        except StyleError as exc:
            self.feedback.setText(self.tr("Not done: %1").replace("%1", exc.code))
            self.reload()
            return False
        self.feedback.setText(self.tr("Price of %1: %2").replace("%1", self._selected.style_code)
                              .replace("%2", self._price_shown(self._selected)))
        self.reload()
        self.catalog_changed.emit()
        return True

    # --- decisions ----------------------------------------------------------------------------------------
    def decide(self, action: str, reason: str = "") -> bool:
        """Apply one review action to the selected style; False (with a message) if the repository refuses."""
        if self._selected is None:
            return False
        to_status, from_status = ACTIONS[action]
        if action == "reject" and not reason.strip():
            self.feedback.setText(self.tr("Write the reason for rejecting first."))
            return False
        try:
            self._selected = self._repository.transit(self._selected.style_code, to_status, actor=ACTOR,
                                                      reason=reason.strip() or None, expect_from=from_status)
            if to_status == StyleStatus.PUBLISHED and not self._selected.is_previewable:
                self._selected = self._repository.set_previewable(self._selected.id, True)
        except Exception as exc:  # StyleError subclasses carry a code; show it, keep the page alive
            self.feedback.setText(self.tr("Not done: %1").replace("%1", getattr(exc, "code", type(exc).__name__)))
            self.reload()
            return False
        self.feedback.setText(self.tr("Done: %1 is now %2").replace("%1", self._selected.style_code)
                              .replace("%2", style_status_text(self._selected.status.value)))
        self.reason.clear()
        self.reload()
        self.catalog_changed.emit()
        return True

    # --- view → model -------------------------------------------------------------------------------------
    def _on_status_change(self, index: int) -> None:
        self.model.status = REVIEW_STATUSES[index]
        self.model.refresh()

    def _on_style_click(self, index: QModelIndex) -> None:
        self.select_code(index.data(CodeRole))

    def _on_import_click(self) -> None:
        """The touch folder chooser (ui/staff/folder_chooser.py), over the whole window, in the kiosk's language."""
        chooser = FolderChooser(self.window())
        chooser.resize(self.window().size())
        chooser.chosen.connect(self.import_folders_requested)
        chooser.finished.connect(chooser.deleteLater)
        self.folder_chooser = chooser
        chooser.open()

    def show_import_progress(self, done: int, total: int, folder: str) -> None:
        self.import_button.setEnabled(False)  # one import at a time
        self.feedback.setText(self.tr("Importing %1 of %2: %3…").replace("%1", str(done + 1))
                              .replace("%2", str(total)).replace("%3", Path(folder).name))

    def show_import_results(self, results: list[tuple[str, str | None, str | None]]) -> None:
        """One line for what was imported, then one line per folder that failed (name: reason)."""
        self.import_button.setEnabled(True)
        codes = [code for _folder, code, _error in results if code]
        failures = [(folder, error) for folder, code, error in results if not code]
        lines = [self.tr("Imported %1 of %2 as drafts.").replace("%1", str(len(codes)))
                 .replace("%2", str(len(results)))]
        lines += [self.tr("Not imported: %1").replace("%1", f"{Path(folder).name}: {error or '?'}")
                  for folder, error in failures]
        self.feedback.setText("\n".join(lines))
        if codes:
            self.status_tabs.setCurrentIndex(REVIEW_STATUSES.index(StyleStatus.DRAFT))
            self.select_code(codes[-1])
        self.reload()

    def show_import_result(self, code: str | None, error: str | None) -> None:
        if code:
            self.feedback.setText(self.tr("Imported as %1 (draft).").replace("%1", code))
            self.status_tabs.setCurrentIndex(REVIEW_STATUSES.index(StyleStatus.DRAFT))
            self.select_code(code)
        else:
            self.feedback.setText(self.tr("Import failed: %1").replace("%1", error or "?"))
        self.reload()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate_tabs(self) -> None:
        """Tab names carry their counts, so staff see at once where work is waiting."""
        counts = getattr(self, "_counts", {})
        for i, status in enumerate(REVIEW_STATUSES):
            self.status_tabs.setTabText(i, f"{style_status_text(status.value)} ({counts.get(status, 0)})")

    def _retranslate(self) -> None:
        self._retranslate_tabs()
        names = {"submit": self.tr("Submit"), "approve": self.tr("Approve"), "reject": self.tr("Reject"),
                 "publish": self.tr("Publish"), "off_shelf": self.tr("Off shelf"), "revise": self.tr("Back to draft")}
        for name, button in self.buttons.items():
            button.setText(names[name])
        self.reason.setPlaceholderText(self.tr("Reason (required to reject)"))
        self.price_label.setText(self.tr("Price (%1)").replace("%1", self._currency.symbol_en
                                                               if i18n.current_language() == "en"
                                                               else self._currency.symbol_zh))
        self.price_edit.setPlaceholderText(self.tr("e.g. 128 or 128.50") if self._currency.exponent
                                           else self.tr("e.g. 1280"))
        self.set_price_button.setText(self.tr("Set price"))
        self.clear_price_button.setText(self.tr("Clear price"))
        self._show_price()
        self._show_trail()
        self.import_button.setText(self.tr("Import a style folder…"))
