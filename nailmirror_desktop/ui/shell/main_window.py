"""The kiosk window: the customer page (mirror + style browser + AI design), the snapshot page and, behind the
PIN, the staff pages. It wires widgets to each other and to the services; it holds no business logic.

The customer cannot close or leave the window: close requests are ignored unless staff (or the app itself,
e.g. `--quit-after`) allow it.
"""

from __future__ import annotations

from enum import Enum

from PySide6.QtCore import QByteArray, QEvent, QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.tryon.mirror_view import MirrorView


class Page(Enum):
    """The window's pages, all named here. A page is its own widget in the stack; where that widget sits in the
    stack is the stack's business. (Numbers kept in two modules once collided: the share page took the compare
    page's index 3 and deleted it, and every idle reset after that failed on the deleted page, #20.)"""

    CUSTOMER = "customer"
    SNAPSHOT = "snapshot"
    STAFF = "staff"
    COMPARE = "compare"
    SHARE = "share"


CUSTOMER, SNAPSHOT, STAFF, COMPARE, SHARE = Page.CUSTOMER, Page.SNAPSHOT, Page.STAFF, Page.COMPARE, Page.SHARE
# The side panel (styles, AI design) grows with the screen: a fixed 440 px showed 12 styles at 1920×1080.
SIDE_SHARE = 0.44  # of the window's width
SIDE_MIN, SIDE_MAX = 440, 900  # px: at 1280×800 the mirror keeps most of the screen


