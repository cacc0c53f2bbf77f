""""Take it home" on the snapshot page: a QR code for a one-time link served on loopback, the style card, and
what the page says when sharing is off or the phone cannot reach the kiosk."""

from __future__ import annotations

import http.client
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from nailmirror_desktop.adapters.share.server import ShareServer
from nailmirror_desktop.ui import bridge
from nailmirror_desktop.ui.share.share_controller import SHARE, ShareController
from nailmirror_desktop.ui.share.share_page import LINK, NO_NETWORK, OFF, SAVING, SENT
from nailmirror_desktop.ui.shell import i18n, theme
from nailmirror_desktop.ui.shell.main_window import SNAPSHOT, MainWindow
from nailmirror_desktop.ui.tryon.snapshot import SnapshotPage
from tests.support.ui_support import ROOT

pytestmark = pytest.mark.qt
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture
def snapshot_file(tmp_path: Path) -> Path:
    """A saved snapshot's pair (ui/tryon/snapshot.save_snapshot's names); returns the "after" file."""
    before = tmp_path / "20261201T000000Z_FES-M1MWQS_before.png"
    Image.fromarray(np.full((48, 64, 3), (120, 150, 200), np.uint8)).save(before)
    path = tmp_path / "20261201T000000Z_FES-M1MWQS_after.png"
    Image.fromarray(np.full((48, 64, 3), (200, 90, 120), np.uint8)).save(path)
    return path


def build(qtbot, server: ShareServer | None, snapshot: Path | None):
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    theme.apply_theme(app)
    bridge.install()
    window = MainWindow()
    qtbot.addWidget(window)
    page = SnapshotPage()
    window.set_page_widget(SNAPSHOT, page)
    share = ShareController(window, page, server, lambda: snapshot, lambda: ("Rose glow gloss", "FES-M1MWQS"),
                            parent=None)
    window.resize(1280, 800)
    window.show()
    window.show_page(SNAPSHOT)
    return window, page, share


def download(url: str) -> int:
    return fetch_photo(url)[0]


def fetch_photo(url: str) -> tuple[int, bytes]:
    path = url.split("127.0.0.1", 1)[1]
    port, _, rest = path.lstrip(":").partition("/")
    conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=5)
    try:
        conn.request("GET", "/" + rest + "/photo.jpg")
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_send_to_my_phone_shows_a_qr_link_to_the_photo(qtbot, snapshot_file):
    i18n.install_language("en")
    server, links = recording_server()
    try:
        window, page, share = build(qtbot, server, snapshot_file)
        assert share.button.text() == "Send to my phone" and share.button.minimumHeight() >= 48
        share.button.click()
        assert window.current_page() == SHARE and share.page.state == LINK
        assert "ends when you leave the kiosk" in share.page.message.text()
        assert not share.page.qr.pixmap().isNull()
        assert "Rose glow gloss" in share.page.card.name.text() and "FES-M1MWQS" in share.page.card.code.text()
        ARTIFACTS.mkdir(exist_ok=True)
        window.grab().save(str(ARTIFACTS / "share_qr_page.png"))
        assert download(links[0]) == 200
        qtbot.waitUntil(lambda: share.page.state == SENT, timeout=5000)
        assert download(links[0]) == 200  # the phone's "save image" fetches it again (3 deliveries at most)
        share.page.back_button.click()
        assert window.current_page() == SNAPSHOT
    finally:
        server.close()


def recording_server() -> tuple[ShareServer, list[str]]:
    """A real share server on loopback that also lists the URL of every link it offers."""
    links: list[str] = []
    server = ShareServer(port=0, bind="127.0.0.1", advertised_host=lambda: "127.0.0.1")
    real_offer = server.offer

    def offer(*args, **kwargs):
        link = real_offer(*args, **kwargs)
        links.append(link.url)
        return link

    server.offer = offer
    return server, links


