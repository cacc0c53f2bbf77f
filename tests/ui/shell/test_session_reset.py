"""The idle reset between two customers (#20.6, #20.7): one kiosk as the shell builds it (the window, the try-on,
AI design, share and staff flows) over a real catalog, a real try-on pipeline and a real share server on
loopback; workers run inline, or are held to play an answer that comes back after the customer left.

What the first customer did (her language, style, favourite, comparison, snapshots, link, AI design) must not
reach the second one: not on a screen, not through "send to my phone", not through the old link. Her photos stay
on disk for the staff gallery only.
"""

from __future__ import annotations

import http.client
import logging
from urllib.parse import urlsplit

import numpy as np
import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication, QWidget

from nailmirror_desktop.adapters.share.server import ShareServer
from nailmirror_desktop.ui.share.share_page import LINK, OFF, SAVING
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.shell.main_window import COMPARE, CUSTOMER, SHARE, SNAPSHOT, MainWindow, Page
from nailmirror_desktop.ui.tryon.snapshot import snapshots_dir
from nailmirror_desktop.vision.sources.supervisor import FramePacket
from tests.support.style_fixtures import make_catalog
from tests.support.ui_support import HoldableRunner, light_kiosk, set_staff_pin

pytestmark = pytest.mark.qt



@pytest.fixture(scope="module")
def share_server():
    """One server for the module: closing one waits out its serve loop's half-second poll."""
    server = ShareServer(port=0, bind="127.0.0.1", advertised_host=lambda: "127.0.0.1")
    yield server
    server.close()


@pytest.fixture
def kiosk(qtbot, tmp_path, share_server):
    runner = HoldableRunner()
    with light_kiosk(qtbot, make_catalog(tmp_path / "catalog", count=3), runner, share_server) as controller:
        controller.runner = runner
        try:
            yield controller
        finally:
            share_server.withdraw_all()


