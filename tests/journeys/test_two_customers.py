"""Two customers in a row, and comparing two styles (issue #22)."""

from __future__ import annotations

import pytest

from tests.journeys import steps
from tests.journeys.runner import Journey, run_journey, write_config
from tests.journeys.steps import fetch, page, tr

pytestmark = [pytest.mark.journey, pytest.mark.no_qt_log]


def two_customers(journey: Journey) -> None:
    controller = journey.screen.controller
    window, browser, panel = controller.window, controller.tryon.style_browser, controller.generation.panel
    steps.first_start(journey)
    with journey.step("first customer: favourite, AI design") as s:
        s.tap_at(browser.favourite_button)
        s.tap_tab(window.side_tabs, tr("MainWindow", "AI design"))
        s.tap_at(panel.prompt)
        s.wait_until(lambda: journey.keyboard.shown, "the on-screen keyboard")
        journey.keyboard.type("hong")
        journey.keyboard.choose("红")
        s.tap(tr("GeneratePanel", "Create my design"))
        s.wait_until(lambda: s.shows_text(tr("GeneratePanel", "Your design is ready and on your nails now.")),
                     "the design ready")
    with journey.step("first customer: photo and QR") as s:
        s.tap(tr("MainWindow", "Snapshot · before/after"))
        s.wait_until(lambda: s.shows_text(tr("SnapshotPage", "Saved on this kiosk. Ask our staff for a copy.")),
                     "the photo saved")
        s.tap(tr("_TakeHomeButton", "Send to my phone"))
        s.wait_until(lambda: s.shows_text(tr("SharePage", "Take it home")), "the take-home page")
    url = steps.decode_qr(journey.last_shot)
    with journey.step("first customer: English, then walks away") as s:
        s.tap(tr("SharePage", "Back to my photo"))
        s.tap(tr("SnapshotPage", "Back to the mirror"))
        s.tap_at(window.language_button)
        s.wait_until(lambda: s.shows_text("Snapshot · before/after"), "the window in English")
    with journey.step("second customer: a fresh start") as s:
        s.wait_until(lambda: s.shows_text(tr("MainWindow", "Snapshot · before/after"))
                     and s.shows_text("English"), "the configured language (Chinese) again",
                     timeout_s=controller.config.idle_timeout_s + 60)
        assert page(s) == "customer" and window.side_tabs.currentIndex() == 0
        assert s.shows_text(tr("StyleBrowser", "♥ Favourites (%1)").replace("%1", "0")), "favourites kept"
        assert not panel.prompt.text() and not panel.result_name.isVisible(), "the AI design kept"
        assert controller.tryon.last_snapshot is None, "the first customer's photo kept"
        assert fetch(url)[0] != 200, "the first customer's link still answers"
    with journey.step("second customer: before/after shows only them") as s:
        s.tap(tr("MainWindow", "Snapshot · before/after"))
        s.wait_until(lambda: page(s) == "snapshot", "the before/after page")
        s.wait_until(lambda: s.shows_text(tr("SnapshotPage", "Saved on this kiosk. Ask our staff for a copy.")),
                     "the photo saved")
        s.tap(tr("_TakeHomeButton", "Send to my phone"))
        s.wait_until(lambda: s.shows_text(tr("SharePage", "Take it home")), "the take-home page")
    second = steps.decode_qr(journey.last_shot)
    assert second != url


def compare(journey: Journey) -> None:
    controller = journey.screen.controller
    browser = controller.tryon.style_browser
    steps.first_start(journey)
    with journey.step("compare: tap Compare, then another style") as s:
        current = browser.current_code.text()
        s.tap(tr("StyleBrowser", "Compare"))
        s.wait_until(lambda: s.shows_text(tr("StyleBrowser", "Tap a style…")), "the compare prompt")
        row = next(r for r in range(browser.model.rowCount())
                   if str(browser.model.index(r, 0).data(steps.CodeRole)) not in current)
        s.tap_list_row(browser.list_view, row)
        s.wait_until(lambda: page(s) == "compare", "the compare page")
        assert s.shows_text(tr("ComparePage", "Compare two styles"))
        assert len(controller.tryon.compare_page.shown_codes()) == 2
    with journey.step("compare: try the second one") as s:
        second = controller.tryon.compare_page.shown_codes()[1]
        s.tap_at(controller.tryon.compare_page.try_buttons[1])
        s.wait_until(lambda: page(s) == "customer" and second in browser.current_code.text(),
                     "the second style on the nails")


def test_two_customers_in_a_row(journey_display, nailmirror_home, monkeypatch):
    write_config(nailmirror_home, share_to_phone=True)
    run_journey("two-customers", two_customers, monkeypatch)


def test_compare_two_styles(journey_display, nailmirror_home, monkeypatch):
    write_config(nailmirror_home)
    run_journey("compare", compare, monkeypatch)
