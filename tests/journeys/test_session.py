"""Within one customer's session: the keyboard hidden and reopened on the same field, the language switched
midway (issue #22)."""

from __future__ import annotations

import pytest

from tests.journeys import steps
from tests.journeys.runner import Journey, run_journey, write_config
from tests.journeys.steps import tr

pytestmark = [pytest.mark.journey, pytest.mark.no_qt_log]


def keyboard_reopens(journey: Journey) -> None:
    browser = journey.screen.controller.tryon.style_browser
    steps.first_start(journey)
    with journey.step("tap the search field: the keyboard opens") as s:
        s.tap_at(browser.search)
        s.wait_until(lambda: journey.keyboard.shown, "the on-screen keyboard")
    with journey.step("the keyboard's hide key") as s:
        steps.hide_keyboard(journey)
        assert browser.search.isVisible()
    with journey.step("tap the same field again: the keyboard reopens") as s:
        s.tap_at(browser.search)
        s.wait_until(lambda: journey.keyboard.shown, "the on-screen keyboard again")
        journey.keyboard.type("hong")
        journey.keyboard.choose("红")
        s.wait_until(lambda: browser.search.text() == "红", "'红' typed after the reopen")
    with journey.step("maoyan: the salon's word first among the candidates") as s:
        journey.keyboard.type("maoyan")
        words = s.wait_until(lambda: keyboard_words(journey), "pinyin candidates for maoyan")
        assert words[0] == "猫眼" and "冒烟" in words, words[:8]  # the engine's own order put 冒烟 first
        journey.keyboard.choose("猫眼")
        s.wait_until(lambda: browser.search.text() == "红猫眼", "'猫眼' typed after '红'")


def keyboard_words(journey: Journey) -> list[str]:
    """The candidates row as it shows them (the kiosk's OnScreenKeyboard, found through the controller)."""
    from nailmirror_desktop.ui.shell.on_screen_keyboard import OnScreenKeyboard

    keyboard = journey.screen.controller.findChild(OnScreenKeyboard)
    return keyboard.candidate_words() if keyboard is not None else []


def language_switch(journey: Journey) -> None:
    window = journey.screen.controller.window
    browser = journey.screen.controller.tryon.style_browser
    steps.first_start(journey)
    steps.search(journey, "hong", "红")
    with journey.step("switch to English mid-session") as s:
        s.tap_at(window.language_button)
        s.wait_until(lambda: s.shows_text("Snapshot · before/after"), "the window in English")
        assert s.shows_text("中文") and browser.search.text() == "红"  # the customer's search stays
        assert window.side_tabs.tabText(1) == "AI design"
    with journey.step("the keyboard follows: English keys") as s:
        s.tap_at(browser.search)
        s.wait_until(lambda: journey.keyboard.shown, "the on-screen keyboard")
        s.wait_until(lambda: journey.keyboard.view.rootObject().property("keyboardLocale") == "en_US",
                     "the keyboard in English")
    with journey.step("back to Chinese") as s:
        steps.hide_keyboard(journey)
        s.tap_at(window.language_button)
        s.wait_until(lambda: s.shows_text(tr("MainWindow", "Snapshot · before/after"))
                     and s.shows_text("English"), "the window in Chinese")


def test_keyboard_hide_and_reopen(journey_display, nailmirror_home, monkeypatch):
    write_config(nailmirror_home)
    run_journey("keyboard-reopen", keyboard_reopens, monkeypatch)


def test_switch_language_mid_session(journey_display, nailmirror_home, monkeypatch):
    write_config(nailmirror_home)
    run_journey("language-switch", language_switch, monkeypatch)
