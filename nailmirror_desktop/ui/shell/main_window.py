"""The kiosk window: the customer page (mirror + style browser + AI design), the snapshot page and, behind the
PIN, the staff pages. It wires widgets to each other and to the services; it holds no business logic.

The customer cannot close or leave the window: close requests are ignored unless staff (or the app itself,
e.g. `--quit-after`) allow it.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.tryon.mirror_view import MirrorView

CUSTOMER, SNAPSHOT, STAFF, COMPARE = 0, 1, 2, 3
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
        self.pages.addWidget(self._build_customer_page())
        self.pages.addWidget(QWidget())  # SNAPSHOT, replaced by the controller
        self.pages.addWidget(QWidget())  # STAFF, replaced by the controller
        self.pages.addWidget(QWidget())  # COMPARE, replaced by the controller
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
        outer.addLayout(left, 1)
        side = QWidget()
        side.setObjectName("panel")
        side.setFixedWidth(SIDE_MIN)
        self.side_panel = side
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(12, 12, 12, 12)
        side_layout.addWidget(self.side_tabs)
        outer.addWidget(side)
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

    def set_demo_badge(self, on: bool) -> None:
        self._demo = on
        self._retranslate()

    def set_page_widget(self, index: int, widget: QWidget) -> None:
        while self.pages.count() <= index:
            self.pages.addWidget(QWidget())
        old = self.pages.widget(index)
        self.pages.insertWidget(index, widget)
        if old is not None:
            self.pages.removeWidget(old)
            old.deleteLater()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        self.side_panel.setFixedWidth(side_width(event.size().width()))
        super().resizeEvent(event)

    def showFullScreen(self) -> None:  # noqa: N802 (Qt's name)
        """Full screen that fills the screen also without a window manager: Qt only asks the window manager
        (_NET_WM_STATE_FULLSCREEN on X11), and a bare X server at a store counter has none, so the window kept
        its size hint (1191×720 on a 1920×1080 screen). The geometry is set first; with a window manager the
        request then does the rest as before."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        if screen is not None:
            self.setGeometry(screen.geometry())
        super().showFullScreen()

    def show_page(self, index: int) -> None:
        self.pages.setCurrentIndex(index)

    def current_page(self) -> int:
        return self.pages.currentIndex()

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
        self.snapshot_button.setText(self.tr("Snapshot · before/after"))
        # The button names the language it switches *to*, written in that language (so never translated).
        self.language_button.setText("中文" if i18n.current_language() == "en" else "English")
        if self._style_tab is not None:
            self.side_tabs.setTabText(0, self.tr("Styles"))
            self.side_tabs.setTabText(1, self.tr("AI design"))


def side_width(window_width: int) -> int:
    return max(SIDE_MIN, min(SIDE_MAX, round(window_width * SIDE_SHARE)))


def placeholder(text: str) -> QWidget:
    label = QLabel(text)
    label.setObjectName("muted")
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    return label


__all__ = ["MainWindow", "placeholder", "side_width", "CUSTOMER", "SNAPSHOT", "STAFF", "COMPARE"]
