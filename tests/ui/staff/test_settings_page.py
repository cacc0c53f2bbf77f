"""Settings that take effect only at the next start offer a restart; sharing to phones is a setting, off."""

from __future__ import annotations

import pytest

from nailmirror_desktop.core.config import load_config, save_config
from nailmirror_desktop.core.staff_pin import StaffPin
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.staff.settings_page import SettingsPage

pytestmark = pytest.mark.qt


@pytest.fixture
def page(qtbot):
    i18n.install_language("en")
    config = load_config()
    save_config(config)
    settings = SettingsPage(config, StaffPin(), running=config)
    qtbot.addWidget(settings)
    settings.show()
    return settings


def test_a_start_only_setting_offers_a_restart_and_a_live_one_does_not(qtbot, page):
    page.idle.setValue(120)
    assert page.save()
    assert not page.restart_button.isVisibleTo(page) and page.feedback.text() == "Saved."
    assert not page.share.isChecked()  # off by default: photos stay on the kiosk
    page.share.setChecked(True)
    assert page.save()
    assert load_config().share_to_phone is True
    assert page.restart_button.isVisibleTo(page) and "Restart" in page.feedback.text()
    with qtbot.waitSignal(page.restart_requested, timeout=1000):
        page.restart_button.click()
    page.share.setChecked(False)  # back to what the kiosk runs with: nothing waits for a restart any more
    assert page.save()
    assert not page.restart_button.isVisibleTo(page)


def test_number_settings_step_with_finger_sized_buttons(qtbot, page):
    before = page.keep_days.value()
    page.keep_days.plus.click()
    page.keep_days.plus.click()
    page.keep_days.minus.click()
    assert page.keep_days.value() == before + 1
    page.idle.plus.click()
    assert page.idle.value() == load_config().idle_timeout_s + 10  # idle steps by 10 s
    for spin in (page.idle, page.keep_days):
        assert spin.spin.lineEdit().width() >= spin.spin.width() - 40  # the number has the box: no 12 px arrows
        assert spin.spin.text().startswith(str(spin.value()))
        assert min(spin.plus.height(), spin.minus.height(), spin.plus.width()) >= 48