def test_without_a_network_or_with_sharing_off_the_style_card_is_offered(qtbot, snapshot_file, tmp_path):
    i18n.install_language("en")
    server = ShareServer(port=0, bind="127.0.0.1", advertised_host=lambda: None)
    try:
        _window, _page, share = build(qtbot, server, snapshot_file)
        share.take_home()
        assert share.page.state == NO_NETWORK and not share.page.qr.isVisibleTo(share.page)
        assert "not on a network your phone can reach" in share.page.message.text()
        assert "style card" in share.page.hint.text() and share.page.card.code.text()
    finally:
        server.close()
    _window, _page, off = build(qtbot, None, snapshot_file)
    assert off.button.text() == "Style card"
    off.take_home()
    assert off.page.state == OFF and "FES-M1MWQS" in off.page.card.code.text()
    _window, _page, saving = build(qtbot, ShareServer(port=0, bind="127.0.0.1"), tmp_path / "not-yet.png")
    saving.take_home()
    assert saving.page.state == SAVING


def test_the_share_page_speaks_chinese(qtbot, snapshot_file):
    i18n.install_language("zh_CN")
    try:
        _window, _page, share = build(qtbot, None, snapshot_file)
        share.take_home()
        assert share.button.text() != "Style card" and share.page.title.text() != "Take it home"
        share.page.show_link("http://192.0.2.7:8765/s/abc", 5)
        assert "离开本机后即失效" in share.page.message.text() and "5 分钟" in share.page.message.text()
    finally:
        i18n.install_language("en")


def test_when_no_phone_comes_the_page_points_at_the_style_card(qtbot):
    from nailmirror_desktop.ui.share.share_page import SharePage

    i18n.install_language("en")
    page = SharePage()
    qtbot.addWidget(page)
    page.show_style("Rose glow gloss", "FES-M1MWQS")
    page._not_reached_timer.setInterval(50)  # NOT_REACHED_AFTER_MS (45 s), shortened
    page.show_link("http://192.0.2.7:8765/s/abc", 5)
    assert "guest Wi-Fi" not in page.hint.text()
    qtbot.waitUntil(lambda: "guest Wi-Fi" in page.hint.text(), timeout=3000)
    assert "style card" in page.hint.text() and page.state == LINK  # the link still works if the phone gets in
    page.show_state(SENT)
    assert "guest Wi-Fi" not in page.hint.text()


def test_staff_turn_take_home_on_and_off_without_a_restart(qtbot, snapshot_file):
    """The kiosk always has its share server (no port open until a share); the settings switch it on and off."""
    i18n.install_language("en")
    server, links = recording_server()
    try:
        window, page, _ = build(qtbot, server, snapshot_file)
        share = ShareController(window, page, server, lambda: snapshot_file, lambda: ("Rose", "FES-1"),
                                parent=None, sharing=False)
        assert share.button.text() == "Style card"
        share.take_home()
        assert share.page.state == OFF and links == [] and server.bound_address is None
        share.set_sharing(True)  # staff saved the settings with take-home on
        assert share.button.text() == "Send to my phone"
        share.take_home()
        assert share.page.state == LINK and download(links[0]) == 200
        share.set_sharing(False)  # and off again: the link offered stops working now
        assert share.button.text() == "Style card" and download(links[0]) == 404
    finally:
        server.close()