def deleted_pages_go() -> None:
    """Let Qt delete what deleteLater() marked (a replaced page), as the event loop would."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def get(url: str, suffix: str = "") -> int:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    try:
        conn.request("GET", parts.path + suffix)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def offered_links(kiosk) -> list[str]:
    links: list[str] = []
    server = kiosk.services.share
    offer = server.offer

    def record(*args, **kwargs):
        link = offer(*args, **kwargs)
        links.append(link.url)
        return link

    server.offer = record
    return links


def snapshot(kiosk, frame_no: int) -> bool:
    """A frame through the real pipeline, then the snapshot button."""
    kiosk.services.session.process(FramePacket(np.full((120, 160, 3), 40 + frame_no, np.uint8), frame_no, frame_no))
    return kiosk.tryon.take_snapshot()


def test_two_customers_one_kiosk_nothing_of_the_first_reaches_the_second(qtbot, kiosk):
    tryon, share, panel, window = kiosk.tryon, kiosk.share, kiosk.generation.panel, kiosk.window
    browser = tryon.style_browser
    first_style = kiosk.services.session.style.code  # the fresh start's style
    links = offered_links(kiosk)

    # --- the first customer: English, another style, a favourite, a comparison, a snapshot sent, an AI design
    kiosk.toggle_language()
    chosen = next(code for code in browser.model.codes() if code != first_style)
    assert tryon.apply_style(chosen)
    browser.favourite_button.click()
    assert browser.favourites == {chosen}
    assert tryon.compare(chosen, first_style) and window.current_page() == COMPARE
    deleted_pages_go()
    assert snapshot(kiosk, 1) and window.current_page() == SNAPSHOT
    her_photo = tryon.last_snapshot
    share.button.click()
    assert window.current_page() == SHARE and share.page.state == LINK
    assert not share.page.card.hands.pixmap().isNull()  # her painted nails on the take-home card
    assert get(links[0]) == 200  # her phone opens the landing page
    panel.prompt.setText("粉色贝壳")
    panel.show_result(chosen, tryon.style_card(chosen))
    share.back_to_snapshot()
    tryon.back_to_mirror()
    kiosk.runner.held = True  # a second snapshot, still being saved when she walks away
    assert snapshot(kiosk, 2)
    share.button.click()  # "send to my phone" during that save: nothing yet, not the first photo again
    assert share.page.state == SAVING and len(links) == 1
    designed = next(code for code in browser.model.codes() if code not in (first_style, chosen))
    tried: list[bool] = []
    tryon.apply_style_in_background(designed, tried.append)  # her new design, still being decoded
    share.back_to_snapshot()
    tryon.back_to_mirror()
    window.show()  # she leaves on the AI design tab, typing in its prompt (the on-screen keyboard up)
    qtbot.waitExposed(window)
    window.activateWindow()
    window.side_tabs.setCurrentIndex(1)
    panel.prompt.setFocus()
    qtbot.waitUntil(panel.prompt.hasFocus, timeout=2000)

    app = QCoreApplication.instance()
    kiosk.idle.start(app)  # she walks away: the idle watcher fires the reset
    try:
        with qtbot.waitSignal(kiosk.session_did_reset, timeout=2000):
            kiosk.idle.set_timeout_ms(20)
    finally:
        kiosk.idle.stop(app)
    kiosk.runner.release()  # her second photo's save and her design's textures come back after the reset
    assert tried == [False]

    # --- the second customer's screen: a fresh start
    assert window.current_page() == CUSTOMER and i18n.current_language() == "zh_CN"
    assert window.side_tabs.currentWidget() is browser and QApplication.focusWidget() is not panel.prompt
    assert kiosk.services.session.style.code == first_style and window.mirror._style_code == first_style
    assert browser.favourites == set() and browser.model.only_codes is None
    assert tryon.compare_page.shown_codes() == () and not any(n.text() or c.text() for n, c in
                                                              zip(tryon.compare_page.names, tryon.compare_page.codes,
                                                                  strict=True))
    assert all(p.pixmap().isNull() for p in tryon.compare_page.previews)
    assert not tryon.snapshot_page.view.has_images() and tryon.snapshot_page.title.text() == ""
    assert share.page.state == OFF and share.page.qr.pixmap().isNull() and share.page.card.code.text() == ""
    card = share.page.card  # no picture of her hands nor her style's on the take-home card
    assert card.hands.pixmap().isNull() and card.picture.pixmap().isNull() and card.name.text() == ""
    assert tryon.last_hands_box is None
    assert panel.prompt.text() == "" and panel.result_code.text() == "" and not panel.more_button.isVisibleTo(panel)
    assert tryon.last_snapshot is None
    # --- her link is dead at once, over real HTTP
    assert get(links[0]) == 404 and get(links[0], "/photo.png") == 404

    # --- "send to my phone" while the second customer's own snapshot is still being saved: nothing to send yet
    kiosk.runner.held = True
    assert snapshot(kiosk, 3)
    share.button.click()
    assert share.page.state == SAVING and len(links) == 1
    kiosk.runner.release()
    share.take_home()
    assert share.page.state == LINK and len(links) == 2
    assert tryon.last_snapshot is not None and tryon.last_snapshot != her_photo
    assert get(links[1], "/photo.png") == 200
    # her photos are kept for the staff gallery (until snapshot_keep_days), not offered
    assert her_photo.is_file() and len(list(snapshots_dir().glob("*_after.png"))) == 3
    tryon.back_to_mirror()
    assert tryon.compare(first_style, chosen) and window.current_page() == COMPARE  # 对比 works after a share


def test_a_failing_reset_step_is_logged_and_the_others_still_run(qtbot, kiosk, caplog):
    """The reset's first step used to be the last that ran: a page Qt had deleted raised, and the link, the share
    page and the language stayed for the next customer."""
    tryon, share, window = kiosk.tryon, kiosk.share, kiosk.window
    links = offered_links(kiosk)
    kiosk.toggle_language()
    assert snapshot(kiosk, 1)
    share.take_home()
    assert get(links[0]) == 200
    shiboken6.delete(tryon.compare_page.names[0])  # what the page-index collision did to the compare page
    kiosk.generation.panel.clear = broken  # and a second broken part, in another flow
    set_staff_pin()
    kiosk.staff.ask_for_pin()  # and the staff keypad left open with digits on it
    kiosk.staff.pin_dialog.entry.setText("135")
    with caplog.at_level(logging.INFO):
        kiosk.reset_session()
    failures = [r for r in caplog.records if r.levelno == logging.ERROR and r.exc_info]
    assert [r.getMessage() for r in failures] == [
        "try-on: forgetting the customer's compare page failed; the other steps ran",
        "idle reset: forgetting the customer's AI design failed; the other steps ran",
    ]
    assert "already deleted" in str(failures[0].exc_info[1])
    assert window.current_page() == CUSTOMER and i18n.current_language() == "zh_CN"
    assert get(links[0]) == 404 and share.page.state == OFF and tryon.last_snapshot is None
    assert not tryon.snapshot_page.view.has_images() and kiosk.services.session.style is not None
    assert kiosk.staff.pin_dialog is None


def broken() -> None:
    raise RuntimeError("broken for the test")


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
