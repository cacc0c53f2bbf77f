"""The customer's journey, from the first start to walking away, in Chinese and in English (issue #22)."""

from __future__ import annotations

import pytest

from tests.journeys import steps
from tests.journeys.runner import Journey, run_journey, write_config
from tests.journeys.steps import fetch, page, tr

pytestmark = [pytest.mark.journey, pytest.mark.no_qt_log]

SEARCH = {"zh_CN": ("hong", "红"), "en": ("red", None)}  # pinyin composed on the keyboard; English typed
PROMPT = {"zh_CN": ("hong", "红"), "en": ("pink", None)}
STORE = "指尖魔镜 · 静安店"


def customer(journey: Journey, language: str) -> None:
    from PySide6.QtCore import QPoint

    controller = journey.screen.controller
    browser = controller.tryon.style_browser
    panel = controller.generation.panel
    steps.first_start(journey)
    with journey.step("the catalog reads in the customer's language") as s:
        s.wait_until(lambda: len(browser.category_group.buttons()) > 2, "the catalog's categories")
        tile = str(browser.model.index(0, 0).data()).splitlines()[0]
        categories = [b.text().replace("&&", "&") for b in browser.category_group.buttons()]
        if language == "en":  # English names and categories, never Chinese, pinyin or a raw id
            assert tile.isascii() and tile[:1].isupper(), tile
            assert "Glitter & chrome" in categories, categories
            assert all(c.replace("♥", "").isascii() for c in categories), categories
            assert all(b.text().isascii() for b in browser.tag_group.buttons())
        else:
            assert not tile.isascii() and "闪耀" in categories, (tile, categories)
        steps.grid_has_two_rows(s)
    steps.search(journey, *SEARCH[language])
    steps.pick_first_style(journey)
    steps.both_hands_painted(journey)
    with journey.step("favourite") as s:
        s.tap_at(browser.favourite_button)
        s.wait_until(lambda: s.shows_text(tr("StyleBrowser", "♥ Favourites (%1)").replace("%1", "1")),
                     "one favourite counted")
    with journey.step("AI design: type a prompt on the keyboard") as s:
        s.tap_tab(controller.window.side_tabs, tr("MainWindow", "AI design"))
        s.tap_at(panel.prompt)
        s.wait_until(lambda: journey.keyboard.shown, "the on-screen keyboard")
        letters, pick = PROMPT[language]
        journey.keyboard.type(letters)
        if pick is not None:
            journey.keyboard.choose(pick)
        s.wait_until(lambda: panel.prompt.text().lower() == (pick or letters), "the prompt typed")
        assert panel.generate_button.isVisible() and not panel.result_box.isVisible()  # room made for the keys
    with journey.step("AI design: create") as s:
        s.tap(tr("GeneratePanel", "Create my design"))
        s.wait_until(lambda: s.shows_text(tr("GeneratePanel", "Your design is ready and on your nails now.")),
                     "the design ready and tried on")
        design = panel.result_name.text()
        assert design and design.isascii() == (language == "en"), design
        assert s.shows_text(tr("GeneratePanel", "✦ Designed by you"))
        s.wait_until(lambda: panel.result_box.isVisible(), "the design's card with the keyboard gone")
        picture, name = panel.preview.geometry(), panel.result_name.geometry()
        assert picture.bottom() < name.top(), f"the card's name over its picture: {picture} {name}"
    with journey.step("AI design: variations") as s:
        s.tap(tr("GeneratePanel", "Show me 2 more versions"))
        s.wait_until(lambda: s.shows_text(tr("GeneratePanel", "Tap a version to try it on.")), "the versions")
        assert len(panel.variation_buttons) >= 2
        names = panel.variation_names()
        assert len(set(names)) == len(names) and design in names, names  # each version has its own name
        for tile in panel.variation_buttons:  # large enough to tell apart and tap, their names not over pictures
            assert tile.height() >= 140 and tile.width() >= 120, tile.size()
        s.tap_at(panel.variation_buttons[-1])
        s.wait_until(lambda: min(s.painted_nails()) >= steps.MIN_NAILS_PER_HAND, "the version painted")
    steps.snapshot_after_countdown(journey)
    with journey.step("before/after") as s:
        assert s.shows_text(tr("SnapshotPage", "Before")) and s.shows_text(tr("SnapshotPage", "After"))
        view = controller.tryon.snapshot_page.view
        badges = (view.before_badge.geometry(), view.after_badge.geometry())
        assert badges[0].center().x() < view.split_x() and view.image_rect().contains(badges[0].topLeft().toPointF())
        assert view.image_rect().contains(badges[1].topRight().toPointF())
    with journey.step("before/after: drag the line") as s:
        target = view.image_rect()
        s.tap_at(view, QPoint(round(target.left() + target.width() * 0.75), round(target.center().y())))
        s.wait_until(lambda: abs(view.split() - 0.75) < 0.01, "the line where the finger put it")
        assert abs(view.handle_center().x() - view.split_x()) < 1 and target.left() < view.split_x()
    number = steps.want_this_one(journey)
    with journey.step("take home: card and QR") as s:
        s.tap(tr("_TakeHomeButton", "Send to my phone"))
        s.wait_until(lambda: s.shows_text(tr("SharePage", "Take it home")), "the take-home page")
        card_name = controller.share.page.card.name.text()
        assert card_name == panel.result_name.text() and card_name.isascii() == (language == "en"), card_name
        s.wait_until(lambda: controller.window.findChild(type(controller.window.brand), "qrCode").pixmap()
                     is not None and not controller.window.findChild(type(controller.window.brand),
                                                                     "qrCode").pixmap().isNull(), "the QR code")
        card = controller.share.page.card  # the take-home card: her painted nails, the style, the store
        assert s.shows_text(tr("StyleCard", "Show this card to your nail artist")) and s.shows_text(STORE)
        assert card.name.text() and not card.hands.pixmap().isNull() and not card.picture.pixmap().isNull()
    url = steps.decode_qr(journey.last_shot)
    with journey.step("the phone opens the QR's link") as s:
        status, body = fetch(url)  # the landing page, then the photo it shows, as a phone's browser loads them
        assert status == 200 and b"/photo.jpg" in body, f"{url} answered {status}: {body[:200]!r}"
        status, photo = fetch(url + "/photo.jpg")
        assert status == 200 and photo.startswith(b"\xff\xd8"), f"the photo answered {status}, {len(photo)} bytes"
        steps.painted_hands_picture(journey, photo)
        s.wait_until(lambda: s.shows_text(tr("SharePage", "Sent to your phone. The link ends when you leave the "
                                                          "kiosk.")), "the kiosk saying it was sent")
    with journey.step("walk away: after the idle timeout a fresh start") as s:
        s.wait_until(lambda: page(s) == "customer" and not s.shows_text(tr("SharePage", "Take it home")),
                     "the start page again", timeout_s=controller.config.idle_timeout_s + 60)
        s.wait_until(lambda: not journey.keyboard.shown, "no keyboard")
        assert browser.search.text() == ""
        assert s.shows_text(tr("StyleBrowser", "♥ Favourites (%1)").replace("%1", "0"))
        assert not panel.prompt.text() and not panel.result_name.isVisible()
        assert controller.window.side_tabs.currentIndex() == 0
        assert controller.window.mirror.ticket_text() == "" and controller.handoff.ticket_label.isHidden(), \
            f"her number {number} still shown"
        s.wait_until(lambda: sum(s.painted_nails()) >= 4, "the mirror live again, a first style painted")
    with journey.step("the old link is dead") as s:
        status, _body = fetch(url)
        assert status != 200, f"the old link still answers {status}"


@pytest.mark.parametrize("language", ["zh_CN", "en"])
def test_customer(journey_display, nailmirror_home, monkeypatch, language):
    write_config(nailmirror_home, language=language, share_to_phone=True, store_name=STORE)
    run_journey(f"customer-{language}", lambda journey: customer(journey, language), monkeypatch)
