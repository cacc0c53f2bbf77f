"""The window's pages: each is named once (main_window.Page) and keeps its own widget (#20.6: the share page took
the compare page's index and Qt deleted the compare page)."""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QWidget

from nailmirror_desktop.ui.shell.main_window import COMPARE, CUSTOMER, SHARE, MainWindow, Page

pytestmark = pytest.mark.qt


def deleted_pages_go() -> None:
    """Let Qt delete what deleteLater() marked (a replaced page), as the event loop would."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_each_page_keeps_its_own_widget(qtbot):
    """Pages are named once (main_window.Page): giving one page a widget never takes another page's."""
    window = MainWindow()
    qtbot.addWidget(window)
    widgets = {page: QWidget() for page in Page if page is not CUSTOMER}
    customer = window.page_widget(CUSTOMER)
    for page, widget in widgets.items():
        window.set_page_widget(page, widget)
    deleted_pages_go()
    for page, widget in [(CUSTOMER, customer), *widgets.items()]:
        assert shiboken6.isValid(widget)
        window.show_page(page)
        assert window.current_page() is page and window.pages.currentWidget() is widget
    replacement = QWidget()
    window.set_page_widget(SHARE, replacement)  # the page on screen: its new widget is shown in its place
    assert window.current_page() is SHARE and window.pages.currentWidget() is replacement
    with pytest.raises(ValueError):
        window.set_page_widget(COMPARE, replacement)
