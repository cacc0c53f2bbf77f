"""The staff snapshot gallery over real snapshot files (written as the kiosk writes them), with the real bridge's
worker threads: newest first with the store's local time and style, tap to see large, delete one or all after a
confirmation, files gone for good, and a share link to a deleted photo stops working (real loopback server)."""

from __future__ import annotations

import http.client
import os
import time
from datetime import UTC, datetime

import numpy as np
import pytest

from nailmirror_desktop.adapters.share.server import ShareServer
from nailmirror_desktop.ui import bridge
from nailmirror_desktop.ui.share.share_controller import ShareController
from nailmirror_desktop.ui.shell import i18n, theme
from nailmirror_desktop.ui.shell.main_window import SNAPSHOT, MainWindow
from nailmirror_desktop.ui.staff.snapshot_gallery import SnapshotGallery
from nailmirror_desktop.ui.staff.touch_controls import TOUCH_PX
from nailmirror_desktop.ui.tryon.snapshot import SnapshotPage, save_snapshot, snapshots_dir
from tests.support.ui_support import ROOT

pytestmark = pytest.mark.qt
ARTIFACTS = ROOT / "test-artifacts"
NAMES = {"FES-M1MWQS": ("奶白贝壳", "Milky white shell"), "GLT-7Q2P": ("星河闪粉", "Galaxy glitter")}


def _frame(colour):
    frame = np.zeros((360, 480, 3), np.uint8)
    frame[:] = colour
    frame[120:240, 160:320] = (255, 255, 255)
    return frame


def make_snapshots(count):
    """`count` snapshots through the kiosk's own save, a distinct time each (the name holds the UTC time)."""
    paths = []
    for i in range(count):
        code = list(NAMES)[i % 2]
        paths.append(save_snapshot(_frame((40 * i % 255, 90, 160)), _frame((200, 60 + 20 * i % 190, 120)), code))
        time.sleep(0.002)
    return paths


def build(qtbot, *, width=1280, height=800):
    from PySide6.QtWidgets import QApplication

    theme.apply_theme(QApplication.instance())
    bridge.install()
    gallery = SnapshotGallery(snapshots_dir, bridge.run_in_background, style_names=NAMES.get,
                              time_zone="Asia/Shanghai")
    qtbot.addWidget(gallery)
    gallery.resize(width, height)
    gallery.show()
    return gallery


def wait_listed(qtbot, gallery, count):
    qtbot.waitUntil(lambda: not gallery.busy and gallery.list_widget.count() == count, timeout=10000)


def test_the_grid_lists_newest_first_with_local_time_and_style_and_thumbnails_off_the_gui_thread(qtbot):
    i18n.install_language("en")
    paths = make_snapshots(10)
    gallery = build(qtbot)
    wait_listed(qtbot, gallery, 10)
    qtbot.waitUntil(lambda: gallery.thumbnails_loaded() == 10, timeout=20000)
    entries = gallery.entries()
    assert [e.after for e in entries] == list(reversed(paths))
    first = entries[0]
    stamp = datetime.strptime(first.stem.split("_")[0], "%Y%m%dT%H%M%S%fZ").replace(tzinfo=UTC)
    shanghai = (stamp.hour + 8) % 24  # the store's zone, not UTC
    text = gallery.list_widget.item(0).text()
    assert f"{shanghai:02d}:{stamp.minute:02d}" in text and first.style_code in text
    assert NAMES[first.style_code][1] in text  # the English name in English
    assert "10 photo" in gallery.count_label.text()
    for button in (gallery.delete_all_button, gallery.delete_button, gallery.back_button, gallery.side_button,
                   gallery.confirm_delete_button, gallery.keep_button):
        assert button.minimumHeight() >= TOUCH_PX and button.minimumWidth() >= TOUCH_PX
    ARTIFACTS.mkdir(exist_ok=True)
    gallery.grab().save(str(ARTIFACTS / "staff_snapshot_gallery.png"))
    i18n.install_language("zh_CN")
    try:
        qtbot.waitUntil(lambda: NAMES[first.style_code][0] in gallery.list_widget.item(0).text(), timeout=5000)
        gallery.grab().save(str(ARTIFACTS / "staff_snapshot_gallery_zh.png"))
    finally:
        i18n.install_language("en")


def test_tap_to_see_large_then_delete_one_after_confirming(qtbot):
    i18n.install_language("en")
    paths = make_snapshots(3)
    gallery = build(qtbot)
    wait_listed(qtbot, gallery, 3)
    deleted = []
    gallery.snapshots_deleted.connect(deleted.append)
    newest = gallery.entries()[0]
    gallery.list_widget.itemClicked.emit(gallery.list_widget.item(0))  # the tap
    assert gallery.open_entry() == newest and gallery.stack.currentIndex() == 1
    qtbot.waitUntil(lambda: gallery.large.pixmap() is not None and not gallery.large.pixmap().isNull(),
                    timeout=10000)
    gallery.grab().save(str(ARTIFACTS / "staff_snapshot_large.png"))
    gallery.side_button.click()
    assert gallery.side_button.text() == "Show after"
    gallery.delete_button.click()
    assert gallery.confirm_bar.isVisible() and "for good" in gallery.confirm_text.text()
    gallery.keep_button.click()  # changed their mind: nothing happens
    assert not gallery.confirm_bar.isVisible() and newest.after.exists()
    gallery.delete_button.click()
    gallery.confirm_delete_button.click()
    wait_listed(qtbot, gallery, 2)
    assert not newest.after.exists() and not newest.before.exists()
    assert gallery.stack.currentIndex() == 0
    assert [sorted(p.name for p in batch) for batch in deleted] == [sorted([newest.after.name,
                                                                            newest.before.name])]
    assert {e.after for e in gallery.entries()} == set(paths[:2])


