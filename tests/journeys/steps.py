"""Steps several journeys share: the first start, the style search on the on-screen keyboard, taking a style."""

from __future__ import annotations

import urllib.error
import urllib.request

import cv2
import numpy as np
from PySide6.QtCore import QCoreApplication

from nailmirror_desktop.ui.tryon.style_browser import CodeRole
from tests.journeys.runner import Journey, JourneyFailed, Screen

__all__ = ["CodeRole", "decode_qr", "fetch", "first_start", "page", "search", "tr"]

MIN_NAILS_PER_HAND = 3  # of five: the demo's hands turn, a nail seen edge-on is not painted


def tr(context: str, text: str) -> str:
    """`text` as the kiosk shows it now (its translation in the language installed)."""
    return QCoreApplication.translate(context, text)


def page(screen: Screen) -> str:
    return str(screen.window.current_page().value)


def first_start(journey: Journey) -> None:
    browser = journey.screen.controller.tryon.style_browser
    with journey.step("first start: catalog filled") as s:
        s.wait_until(lambda: browser.model.rowCount() >= 20, "the starter catalog in the style grid")
        s.wait_until(lambda: sum(s.painted_nails()) >= 4, "a first style painted on the demo hands")
        assert page(s) == "customer"
        assert s.shows_text(tr("MainWindow", "Snapshot · before/after"))


def search(journey: Journey, letters: str, pick: str | None) -> None:
    """Tap the search field, type `letters` on the on-screen keyboard, pick the candidate `pick` (pinyin)."""
    browser = journey.screen.controller.tryon.style_browser
    total = browser.model.rowCount()
    with journey.step("search field: the keyboard opens") as s:
        s.tap_at(browser.search)
        s.wait_until(lambda: journey.keyboard.shown, "the on-screen keyboard")
        for row_key in ("q", "a", "z"):  # all its letter rows are on screen
            journey.keyboard.key(row_key)
        # the page made room for it: the grid still shows rows of whole tiles, the chips folded away (#22.1)
        columns = max(1, browser.list_view.viewport().width() // browser.list_view.gridSize().width())
        s.wait_until(lambda: browser.visible_tile_count() >= 2 * columns, "two rows of whole tiles over the keys")
        assert not browser.tag_scroll.isVisible() and browser.search.isVisible()
    with journey.step(f"type '{letters}' on the keyboard") as s:
        journey.keyboard.type(letters)
        if pick is not None:
            journey.keyboard.choose(pick)
        wanted = pick or letters
        # the English keyboard capitalises a field's first letter
        s.wait_until(lambda: browser.search.text().lower() == wanted, f"'{wanted}' in the search field")
        s.wait_until(lambda: 0 < browser.model.rowCount() < total, "the grid filtered by the search")


def hide_keyboard(journey: Journey) -> None:
    """The keyboard's own hide key."""
    journey.keyboard.tap_item(journey.keyboard.key_of_type("HideKeyboardKey"))
    journey.screen.wait_until(lambda: not journey.keyboard.shown, "the keyboard hidden")
    browser = journey.screen.controller.tryon.style_browser
    journey.screen.wait_until(lambda: browser.tag_scroll.isVisible(), "the chips back with the keyboard gone")


def pick_first_style(journey: Journey) -> str:
    browser = journey.screen.controller.tryon.style_browser
    with journey.step("hide the keyboard"):
        hide_keyboard(journey)
    with journey.step("pick a style") as s:
        code = str(browser.model.index(0, 0).data(CodeRole))
        s.tap_list_row(browser.list_view, 0)
        s.wait_until(lambda: code in browser.current_code.text(), f"{code} shown as the chosen style")
        return code


def both_hands_painted(journey: Journey) -> None:
    with journey.step("paint on both demo hands") as s:
        s.wait_until(lambda: min(s.painted_nails()) >= MIN_NAILS_PER_HAND,
                     f"at least {MIN_NAILS_PER_HAND} painted nails on each hand")


def decode_qr(image_rgb: np.ndarray) -> str:
    """The text of the QR code on the screenshot ((H, W, 3) uint8 RGB). OpenCV's detector misses a code now and
    then at one scale and finds it at another (seen on a clean 1280×800 shot), so a few scales are tried, as a
    phone's camera sees the screen from a few distances."""
    gray = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2GRAY)
    detector = cv2.QRCodeDetector()
    for scale in (1.0, 0.5, 0.75, 1.5):
        image = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        text, _points, _code = detector.detectAndDecode(image)
        if text:
            return str(text)
    raise JourneyFailed("no QR code could be read from the screenshot")


def fetch(url: str) -> tuple[int, bytes]:
    """What a phone gets from `url`: (HTTP status, body); status 0 when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 - the kiosk's own link
            return int(answer.status), answer.read()
    except urllib.error.HTTPError as error:
        return int(error.code), b""
    except OSError:
        return 0, b""
