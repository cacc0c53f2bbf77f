"""The staff's journey: no PIN yet, the PIN set with the CLI, the PIN pad, the staff pages (issue #22)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import cv2
import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QCheckBox, QStyle, QStyleOptionButton, QWidget

from nailmirror_desktop.core.config import system_time_zone
from nailmirror_desktop.ui.shell import i18n
from tests.journeys import steps
from tests.journeys.runner import ROOT, Journey, run_journey, write_config
from tests.journeys.steps import page, tr

pytestmark = [pytest.mark.journey, pytest.mark.no_qt_log]
PIN = "3579"
PRICE = "168"
GUIDE_S = 2.5  # the clip's empty counter: longer than the guide's grace (mirror_loop.GUIDE_GRACE_MS)


def set_pin_with_the_cli(pin: str) -> None:
    """`nailmirror staff set-pin --stdin`, as staff run it on the kiosk PC (its own process)."""
    done = subprocess.run([sys.executable, "-m", "nailmirror_desktop", "staff", "set-pin", "--stdin"],
                          input=f"{pin}\n{pin}\n", text=True, capture_output=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]


def wheel_over(widget: QWidget, notches: int) -> None:
    """A mouse wheel turned over `widget` (Qt's own wheel event, delivered to it), as when staff scroll a page."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(widget.rect().center())), QPoint(0, 0),
                        QPoint(0, -120 * notches), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def local_now_minute_prefix(zone: str) -> str:
    """The date and hour of now in the store's zone, as the audit trail starts its lines."""
    return datetime.now(ZoneInfo(zone)).strftime("%Y-%m-%d %H")


def clip_starting_without_hands(path: Path) -> Path:
    """The bundled demo after GUIDE_S of an empty counter (a grey frame), as the clip the kiosk loops
    (KioskConfig.demo_video): the mirror's hand guide has a stretch without hands to show on."""
    demo = cv2.VideoCapture(str(ROOT / "resources" / "demo" / "hand_demo.mp4"))
    fps = demo.get(cv2.CAP_PROP_FPS) or 30.0
    frames = []
    while True:
        ok, frame = demo.read()
        if not ok:
            break
        frames.append(frame)
    demo.release()
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, (width, height))
    empty = np.full_like(frames[0], 110)
    for frame in [empty] * round(GUIDE_S * fps) + frames:
        writer.write(frame)
    writer.release()
    return path


def checkbox_box(box: QCheckBox) -> QPoint:
    option = QStyleOptionButton()
    option.initFrom(box)
    return box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box).center()


