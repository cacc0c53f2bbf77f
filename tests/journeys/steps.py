"""Steps several journeys share: the first start, the style search on the on-screen keyboard, taking a style."""

from __future__ import annotations

import urllib.error
import urllib.request

import cv2
import numpy as np
from PySide6.QtCore import QCoreApplication

from nailmirror_desktop.ui.tryon.style_browser import CodeRole
from tests.journeys.runner import Journey, JourneyFailed, Screen

__all__ = ["CodeRole", "decode_qr", "fetch", "first_start", "page", "search", "snapshot_after_countdown", "tr",
           "want_this_one"]

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


def snapshot_after_countdown(journey: Journey) -> None:
    """The snapshot button: 3-2-1 on the mirror, then the before/after page (#22 §3)."""
    mirror = journey.screen.window.mirror
    seen: list[int] = []

    def note() -> int:
        number = mirror.countdown()
        if number and (not seen or seen[-1] != number):
            seen.append(number)
        return number

    with journey.step("snapshot: the countdown on the mirror") as s:
        s.tap(tr("MainWindow", "Snapshot · before/after"))
        s.wait_until(lambda: note() == 2, "the countdown at 2")
        assert s.shows_text(tr("MainWindow", "Cancel the photo")), "the button does not offer to cancel"
    with journey.step("snapshot: taken after 1") as s:
        s.wait_until(lambda: (note(), page(s) == "snapshot")[1], "the before/after page")
        assert seen == [3, 2, 1], f"the countdown showed {seen}"
        loop = journey.screen.controller.tryon.mirror_loop  # paused since: its last frame is the photo's
        assert loop.hands_tracked() >= loop.hands_wanted, f"taken with {loop.hands_tracked()} hand(s) in the frame"
        s.wait_until(lambda: s.shows_text(tr("SnapshotPage", "Saved on this kiosk. Ask our staff for a copy.")),
                     "the photo saved")


def want_this_one(journey: Journey) -> str:
    """"I want this one" on the snapshot page: her request number on the page and the mirror."""
    controller = journey.screen.controller
    with journey.step("I want this one: her number") as s:
        s.tap(tr("_WantButton", "I want this one"))
        s.wait_until(lambda: controller.handoff.ticket, "a request number")
        number = str(controller.handoff.ticket)
        s.wait_until(lambda: s.shows_text(tr("_TicketLabel", "Show this to our staff: %1").replace("%1", number)),
                     f"'{number}' on her screen")
        assert number in s.window.mirror.ticket_text()
    return number


def search(journey: Journey, letters: str, pick: str | None) -> None:
    """Tap the search field, type `letters` on the on-screen keyboard, pick the candidate `pick` (pinyin)."""
    browser = journey.screen.controller.tryon.style_browser
    total = browser.model.rowCount()
    with journey.step("search field: the keyboard opens") as s:
        s.tap_at(browser.search)
        s.wait_until(lambda: journey.keyboard.shown, "the on-screen keyboard")
        # the page made room for it: the grid still shows rows of whole tiles, the chips folded away (#22.1).
        # Looked at before any key: in English the row keys below type "qaz" into the search, which (once the
        # search's debounce runs) finds no style and empties the grid.
        # Room, not the scroll position: the grid keeps the worn style's tile in view, so its rows may start
        # part-way down a tile.
        grid_has_two_rows(s, "over the keys")
        assert not browser.filter_strip.isVisible() and browser.search.isVisible()
        for row_key in ("q", "a", "z"):  # all its letter rows are on screen
            journey.keyboard.key(row_key)
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
    journey.screen.wait_until(lambda: browser.filter_strip.isVisible(), "the chips back with the keyboard gone")
    grid_has_two_rows(journey.screen)


def grid_has_two_rows(s: Screen, where: str = "with the keyboard down") -> None:
    """The grid has room for two rows of whole tiles: over the keyboard, and with the chips and the worn style's
    rows all shown (at 1280×800 in English it was once a 78 px strip of cut tiles under three lines of
    categories)."""
    view = s.controller.tryon.style_browser.list_view
    s.wait_until(lambda: view.viewport().height() >= 2 * view.gridSize().height(),
                 f"room for two rows of whole tiles {where}")


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


def painted_hands_picture(journey: Journey, jpeg: bytes) -> None:
    """The phone's picture (adapters/share/share_image.py) is 1080×1350 and shows her painted hands: where its
    "after" crop differs from its "before" crop there are painted nails, at least MIN_NAILS_PER_HAND a hand. Kept
    beside the journey's screenshots as phone.jpg."""
    from nailmirror_desktop.adapters.share.share_image import SIZE, layout_for
    from nailmirror_desktop.vision.paint.framing import Box

    (journey.folder / "phone.jpg").write_bytes(jpeg)
    picture = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert picture is not None and (picture.shape[1], picture.shape[0]) == SIZE, "a 1080×1350 picture"
    found = journey.screen.controller.tryon.last_hands_box
    assert found is not None, "the snapshot's painted hands were found"
    layout = layout_for(Box.from_tuple(found).aspect)
    label_h = 90  # the panels' "before"/"after" labels differ too: left out
    before, after = (picture[p.top:p.bottom - label_h, p.left:p.right].astype(np.int16)
                     for p in (layout.before, layout.after))
    changed = (np.abs(after - before).max(axis=2) > 40).astype(np.uint8)
    count, _labels, stats, _centres = cv2.connectedComponentsWithStats(changed, 8)
    nails = sum(1 for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] >= 150)
    assert nails >= 2 * MIN_NAILS_PER_HAND, f"{nails} painted nails on the phone's picture"


def fetch(url: str) -> tuple[int, bytes]:
    """What a phone gets from `url`: (HTTP status, body); status 0 when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 - the kiosk's own link
            return int(answer.status), answer.read()
    except urllib.error.HTTPError as error:
        return int(error.code), b""
    except OSError:
        return 0, b""
