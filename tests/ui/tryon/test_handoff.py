"""\"I want this one\" (issue #22 §3): the style and her snapshot reach the staff list under a number she sees;
the idle reset takes the number off her screen and leaves the request for staff. The shell as the app builds it
over a real catalog and pipeline (ui_support.light_kiosk); workers inline, or held to answer after a reset."""

from __future__ import annotations

import numpy as np
import pytest

from nailmirror_desktop.core.tryon.handoff import handoff_dir
from nailmirror_desktop.ui.shell.main_window import CUSTOMER, SNAPSHOT
from nailmirror_desktop.ui.staff.requests_page import RequestsPage
from nailmirror_desktop.vision.sources.supervisor import FramePacket
from tests.support.style_fixtures import make_catalog
from tests.support.ui_support import HoldableRunner, light_kiosk, run_now

pytestmark = pytest.mark.qt



@pytest.fixture
def kiosk(qtbot, tmp_path):
    runner = HoldableRunner()
    with light_kiosk(qtbot, make_catalog(tmp_path / "catalog", count=2), runner) as controller:
        controller.runner = runner
        yield controller


def snapshot(kiosk) -> None:
    kiosk.services.session.process(FramePacket(np.full((120, 160, 3), 60, np.uint8), 1, 1))
    assert kiosk.tryon.take_snapshot()
    assert kiosk.tryon.last_snapshot is not None


def zone(kiosk) -> str:
    return kiosk.config.store_time_zone


def test_i_want_this_one_reaches_staff_with_her_photo_and_shows_her_number(qtbot, kiosk):
    snapshot(kiosk)
    handoff, mirror = kiosk.handoff, kiosk.window.mirror
    assert handoff.button.isEnabled()
    style = kiosk.tryon.session.style
    record = kiosk.services.repository.get_by_code(style.code)
    kiosk.services.repository.set_price(record.id, 12800, actor="staff")
    handoff.button.click()
    [request] = kiosk.services.handoffs.open_requests(zone(kiosk))
    assert (request.number, request.style_code, request.style_name) == ("A001", style.code, style.name)
    assert (request.price_minor, request.currency) == (12800, kiosk.tryon.currency)
    photo = kiosk.services.handoffs.photo_path(request)
    assert photo is not None and photo.read_bytes() == kiosk.tryon.last_snapshot.read_bytes()
    assert photo.parent == handoff_dir()
    assert "A001" in mirror.ticket_text() and "A001" in handoff.ticket_label.text()
    assert handoff.button.isHidden()
    page = RequestsPage(kiosk.services.handoffs, run_now, lambda: zone(kiosk))
    qtbot.addWidget(page)
    page.reload()
    assert page.numbers() == ["A001"]
    assert "128" in page.rows[request.id].style_label.text()  # the price she saw
    assert page.rows[request.id].photo.pixmap() is not None and not page.rows[request.id].photo.pixmap().isNull()
    page.rows[request.id].done_button.click()
    assert page.numbers() == [] and "A001" in page.feedback.text()
    kiosk.handoff.purge()
    assert not photo.exists()


def test_the_idle_reset_clears_her_number_and_keeps_the_request(qtbot, kiosk):
    snapshot(kiosk)
    kiosk.handoff.button.click()
    kiosk.reset_session()
    assert kiosk.window.mirror.ticket_text() == ""
    assert kiosk.handoff.ticket_label.isHidden() and kiosk.handoff.ticket == ""
    assert [r.number for r in kiosk.services.handoffs.open_requests(zone(kiosk))] == ["A001"]
    snapshot(kiosk)  # the next customer: her own button, a new number
    assert kiosk.handoff.button.isVisible() or not kiosk.handoff.button.isHidden()
    kiosk.handoff.button.click()
    assert "A002" in kiosk.window.mirror.ticket_text()


def test_a_request_answered_after_she_left_is_not_made(qtbot, kiosk):
    snapshot(kiosk)
    kiosk.runner.held = True
    kiosk.handoff.button.click()
    kiosk.reset_session()
    kiosk.runner.release()
    assert kiosk.services.handoffs.open_requests(zone(kiosk)) == []
    assert list(handoff_dir().glob("*.png")) == []
    assert kiosk.window.mirror.ticket_text() == ""


def test_the_countdown_counts_3_2_1_then_snaps_and_can_be_cancelled(qtbot, kiosk, monkeypatch):
    tryon, window = kiosk.tryon, kiosk.window
    kiosk.services.session.process(FramePacket(np.full((120, 160, 3), 60, np.uint8), 1, 1))
    monkeypatch.setattr(tryon.mirror_loop, "hands_tracked", lambda: 2)  # both hands in the frame
    tryon.countdown._timer.setInterval(30)
    numbers: list[int] = []
    tryon.countdown.number_changed.connect(numbers.append)
    window.snapshot_button.click()
    assert window.mirror.countdown() == 3 and window.current_page() == CUSTOMER
    assert window.snapshot_button.text() != "Snapshot · before/after"
    qtbot.waitUntil(lambda: window.current_page() == SNAPSHOT, timeout=3000)
    assert numbers == [3, 2, 1, 0] and window.mirror.countdown() == 0
    tryon.back_to_mirror()
    window.snapshot_button.click()  # start, then a second tap cancels
    window.snapshot_button.click()
    qtbot.wait(200)
    assert window.current_page() == CUSTOMER and window.mirror.countdown() == 0
    window.snapshot_button.click()
    kiosk.reset_session()  # she walked away mid-count: no photo of the next customer
    qtbot.wait(200)
    assert window.current_page() == CUSTOMER and not tryon.countdown.running


@pytest.mark.slow
def test_at_1_the_countdown_waits_for_the_hands_then_snaps_without_them_after_the_hold():
    """#22 §3: the photo is taken when both hands are in it; one hand for good still gets a photo."""
    from PySide6.QtTest import QTest

    from nailmirror_desktop.ui.tryon.countdown import SnapshotCountdown

    hands = [False]
    done: list[int] = []
    countdown = SnapshotCountdown(step_ms=20, ready=lambda: hands[0], hold_ms=400)
    countdown.finished.connect(lambda: done.append(1))
    countdown.start()
    QTest.qWait(200)
    assert countdown.number() == 1 and countdown.holding() and not done
    hands[0] = True
    QTest.qWait(250)
    assert done == [1] and countdown.number() == 0
    hands[0] = False
    countdown.start()
    QTest.qWait(900)
    assert done == [1, 1]  # held 400 ms, then taken all the same
