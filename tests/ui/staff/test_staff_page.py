"""Staff mode: the PIN door, review with a reason, import from a folder, the task monitor's dead letters."""

from __future__ import annotations

import json

import pytest

from nailmirror_desktop.core.catalog.status import StyleStatus
from nailmirror_desktop.core.config import DEFAULT_PIN, config_path, load_config, save_config
from nailmirror_desktop.ui.shell.main_window import STAFF
from nailmirror_desktop.ui.staff.pin_dialog import PinDialog
from nailmirror_desktop.ui.staff.review_page import REVIEW_STATUSES
from nailmirror_desktop.ui.staff.settings_page import masked
from tests.support.ui_support import ROOT, started_kiosk

STYLE_FOLDER = ROOT / "resources" / "demo" / "styles" / "rose_gloss"


@pytest.fixture
def kiosk(qtbot):
    save_config(load_config())
    with started_kiosk(qtbot) as controller:
        qtbot.waitUntil(lambda: controller.tryon.style_browser.model.rowCount() > 0, timeout=60000)
        yield controller


def test_pin_is_stored_hashed_and_checked(qtbot):
    config = load_config()
    save_config(config)
    stored = json.loads(config_path().read_text())
    assert DEFAULT_PIN not in json.dumps(stored) and len(stored["staff_pin_hash"]) == 64
    dialog = PinDialog(config)
    qtbot.addWidget(dialog)
    dialog.entry.setText("0000")
    assert not dialog.try_pin() and dialog.result() == 0
    dialog.entry.setText(DEFAULT_PIN)
    assert dialog.try_pin() and dialog.result() == PinDialog.DialogCode.Accepted


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
    page.provider.setCurrentText("openai")
    page.api_key.setText("sk-test-abcdefghijklmnop1234")
    page.idle.setValue(45)
    page.hands.setCurrentIndex(page.hands.findData(2))
    page.keep_days.setValue(3)
    assert page.save()
    assert page.api_key.text() == ""
    assert page.key_state.text() == masked_of("sk-test-abcdefghijklmnop1234") == "••••1234"
    stored = json.loads(config_path().read_text())
    assert stored["providers"]["default"] == "openai" and stored["idle_timeout_s"] == 45
    assert load_config().idle_timeout_s == 45
    assert stored["hands_tracked"] == 2 and load_config().hands_tracked == 2
    assert stored["snapshot_keep_days"] == 3 and load_config().snapshot_keep_days == 3


def masked_of(value: str) -> str:
    from nailmirror_desktop.core.generation.provider_config import Secret

    return masked(Secret(value))