def test_the_card_and_the_phone_picture_show_her_painted_hands_the_style_and_the_store(qtbot, tmp_path):
    """The card was an empty white card with three small lines; the phone got the bare 1280×720 frame."""
    import io

    from PySide6.QtGui import QImage

    from nailmirror_desktop.ui.shell.qt_images import bgr_to_qimage

    i18n.install_language("zh_CN")
    before = np.full((720, 1280, 3), 90, np.uint8)
    before[250:450, 400:1000] = (150, 180, 230)  # the hands
    after = before.copy()
    after[260:300, 420:980] = (40, 30, 200)  # painted
    Image.fromarray(before[..., ::-1]).save(tmp_path / "20261201T000000Z_NM-FRE-005_before.png")
    after_file = tmp_path / "20261201T000000Z_NM-FRE-005_after.png"
    Image.fromarray(after[..., ::-1]).save(after_file)
    picture = ROOT / "resources" / "starter_catalog" / "NM-FRE-005" / "preview.png"
    server, links = recording_server()
    try:
        window, page, _ = build(qtbot, None, after_file)
        page.show_pair(bgr_to_qimage(before), bgr_to_qimage(after), "酒红半月")
        share = ShareController(window, page, server, lambda: after_file, lambda: ("酒红半月", "NM-FRE-005", "¥128"),
                                hands_box=lambda: (400, 250, 1000, 450), style_picture=lambda code: picture,
                                store_name="指尖魔镜 · 静安店")
        share.take_home()
        card = share.page.card
        assert card.heading.text() == "请把这张卡给美甲师看"
        assert card.price.text() == "¥128" and card.store.text() == "指尖魔镜 · 静安店"
        assert "NM-FRE-005" in card.code.text()
        assert not card.picture.pixmap().isNull()
        hands = card.hands.pixmap().toImage().convertToFormat(QImage.Format.Format_RGB888)
        assert hands.width() >= 300  # the hands cropped close, not the whole frame shrunk
        centre = hands.pixelColor(hands.width() // 2, hands.height() // 2)
        assert (centre.red(), centre.green(), centre.blue()) == (230, 180, 150)  # her hand fills the middle
        ARTIFACTS.mkdir(exist_ok=True)
        window.grab().save(str(ARTIFACTS / "share_card_page.png"))
        status, body = fetch_photo(links[0])
        phone = Image.open(io.BytesIO(body))
        assert status == 200 and phone.format == "JPEG" and phone.size == (1080, 1350)
        share.store_name = ""  # staff cleared it: the line goes
        share.take_home()
        assert card.store.isHidden()
    finally:
        server.close()
        i18n.install_language("en")


def test_the_card_names_the_nail_shape_and_length_and_leaves_natural_nails_out(qtbot, snapshot_file):
    form = ["Almond · Medium"]
    window, page, _ = build(qtbot, None, snapshot_file)
    share = ShareController(window, page, None, lambda: snapshot_file, lambda: ("Rose glow gloss", "FES-M1MWQS"),
                            nail_form=lambda: form[0])
    share.take_home()
    card = share.page.card
    assert card.form.text() == "Almond · Medium" and card.form.isVisibleTo(card)
    form[0] = ""
    share.take_home()
    assert card.form.isHidden()


def test_the_store_name_staff_save_is_on_the_next_card(qtbot, tmp_path):
    from nailmirror_desktop.core.config import load_config
    from tests.support.style_fixtures import make_catalog
    from tests.support.ui_support import light_kiosk

    with light_kiosk(qtbot, make_catalog(tmp_path / "catalog", count=2)) as kiosk:
        kiosk.share.take_home()
        assert kiosk.share.page.card.store.isHidden()  # none set: the line is left out
        kiosk.staff.config_did_save.emit(load_config().with_changes(store_name="指尖魔镜 · 静安店"))
        kiosk.share.take_home()
        assert kiosk.share.page.card.store.text() == "指尖魔镜 · 静安店"
        assert kiosk.share.page.card.store.isVisibleTo(kiosk.share.page.card)


def test_the_share_server_does_not_keep_the_window_alive(qtbot, snapshot_file):
    """The server is closed apart from the window and may outlive it. When it held the controller (and so the
    window) strongly, the window was freed only by Python's cyclic collector, at an arbitrary allocation: running
    inside a paint of that window, it deleted the window under the painter, and `pytest
    tests/ui/tryon/test_tryon_controller.py tests/ui/share` segfaulted in BeforeAfterView.paintEvent."""
    import gc
    import weakref

    server = ShareServer(port=0, bind="127.0.0.1", advertised_host=lambda: "127.0.0.1")
    collecting = gc.isenabled()
    gc.disable()  # the collector must not tidy up what reference counting alone should free
    try:
        window, _page, share = build(qtbot, server, snapshot_file)
        window_ref, share_ref = weakref.ref(window), weakref.ref(share)
        del window, _page, share
        assert window_ref() is None and share_ref() is None
        server.on_download("some token")  # a download finishing after the window went is dropped quietly
    finally:
        if collecting:
            gc.enable()
        server.close()