def test_delete_all_asks_first_and_leaves_an_empty_gallery(qtbot):
    i18n.install_language("en")
    make_snapshots(4)
    gallery = build(qtbot)
    wait_listed(qtbot, gallery, 4)
    gallery.delete_all_button.click()
    assert gallery.confirm_bar.isVisible() and "4 photo" in gallery.confirm_text.text()
    gallery.confirm_delete_button.click()
    qtbot.waitUntil(lambda: not gallery.busy and not gallery.entries(), timeout=10000)
    assert [n for n in os.listdir(snapshots_dir()) if not n.startswith(".")] == []
    assert gallery.empty_label.isVisible() and not gallery.delete_all_button.isEnabled()


def test_many_snapshots_list_without_stalling_the_screen(qtbot):
    """200 snapshots: the grid fills from the worker a batch at a time; the GUI thread stays free (a timer
    keeps firing while the thumbnails decode)."""
    from PySide6.QtCore import QTimer

    folder = snapshots_dir()
    source = make_snapshots(1)[0]
    data_after = source.read_bytes()
    data_before = source.with_name(source.name.replace("_after", "_before")).read_bytes()
    for i in range(199):
        stem = f"2026110{1 + i // 100}T{i % 24:02d}{i % 60:02d}00000000Z_S-{i}"
        (folder / f"{stem}_after.png").write_bytes(data_after)
        (folder / f"{stem}_before.png").write_bytes(data_before)
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(10)
    gallery = build(qtbot)
    wait_listed(qtbot, gallery, 200)
    qtbot.waitUntil(lambda: gallery.thumbnails_loaded() == 200, timeout=60000)
    timer.stop()
    gaps = np.diff(ticks)
    print(f"gallery 200 snapshots: {len(ticks)} ticks, longest GUI gap {gaps.max() * 1000:.0f} ms")
    assert len(ticks) > 10 and gaps.max() < 0.5  # no half-second freeze (loose: a shared 2-core machine)


def test_a_share_link_to_a_deleted_snapshot_stops_working(qtbot):
    i18n.install_language("en")
    path = make_snapshots(1)[0]
    server = ShareServer(port=0, bind="127.0.0.1", advertised_host=lambda: "127.0.0.1")
    try:
        window = MainWindow()
        qtbot.addWidget(window)
        page = SnapshotPage()
        window.set_page_widget(SNAPSHOT, page)
        share = ShareController(window, page, server, lambda: path, lambda: ("奶白贝壳", "FES-M1MWQS", "¥128"))
        share.take_home()
        assert share.page.card.price.text() == "¥128"
        token = share._token
        port = server.bound_port
        assert _get(port, f"/s/{token}") == 200  # the landing page, before
        gallery = build(qtbot)
        gallery.snapshots_deleted.connect(share.forget_snapshots)  # as the shell connects them
        wait_listed(qtbot, gallery, 1)
        gallery.open_snapshot(gallery.entries()[0].stem)
        gallery.ask_delete_open()
        gallery.confirm()
        qtbot.waitUntil(lambda: not gallery.busy and not gallery.entries(), timeout=10000)
        assert not path.exists()
        assert _get(port, f"/s/{token}") == 404 and _get(port, f"/s/{token}/photo.png") == 404
    finally:
        server.close()


def _get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


@pytest.mark.slow
def test_the_kiosks_staff_pages_have_the_gallery_and_announce_deletions(qtbot):
    """Wiring: the Photos tab behind the PIN lists what the kiosk saved; the door passes a deletion on (the shell
    connects it to the share controller, as tested above)."""
    from nailmirror_desktop.core.config import load_config, save_config
    from tests.support.ui_support import set_staff_pin, started_kiosk

    i18n.install_language("en")
    save_config(load_config())
    set_staff_pin()
    paths = make_snapshots(2)
    with started_kiosk(qtbot) as kiosk:
        kiosk.staff.enter()
        page, gallery = kiosk.staff.staff_page, kiosk.staff.snapshot_gallery
        assert gallery is not None
        names = [page.tabs.tabText(i) for i in range(page.tabs.count())]
        assert "Photos" in names
        page.tabs.setCurrentIndex(names.index("Photos"))  # shown: it lists the folder again
        wait_listed(qtbot, gallery, 2)
        announced = []
        kiosk.staff.snapshots_deleted.connect(announced.append)
        gallery.open_snapshot(gallery.entries()[0].stem)
        gallery.ask_delete_open()
        gallery.confirm()
        qtbot.waitUntil(lambda: bool(announced) and not gallery.busy and len(gallery.entries()) == 1, timeout=10000)
        assert paths[1] in announced[0] and not paths[1].exists() and paths[0].exists()
        kiosk.window.grab().save(str(ARTIFACTS / "staff_photos_tab.png"))
        kiosk.staff.leave()
        qtbot.wait(500)  # the customer page paints before shutdown (see test_review_price)
