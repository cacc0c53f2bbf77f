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


def test_the_store_time_zone_and_prices_are_saved_and_charge_the_next_generation(qtbot, page):
    """Staff pick a zone (region, then zone) and a price per image; saved in config.json, and the running
    engine's hooks charge the next generation with them (the credits page applies the saved config)."""
    from nailmirror_desktop.app.services import register_credits
    from nailmirror_desktop.core.credits import CreditPolicy, apply_grant, ledger_entries
    from nailmirror_desktop.core.generation.flow import submit_generation
    from nailmirror_desktop.core.paths import database_path
    from nailmirror_desktop.core.tasks import TaskEngine
    from nailmirror_desktop.ui.staff.credits_page import CreditsPage

    box = page.credit_settings
    assert set(box.price_boxes) == {"openai", "dashscope"}  # offline: shown free, no box to edit
    assert box.offline_price.text().startswith("Free")
    box.region.setCurrentIndex(box.region.findData("Europe"))
    assert all(box.zone.itemData(i).startswith("Europe/") for i in range(box.zone.count()))
    box.set_zone("Europe/Paris")
    assert box.zone_name() == "Europe/Paris" and "Paris (UTC+0" in box.zone.currentText()
    box.price_boxes["openai"].plus.click()
    box.price_boxes["openai"].plus.click()  # 1 (the default) → 3
    with TaskEngine(database_path()) as engine:
        hooks = register_credits(engine, CreditPolicy(models={"openai": "gpt-image-1"}))
        credits = CreditsPage(engine)
        qtbot.addWidget(credits)
        page.config_saved.connect(credits.apply_config)
        assert page.save()
        saved = load_config()
        assert saved.store_time_zone == "Europe/Paris"
        assert saved.credit_prices[box.price_key("openai")] == 3 and "offline" not in saved.credit_prices
        assert hooks.policy.time_zone == "Europe/Paris" and hooks.policy.unit_price("openai") == 3
        with engine.write_transaction() as conn:
            apply_grant(conn, "g-1", 10, "test")
        submit_generation(engine, "glitter", "openai")
        (charge, _grant) = ledger_entries(engine.connection(), hooks.policy)
        assert (charge.unit_price, charge.amount) == (3, 3)  # no restart
        submit_generation(engine, "glitter", "offline")  # still free
        assert len(ledger_entries(engine.connection(), hooks.policy)) == 2


def test_the_time_zone_picker_speaks_the_ui_language_and_is_finger_sized(qtbot, page):
    box = page.credit_settings
    box.set_zone("Asia/Shanghai")
    assert "China Standard Time" in box.zone.currentText()
    i18n.install_language("zh_CN")
    try:
        qtbot.waitUntil(lambda: "中国标准时间" in box.zone.currentText(), timeout=3000)  # LanguageChange is posted
        assert box.region.currentText() == "亚洲" and box.zone_label.text() == "门店时区（每日上限按此日计）"
    finally:
        i18n.install_language("en")
    assert min(box.region.height(), box.zone.height(), box.use_system.height()) >= 48
    box.use_system.click()  # this computer's zone: the test machine's own
    assert box.zone_name()