class MainWindow(QMainWindow):
    staff_requested = Signal()
    language_toggle_requested = Signal()
    snapshot_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("kioskWindow")
        self.allow_close = False
        self.mirror = MirrorView()
        self.side_tabs = QTabWidget()
        self.side_tabs.setObjectName("sideTabs")
        self.pages = QStackedWidget()
        self._page_widgets: dict[Page, QWidget] = {}
        self.set_page_widget(CUSTOMER, self._build_customer_page())  # the first one added: shown at start
        for page in Page:
            if page is not CUSTOMER:
                self.set_page_widget(page, QWidget())  # replaced by the flow that owns the page
        self.setCentralWidget(self.pages)
        self._style_tab: QWidget | None = None
        self._generate_tab: QWidget | None = None
        self._retranslate()

    # --- layout -------------------------------------------------------------------------------------------
    def _build_customer_page(self) -> QWidget:
        page = QWidget()
        outer = QHBoxLayout(page)
        outer.setContentsMargins(16, 16, 16, 16)
        outer.setSpacing(16)
        left = QVBoxLayout()
        left.setSpacing(12)
        left.addWidget(self.mirror, 1)
        left.addLayout(self._build_bottom_bar())
        outer.addLayout(left, round((1 - SIDE_SHARE) * 100))
        side = QWidget()
        side.setObjectName("panel")
        # Stretch factors share the width (the layout keeps both columns' minimums, so the window never has
        # to grow past the screen for it); the side panel's minimum and maximum bound its share.
        side.setMinimumWidth(SIDE_MIN)
        side.setMaximumWidth(SIDE_MAX)
        side.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.side_panel = side
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(12, 12, 12, 12)
        side_layout.addWidget(self.side_tabs)
        outer.addWidget(side, round(SIDE_SHARE * 100))
        return page

    def _build_bottom_bar(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        bar.setSpacing(12)
        self.brand = QLabel()
        self.brand.setObjectName("title")
        self.snapshot_button = QPushButton()
        self.snapshot_button.setObjectName("primary")
        self.snapshot_button.setMinimumHeight(64)
        self.snapshot_button.clicked.connect(self.snapshot_requested)
        self.language_button = QPushButton()
        self.language_button.setMinimumHeight(64)
        self.language_button.clicked.connect(self.language_toggle_requested)
        self.staff_button = QPushButton("⋯")
        self.staff_button.setObjectName("ghost")
        self.staff_button.setFixedSize(64, 64)
        self.staff_button.clicked.connect(self.staff_requested)
        bar.addWidget(self.brand)
        bar.addStretch(1)
        bar.addWidget(self.snapshot_button)
        bar.addWidget(self.language_button)
        bar.addWidget(self.staff_button)
        return bar

    def set_side_panels(self, styles: QWidget, generate: QWidget) -> None:
        self._style_tab, self._generate_tab = styles, generate
        self.side_tabs.clear()
        self.side_tabs.addTab(styles, "")
        self.side_tabs.addTab(generate, "")
        self._retranslate()

    def set_snapshot_counting(self, counting: bool) -> None:
        """While the snapshot counts down the button cancels it, and says so."""
        self._counting = counting
        self._retranslate()

    def set_demo_badge(self, on: bool) -> None:
        self._demo = on
        self._retranslate()

    def set_page_widget(self, page: Page, widget: QWidget) -> None:
        """`widget` becomes `page` (shown in its place if that page was on screen); the page's old widget goes.
        A widget is one page only: giving it a second page would take it from the first."""
        old = self._page_widgets.get(page)
        if old is widget:
            return
        other = next((p for p, w in self._page_widgets.items() if w is widget), None)
        if other is not None:
            raise ValueError(f"this widget is already the {other.value} page")
        self.pages.addWidget(widget)
        self._page_widgets[page] = widget
        if old is not None:
            if self.pages.currentWidget() is old:
                self.pages.setCurrentWidget(widget)
            self.pages.removeWidget(old)
            old.deleteLater()

    def page_widget(self, page: Page) -> QWidget:
        return self._page_widgets[page]

    def showFullScreen(self) -> None:  # noqa: N802 (Qt's name)
        """Full screen that fills the screen also without a window manager: Qt only asks the window manager
        (_NET_WM_STATE_FULLSCREEN on X11), and a bare X server at a store counter has none, so the window kept
        its size hint (1191×720 on a 1920×1080 screen). The geometry is set first; with a window manager the
        request then does the rest as before."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is not None:
            self.setGeometry(screen.geometry())
        super().showFullScreen()

    def show_page(self, page: Page) -> None:
        self.pages.setCurrentWidget(self._page_widgets[page])

    def show_start(self) -> None:
        """The customer page as a new customer finds it (idle reset): the styles tab, and no text field of this
        window focused, so the on-screen keyboard closes and what was half-typed on it is dropped."""
        self.show_page(CUSTOMER)
        if self._style_tab is not None:
            self.side_tabs.setCurrentWidget(self._style_tab)
        focused = QApplication.focusWidget()
        if focused is not None and focused.window() is self:
            QGuiApplication.inputMethod().reset()
            focused.clearFocus()

    def current_page(self) -> Page:
        shown = self.pages.currentWidget()
        return next(page for page, widget in self._page_widgets.items() if widget is shown)

    # --- window state (QSettings holds geometry only) -----------------------------------------------------
    def restore_geometry(self) -> None:
        saved = QSettings("NailMirror", "kiosk").value("window/geometry")
        if isinstance(saved, QByteArray):
            self.restoreGeometry(saved)

    def save_geometry(self) -> None:
        QSettings("NailMirror", "kiosk").setValue("window/geometry", self.saveGeometry())

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self.allow_close:
            event.ignore()  # a customer must not be able to leave the kiosk
            return
        self.save_geometry()
        super().closeEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape and not self.allow_close:
            event.accept()  # Esc does nothing in the customer's hands
            return
        super().keyPressEvent(event)

    # --- language -----------------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        super().changeEvent(event)

    def _retranslate(self) -> None:
        self.setWindowTitle(self.tr("NailMirror"))
        brand = self.tr("NailMirror")
        self.brand.setText(brand + ("  ·  " + self.tr("Demo") if getattr(self, "_demo", False) else ""))
        counting = getattr(self, "_counting", False)
        self.snapshot_button.setText(self.tr("Cancel the photo") if counting else self.tr("Snapshot · before/after"))
        # The button names the language it switches *to*, written in that language (so never translated).
        self.language_button.setText("中文" if i18n.current_language() == "en" else "English")
        if self._style_tab is not None:
            self.side_tabs.setTabText(0, self.tr("Styles"))
            self.side_tabs.setTabText(1, self.tr("AI design"))


def placeholder(text: str) -> QWidget:
    label = QLabel(text)
    label.setObjectName("muted")
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    return label


__all__ = ["MainWindow", "Page", "placeholder", "CUSTOMER", "SNAPSHOT", "STAFF", "COMPARE", "SHARE"]
