"""Staff mode: the PIN door (no default PIN; set on the kiosk PC), review with a reason, import from a folder, the
task monitor's dead letters, settings."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from nailmirror_desktop.core.catalog.status import StyleStatus
from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.config import config_path, load_config, save_config
from nailmirror_desktop.core.staff_pin import LOCK_AFTER, PinOutcome, StaffPin
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.shell.main_window import CUSTOMER, STAFF
from nailmirror_desktop.ui.staff.pin_dialog import PinDialog
from nailmirror_desktop.ui.staff.review_page import REVIEW_STATUSES
from nailmirror_desktop.ui.staff.settings_page import masked
from tests.support.ui_support import ROOT, STAFF_PIN, set_staff_pin, started_kiosk

STYLE_FOLDER = ROOT / "resources" / "demo" / "styles" / "rose_gloss"
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture
def kiosk(qtbot):
    save_config(load_config())
    set_staff_pin()
    with started_kiosk(qtbot) as controller:
        qtbot.waitUntil(lambda: controller.tryon.style_browser.model.rowCount() > 0, timeout=60000)
        yield controller


def test_pin_is_stored_hashed_and_checked(qtbot):
    set_staff_pin()
    stored = json.loads(config_path().read_text())
    assert STAFF_PIN not in json.dumps(stored) and len(stored["staff_pin_hash"]) == 64
    dialog = PinDialog(StaffPin())
    qtbot.addWidget(dialog)
    dialog.entry.setText("0000")
    assert not dialog.try_pin() and dialog.result() == 0 and dialog.message.text() == "Wrong PIN."
    dialog.entry.setText(STAFF_PIN)
    assert dialog.try_pin() and dialog.result() == PinDialog.DialogCode.Accepted


def test_the_keypad_lock_outlives_the_dialog_and_grows(qtbot):
    """Before: 5 wrong PINs locked the keypad for a minute in this process only, and never longer."""
    set_staff_pin()
    clock = ManualClock()
    for _ in range(LOCK_AFTER):
        dialog = PinDialog(StaffPin(clock=clock))  # a new dialog (and a new process) each time
        qtbot.addWidget(dialog)
        dialog.entry.setText("0000")
        assert not dialog.try_pin()
    assert dialog.message.text() == "Too many wrong PINs. Try again in 30 s."
    clock.advance(31)
    dialog = PinDialog(StaffPin(clock=clock))
    qtbot.addWidget(dialog)
    dialog.entry.setText("0000")
    assert not dialog.try_pin() and dialog.message.text() == "Too many wrong PINs. Try again in 1 min."
    dialog.entry.setText(STAFF_PIN)
    assert not dialog.try_pin() and dialog.result() == 0  # locked: even the right PIN waits
    clock.advance(61)
    dialog.entry.setText(STAFF_PIN)
    assert dialog.try_pin()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_without_a_pin_the_kiosk_runs_and_the_staff_door_says_how_to_set_one(qtbot, language):
    """No PIN: the kiosk starts in customer mode on the demo; tapping ⋯ shows how staff set one on the kiosk PC
    and opens no keypad (a customer tapping it first cannot set a PIN)."""
    with started_kiosk(qtbot) as controller:
        i18n.install_language(language)
        qtbot.waitUntil(lambda: controller.tryon.style_browser.model.rowCount() > 0, timeout=60000)
        assert controller.window.current_page() == CUSTOMER
        # the demo starts on its own, not before the catalog shows (which a loaded catalog does at once)
        qtbot.waitUntil(lambda: controller.services.supervisor.state == "DEMO", timeout=60000)
        qtbot.mouseClick(controller.window.staff_button, Qt.MouseButton.LeftButton)
        notice = controller.staff.no_pin_notice
        assert notice is not None and notice.isVisible()
        assert "nailmirror staff set-pin" in notice.text()
        assert ("设置" in notice.text()) == (language == "zh_CN")
        assert controller.staff.pin_dialog is None and controller.staff.staff_page is None
        notice.close_button.click()
        assert not notice.isVisible()
        assert controller.window.current_page() == CUSTOMER
        set_staff_pin()  # set on the kiosk PC while the kiosk runs: the door opens to it without a restart
        qtbot.mouseClick(controller.window.staff_button, Qt.MouseButton.LeftButton)
        dialog = controller.staff.pin_dialog
        assert dialog is not None and dialog.isVisible()
        dialog.entry.setText(STAFF_PIN)
        assert dialog.try_pin()
        assert controller.window.current_page() == STAFF and controller.staff.pin_dialog is None


def test_the_no_pin_notice_is_a_finger_sized_panel_in_the_kiosk_and_the_idle_reset_closes_it(qtbot):
    """Before: a desktop message box over the mirror with a small OK, and it outlived the idle reset, so the
    next customer found it."""
    from PySide6.QtCore import QPoint, QRect
    from PySide6.QtWidgets import QApplication

    from nailmirror_desktop.ui.shell import theme

    theme.apply_theme(QApplication.instance())
    try:
        with started_kiosk(qtbot) as controller:
            i18n.install_language("zh_CN")
            window = controller.window
            window.resize(1920, 1080)
            qtbot.mouseClick(window.staff_button, Qt.MouseButton.LeftButton)
            notice = controller.staff.no_pin_notice
            assert notice is not None and notice.isVisible() and notice.window() is window  # not its own window
            assert notice.geometry() == window.rect()  # over the whole kiosk, the mirror dimmed
            button = notice.close_button
            assert button.height() >= 64 and button.width() >= 200 and button.text() == "知道了"
            card = QRect(notice.card.mapTo(window, QPoint(0, 0)), notice.card.size())
            assert window.rect().contains(card)
            ARTIFACTS.mkdir(exist_ok=True)
            window.grab().save(str(ARTIFACTS / "staff_no_pin_panel.png"))
            controller.reset_session()  # the customer who tapped ⋯ walked away
            assert not notice.isVisible()
            qtbot.mouseClick(window.staff_button, Qt.MouseButton.LeftButton)
            assert notice.isVisible()
            qtbot.mouseClick(notice, Qt.MouseButton.LeftButton, pos=QPoint(10, 10))  # beside the card
            assert not notice.isVisible()
    finally:
        QApplication.instance().setStyleSheet("")
        i18n.install_language("en")


def test_settings_change_the_pin_only_with_the_current_one(qtbot, kiosk):
    kiosk.staff.enter()
    page = kiosk.staff.settings_page
    page.idle.setValue(40)
    page.new_pin.setText("24682468")
    assert not page.save()  # no current PIN: refused, nothing saved
    assert "current PIN" in page.feedback.text() and load_config().idle_timeout_s != 40
    assert page.new_pin.text() == "24682468" and page.idle.value() == 40  # nothing the staff typed is lost
    page.current_pin.setText("0000")
    assert not page.save()
    page.current_pin.setText(STAFF_PIN)
    assert page.save()
    assert load_config().idle_timeout_s == 40
    assert StaffPin().attempt("24682468").outcome == PinOutcome.ACCEPTED
    assert StaffPin().attempt(STAFF_PIN).outcome == PinOutcome.WRONG


def test_review_rejects_only_with_a_reason_and_approval_reaches_the_customer(qtbot, kiosk):
    kiosk.staff.enter()
    assert kiosk.window.current_page() == STAFF
    review = kiosk.staff.review_page
    kiosk.staff.import_style_folder(str(STYLE_FOLDER))
    qtbot.waitUntil(lambda: review._selected is not None, timeout=20000)
    code = review._selected.style_code
    assert review._selected.status == StyleStatus.DRAFT
    assert review.decide("submit")
    assert not review.decide("reject", "")  # a rejection needs a reason
    assert review._selected.status == StyleStatus.PENDING_REVIEW
    assert review.decide("reject", "colour too dark for spring")
    trail = kiosk.services.repository.audit_trail(review._selected.id)
    assert trail[-1].action == "REJECT" and trail[-1].reason == "colour too dark for spring"
    assert code not in kiosk.tryon.style_browser.model.codes()
    assert review.decide("revise") and review.decide("submit") and review.decide("approve")
    assert review._selected.status == StyleStatus.PUBLISHED
    kiosk.staff.leave()
    assert code in kiosk.tryon.style_browser.model.codes()
    review.status_tabs.setCurrentIndex(REVIEW_STATUSES.index(StyleStatus.PUBLISHED))
    assert code in review.model.codes()
    review.select_code(code)
    assert review.decide("off_shelf")
    kiosk.tryon.style_browser.reload()
    assert code not in kiosk.tryon.style_browser.model.codes()


@pytest.mark.slow
def test_dead_letter_is_replayed_from_the_task_monitor(qtbot, kiosk):
    engine = kiosk.services.engine
    kiosk.staff.enter()
    monitor = kiosk.staff.task_monitor
    task = engine.submit("STYLE_GENERATION", {"prompt": "", "provider": "offline"}, provider="offline")
    qtbot.waitUntil(lambda: engine.get(task.task_no).status.value == "DEAD", timeout=20000)
    qtbot.waitUntil(lambda: task.task_no in monitor.model.task_nos(), timeout=5000)  # live update from signals
    monitor.status_filter.setCurrentIndex(monitor.status_filter.findData("DEAD"))
    assert monitor.select_task(task.task_no)
    assert "1" in monitor.counts.text()
    assert monitor._act("replay")
    replayed = engine.get(task.task_no)
    assert replayed.replay_count == 1
    qtbot.waitUntil(lambda: engine.get(task.task_no).status.value == "DEAD", timeout=20000)  # still bad input
    monitor.reload()
    assert monitor.select_task(task.task_no)
    assert monitor._act("ignore")
    assert engine.get(task.task_no).dead_letter_state == "IGNORED"


def test_settings_save_the_key_without_showing_it(qtbot, kiosk):
    kiosk.staff.enter()
    page = kiosk.staff.settings_page
    page.provider.setCurrentIndex(page.provider.findData("openai"))
    page.api_key.setText("sk-test-abcdefghijklmnop1234")
    page.idle.setValue(45)
    page.hands.setCurrentIndex(page.hands.findData(1))  # two is the default now: the change is to one
    page.keep_days.setValue(3)
    assert page.save()
    assert page.api_key.text() == ""
    assert page.key_state.text() == masked_of("sk-test-abcdefghijklmnop1234") == "••••1234"
    stored = json.loads(config_path().read_text())
    assert stored["providers"]["default"] == "openai" and stored["idle_timeout_s"] == 45
    assert load_config().idle_timeout_s == 45
    assert stored["hands_tracked"] == 1 and load_config().hands_tracked == 1
    assert stored["snapshot_keep_days"] == 3 and load_config().snapshot_keep_days == 3


def masked_of(value: str) -> str:
    from nailmirror_desktop.core.generation.provider_config import Secret

    return masked(Secret(value))


@pytest.mark.slow
def test_staff_controls_are_finger_sized_and_closing_asks_first(qtbot, kiosk):
    from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QApplication, QComboBox, QLineEdit, QTabBar

    from nailmirror_desktop.ui.shell import theme

    app = QApplication.instance()
    theme.apply_theme(app)  # as the kiosk does: the sizes are the theme's and the pages' together
    try:
        _check_staff_controls(qtbot, kiosk, (QAbstractButton, QComboBox, QLineEdit), QAbstractSpinBox, QTabBar)
    finally:
        app.setStyleSheet("")


def _check_staff_controls(qtbot, kiosk, touch_types, spin_type, tab_bar_type):
    kiosk.staff.enter()
    page = kiosk.staff.staff_page
    too_small = []
    for index in range(page.tabs.count()):
        page.tabs.setCurrentIndex(index)
        qtbot.wait(50)  # laid out
        ARTIFACTS.mkdir(exist_ok=True)
        kiosk.window.grab().save(str(ARTIFACTS / f"staff_{kiosk.staff.staff_page._page_keys[index]}.png"))
        for widget in [w for kind in touch_types for w in page.findChildren(kind)]:
            if widget.isVisible() and widget.height() < 48:
                name = widget.objectName() or getattr(widget, 'text', lambda: '')()
                too_small.append(f"{type(widget).__name__} {name!r} {widget.height()}")
        for spin in page.findChildren(spin_type):
            if spin.isVisible() and spin.lineEdit().width() < spin.width() - 40:  # room left for arrows
                too_small.append(f"spin box arrows on {spin.objectName()!r}")
    bar = page.tabs.findChild(tab_bar_type)
    assert all(bar.tabRect(i).height() >= 48 for i in range(bar.count())), [bar.tabRect(i) for i in range(bar.count())]
    assert too_small == []
    quits = []
    page.quit_requested.connect(lambda: quits.append(1))
    page.quit_button.click()
    assert quits == [] and page.confirm_bar.isVisible()  # asked, not closed
    page.keep_running_button.click()
    assert quits == [] and not page.confirm_bar.isVisible()
    page.quit_button.click()
    page.confirm_quit_button.click()
    assert quits == [1]


def rect_in(page, widget):
    from PySide6.QtCore import QPoint, QRect

    return QRect(widget.mapTo(page, QPoint(0, 0)), widget.size())


def test_closing_the_kiosk_sits_apart_from_the_way_back_and_asks_first(qtbot):
    """Before: 关闭终端 sat right beside 返回顾客界面 in the header; a finger meant for one could take the other."""
    from PySide6.QtWidgets import QApplication, QWidget

    from nailmirror_desktop.ui.shell import theme
    from nailmirror_desktop.ui.staff.staff_page import StaffPage

    theme.apply_theme(QApplication.instance())
    try:
        page = StaffPage([("settings", QWidget()), ("diagnostics", QWidget())])
        qtbot.addWidget(page)
        page.resize(1920, 1080)
        page.show()
        qtbot.waitExposed(page)
        leave, close = rect_in(page, page.leave_button), rect_in(page, page.quit_button)
        assert leave.left() - close.right() > 1920 // 2  # the header's two ends
        assert page.quit_button.objectName() == "quietDanger" and close.height() >= 64
        page.resize(1280, 800)  # the smallest kiosk screen: still far apart
        qtbot.wait(50)
        leave, close = rect_in(page, page.leave_button), rect_in(page, page.quit_button)
        assert leave.left() - close.right() > 1280 // 3
        page.quit_button.click()
        bar = rect_in(page, page.confirm_bar)
        assert page.confirm_bar.isVisible() and bar.top() > close.bottom()  # asked just under it
        yes = rect_in(page, page.confirm_quit_button)
        assert yes.right() < leave.left() - 1280 // 3  # "yes, close it" is not where "back" was either
    finally:
        QApplication.instance().setStyleSheet("")
