"""The staff credits page over a real database: balance, pending, today's use, the low-balance alert (zh_CN and
en) and the ledger; the customer's words for each refusal code."""

from __future__ import annotations

import pytest

from nailmirror_desktop.app.services import register_credits
from nailmirror_desktop.core.credits import CreditPolicy, CreditRefused, apply_grant
from nailmirror_desktop.core.generation.flow import submit_generation
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.tasks import TaskEngine
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.shell.messages import generation_error_text
from nailmirror_desktop.ui.staff.credits_page import CreditsPage


@pytest.fixture
def engine():
    with TaskEngine(database_path()) as engine:
        register_credits(engine, CreditPolicy(low_balance_threshold=5, daily_cap=20))
        yield engine


def grant(engine: TaskEngine, amount: int, grant_id: str) -> None:
    with engine.write_transaction() as conn:
        apply_grant(conn, grant_id, amount, "test")


def test_before_a_grant_the_page_says_the_balance_is_not_enforced(qtbot, engine):
    page = CreditsPage(engine)
    qtbot.addWidget(page)
    page.refresh()
    assert "not limited" in page.values["balance"].text()
    assert page.alert.isHidden() and page.table.rowCount() == 0


def test_balance_pending_alert_and_ledger(qtbot, engine):
    grant(engine, 3, "g-1")
    task = submit_generation(engine, "glitter", "openai")
    page = CreditsPage(engine)
    qtbot.addWidget(page)
    page.refresh()
    assert page.values["balance"].text() == "2" and page.values["pending"].text() == "1"
    assert "1 paid generation(s) of 20" in page.values["today"].text()
    assert not page.alert.isHidden() and "2 left (alert below 5)" in page.alert.text()
    assert page.table.rowCount() == 2
    assert [page.table.item(0, c).text() for c in (1, 2, 3, 5)] == ["CHARGE", "PENDING", "1", task.task_no]
    assert page.table.item(1, 1).text() == "GRANT"

    grant(engine, 10, "g-2")
    page.refresh()
    assert page.values["balance"].text() == "12" and page.alert.isHidden()


def test_the_alert_is_in_chinese_by_default(qtbot, engine):
    grant(engine, 1, "g-1")
    page = CreditsPage(engine)
    qtbot.addWidget(page)
    page.refresh()
    try:
        assert i18n.install_language("zh_CN")
        qtbot.waitUntil(lambda: "积分即将用完" in page.alert.text(), timeout=2000)
        assert page.labels["balance"].text() == "余额"
    finally:
        i18n.install_language("en")


@pytest.mark.parametrize(("code", "en", "zh"), [
    ("INSUFFICIENT_CREDITS", "not available right now", "暂时不可用"),
    ("DAILY_CAP_REACHED", "today", "今天"),
    ("SESSION_CAP_REACHED", "one visit", "本次体验"),
])
def test_each_refusal_has_a_friendly_sentence_for_the_customer(qtbot, engine, code, en, zh):
    try:
        assert i18n.install_language("zh_CN")
        assert zh in generation_error_text(code, "INVALID_REQUEST")
        assert i18n.install_language("en")
        assert en in generation_error_text(code, "INVALID_REQUEST")
    finally:
        i18n.install_language("en")


def test_the_refusal_the_panel_shows_is_the_one_submit_raises(engine):
    grant(engine, 1, "g-1")
    submit_generation(engine, "glitter", "openai")
    with pytest.raises(CreditRefused) as refused:
        submit_generation(engine, "glitter", "openai")
    assert "not available" in generation_error_text(refused.value.code, refused.value.error_class.value)


def test_staff_set_the_limits_saved_and_applied_at_once(qtbot, engine):
    from nailmirror_desktop.core.config import load_config
    from nailmirror_desktop.core.staff_pin import StaffPin
    from nailmirror_desktop.ui.staff.settings_page import SettingsPage

    page = CreditsPage(engine)
    qtbot.addWidget(page)
    assert page.daily_cap.value() == 20 and page.session_cap.value() == 3 and page.low_balance.value() == 5
    page.session_cap.setValue(1)
    page.low_balance.setValue(7)
    with qtbot.waitSignal(page.config_saved) as saved:
        page.save_limits()
    assert saved.args[0].credits_session_cap == 1
    assert (load_config().credits_session_cap, load_config().credits_low_balance) == (1, 7)
    submit_generation(engine, "glitter", "openai", request_source_id="a", session_id="visit-1")
    with pytest.raises(CreditRefused) as refused:  # the running engine checks the new cap at once
        submit_generation(engine, "glitter", "openai", request_source_id="b", session_id="visit-1")
    assert refused.value.code == "SESSION_CAP_REACHED"

    settings = SettingsPage(load_config().with_changes(credits_session_cap=3), StaffPin())  # built before the change
    qtbot.addWidget(settings)
    settings.idle.setValue(45)
    assert settings.save()
    assert (load_config().idle_timeout_s, load_config().credits_session_cap) == (45, 1)  # the limits are kept