def staff(journey: Journey) -> None:
    controller = journey.screen.controller
    window = controller.window
    steps.first_start(journey)
    with journey.step("hand guide: shown over the empty counter") as s:
        s.wait_until(window.mirror.guide_visible, "the hand guide", timeout_s=30)
        assert window.mirror.guide_text() == tr("MirrorView", "Place both hands flat inside the outlines")
    with journey.step("hand guide: gone with both hands") as s:
        s.wait_until(lambda: not window.mirror.guide_visible(), "the guide gone", timeout_s=30)
    with journey.step("no PIN set: the hint") as s:
        s.tap_at(window.staff_button)
        s.wait_until(lambda: s.shows_text("nailmirror staff set-pin"), "the notice naming the CLI command")
        assert page(s) == "customer"
        notice = controller.staff.no_pin_notice
        assert notice.window() is window and len(s.windows()) == 1  # a panel in the kiosk, no desktop box
        assert s.button(tr("NoPinPanel", "Got it")).height() >= 64
    with journey.step("the hint closes with its button") as s:
        s.tap(tr("NoPinPanel", "Got it"))
        s.wait_until(lambda: not s.shows_text("nailmirror staff set-pin"), "the notice closed")
    with journey.step("the hint again: the idle reset closes it") as s:
        s.tap_at(window.staff_button)
        s.wait_until(lambda: s.shows_text("nailmirror staff set-pin"), "the notice again")
        s.wait_until(lambda: not s.shows_text("nailmirror staff set-pin"), "the idle reset closed the notice",
                     timeout_s=controller.config.idle_timeout_s + 60)
    with journey.step("set the PIN with the CLI, then the PIN pad") as s:
        set_pin_with_the_cli(PIN)
        s.tap_at(window.staff_button)
        s.wait_until(lambda: s.shows_text(tr("PinDialog", "Staff PIN")), "the PIN pad")
        for digit in PIN:
            s.tap(digit)
        s.tap("OK")
        s.wait_until(lambda: page(s) == "staff", "the staff pages")
    staff_page = controller.staff.staff_page
    tabs = staff_page.tabs
    with journey.step("review a style and set its price") as s:
        s.tap_tab(tabs, tr("StaffPage", "Review"))
        review = controller.staff.review_page
        bar = review.status_tabs  # a status with styles in it (its count in the tab's name: "已上架 (24)")
        with_styles = s.wait_until(lambda: next((i for i in range(bar.count()) if not bar.tabText(i).endswith("(0)")),
                                               None) is not None, "a status tab with styles")
        assert with_styles
        index = next(i for i in range(bar.count()) if not bar.tabText(i).endswith("(0)"))
        s.tap_at(bar, bar.tabRect(index).center())
        s.wait_until(lambda: review.list_view.model().rowCount() > 0, "styles to review")
        s.tap_list_row(review.list_view, 0)
        s.tap_at(review.price_edit)
        s.wait_until(lambda: review.price_edit.hasFocus(), "the price field focused", timeout_s=8)
        s.type_keys(PRICE)  # the staff PC's own keyboard (key presses at the kiosk window)
        s.wait_until(lambda: review.price_edit.text() == PRICE, f"{PRICE} typed", timeout_s=8)
        s.tap(tr("ReviewPage", "Set price"))
        s.wait_until(lambda: PRICE in review.feedback.text(), "the price set")
        newest = review.history.toPlainText().splitlines()[0]  # the trail as a sentence, newest first
        code = review._selected.style_code
        assert code in newest and f"¥{PRICE}" in newest and "SET_PRICE" not in newest, newest
        assert newest.startswith(local_now_minute_prefix(controller.config.store_time_zone)), newest
        s.scroll_to(review.history)  # the trail in the screenshot
    with journey.step("settings: provider names, the store's zone") as s:
        s.tap_tab(tabs, tr("StaffPage", "Settings"))
        settings = controller.staff.settings_page
        shown = [settings.provider.itemText(i) for i in range(settings.provider.count())]
        assert not set(shown) & {"offline", "openai", "dashscope"}, shown  # names, not config ids
        zone = settings.credit_settings.zone_name()
        assert zone == system_time_zone() and zone != "UTC", zone  # the PC's, or Asia/Shanghai if it says UTC
        s.scroll_to(settings.credit_settings.zone)  # names and zone in the screenshot
    with journey.step("settings: a wheel passing over Language changes nothing") as s:
        s.scroll_to(settings.language)
        before = settings.language.currentIndex()
        wheel_over(settings.language, notches=3)
        s.settle()
        assert settings.language.currentIndex() == before and i18n.current_language() == "zh_CN"
    with journey.step("settings: the Language drop-down open, rows for a finger") as s:
        s.tap_at(settings.language)
        view = settings.language.view()
        s.wait_until(view.isVisible, "the drop-down open")
        rows = [view.visualRect(view.model().index(i, 0)).height() for i in range(settings.language.count())]
        assert min(rows) >= 56, rows
    with journey.step("settings: the drop-down closed on the same language") as s:
        # A tap on the open list's row, delivered to the list itself: the open list is a popup window, which
        # Xvfb (no window manager) never makes active, so tap_at would wait for an activation that never comes.
        # Qt ignores a release sooner than a double-click interval after the tap that opened the list.
        s.settle(QApplication.doubleClickInterval() + 200)
        row = view.visualRect(view.model().index(settings.language.currentIndex(), 0)).center()
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, row)
        s.wait_until(lambda: not view.isVisible(), "the drop-down closed")
        assert page(s) == "staff"
        assert i18n.current_language() == "zh_CN"
    with journey.step("settings: take-home on") as s:
        s.scroll_to(settings.share)
        if not settings.share.isChecked():
            s.tap_at(settings.share, checkbox_box(settings.share))  # on its box: the row is wider than box and text
            s.wait_until(settings.share.isChecked, "take-home ticked")
        s.scroll_to(settings.save_button)
        s.tap_at(settings.save_button)
        s.wait_until(lambda: settings.feedback.text(), "the settings saved")
    for title in ("Credits", "Tasks", "Photos", "Diagnostics"):
        with journey.step(f"{title.lower()} page") as s:
            shown = tr("StaffPage", title)
            s.tap_tab(tabs, shown)
            s.wait_until(lambda shown=shown: tabs.tabText(tabs.currentIndex()) == shown and tabs.currentWidget()
                         .isVisible(), f"the {title} tab")
    with journey.step("close the kiosk: apart from the way back, asked first") as s:
        leave, close = s.button(tr("StaffPage", "Back to the customer screen")), s.button(tr("StaffPage",
                                                                                             "Close the kiosk"))
        assert leave.mapToGlobal(leave.rect().topLeft()).x() - close.mapToGlobal(close.rect().topRight()).x() > 400
        s.tap(tr("StaffPage", "Close the kiosk"))
        s.wait_until(lambda: s.shows_text(tr("StaffPage", "Keep it running")), "the question, under the header")
    with journey.step("keep it running") as s:
        s.tap(tr("StaffPage", "Keep it running"))
        s.wait_until(lambda: not s.shows_text(tr("StaffPage", "Keep it running")), "the question gone")
        assert page(s) == "staff"
    with journey.step("back to the customer") as s:
        s.tap(tr("StaffPage", "Back to the customer screen"))
        s.wait_until(lambda: page(s) == "customer", "the customer page")
    steps.snapshot_after_countdown(journey)  # the clip may be at its empty counter: 1 waits for the hands
    with journey.step("take-home works without a restart") as s:
        s.wait_until(lambda: s.buttons(tr("_TakeHomeButton", "Send to my phone")),
                     "take-home offered at once: no restart")
        assert not settings.restart_button.isVisible()  # the settings page asked for none
    number = steps.want_this_one(journey)
    with journey.step("staff: the customer's request listed") as s:
        s.tap(tr("SnapshotPage", "Back to the mirror"))
        s.wait_until(lambda: page(s) == "customer", "the mirror")
        s.tap_at(window.staff_button)
        s.wait_until(lambda: s.shows_text(tr("PinDialog", "Staff PIN")), "the PIN pad")
        for digit in PIN:
            s.tap(digit)
        s.tap("OK")
        s.wait_until(lambda: page(s) == "staff", "the staff pages")
        s.tap_tab(tabs, tr("StaffPage", "Requests"))
        requests = controller.staff.requests_page
        s.wait_until(lambda: number in requests.numbers(), f"{number} on the requests page")
        row = next(r for r in requests.rows.values() if r.request.number == number)
        s.wait_until(lambda: row.photo.pixmap() is not None and not row.photo.pixmap().isNull(), "her photo")
    with journey.step("staff: mark it done") as s:
        s.scroll_to(row.done_button)
        s.tap_at(row.done_button)
        s.wait_until(lambda: number not in requests.numbers(), f"{number} off the list")
        s.tap(tr("StaffPage", "Back to the customer screen"))
        s.wait_until(lambda: page(s) == "customer", "the customer page")


def test_staff(journey_display, nailmirror_home, monkeypatch):
    write_config(nailmirror_home, demo_video=str(clip_starting_without_hands(nailmirror_home / "clip.mp4")))
    run_journey("staff", staff, monkeypatch)
