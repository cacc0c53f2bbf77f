"""The store's price on the staff review page (touch-sized, typed or cleared, bad input refused in one line),
the style card a customer photographs (name, code, the price when set) and the kiosk's mirror overlay, over a
real style database."""

from __future__ import annotations

import pytest

from nailmirror_desktop.core.catalog import StyleSource
from nailmirror_desktop.ui.share.style_card import StyleCard
from nailmirror_desktop.ui.shell import i18n, theme
from nailmirror_desktop.ui.staff.review_page import ReviewPage
from nailmirror_desktop.ui.staff.touch_controls import TOUCH_PX
from tests.support.style_fixtures import make_style_folder, repository
from tests.support.ui_support import ROOT

pytestmark = pytest.mark.qt
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture
def page(qtbot, tmp_path):
    from PySide6.QtWidgets import QApplication

    from nailmirror_desktop.core.catalog import read_style_folder

    i18n.install_language("en")
    theme.apply_theme(QApplication.instance())  # as the kiosk does, before the page is built
    repo = repository()
    folder = read_style_folder(make_style_folder(tmp_path / "s"))
    style = repo.create_style_with_content("奶白贝壳", StyleSource.MANUAL, folder.content, actor="t",
                                           name_en="Milky white shell")
    review = ReviewPage(repo)
    qtbot.addWidget(review)
    review.resize(1280, 1000)  # the staff tab scrolls on a 1280×800 screen
    review.show()
    review.select_code(style.style_code)
    yield review, repo, style
    i18n.install_language("en")
    QApplication.instance().setStyleSheet("")


def test_staff_set_and_clear_a_price_with_finger_sized_controls(page):
    review, repo, style = page
    for widget in (review.price_edit, review.set_price_button, review.clear_price_button):
        assert widget.minimumHeight() >= TOUCH_PX
    assert review.price_edit.text() == "" and not review.clear_price_button.isEnabled()
    assert "no price" in review.details.text()
    changed = []
    review.catalog_changed.connect(lambda: changed.append(1))
    review.price_edit.setText("128.5")
    review.set_price_button.click()
    assert repo.get(style.id).price_minor == 12850 and changed == [1]
    assert review.price_edit.text() == "128.50" and "¥128.50" in review.details.text()
    assert "¥128.50" in review.feedback.text() and review.clear_price_button.isEnabled()
    assert repo.audit_trail(style.id)[-1].action == "SET_PRICE" and repo.audit_trail(style.id)[-1].actor == "staff"
    ARTIFACTS.mkdir(exist_ok=True)
    review.grab().save(str(ARTIFACTS / "staff_review_price.png"))
    review.clear_price_button.click()
    assert repo.get(style.id).price_minor is None and review.price_edit.text() == ""


def test_bad_prices_are_refused_and_nothing_is_lost(page):
    review, repo, style = page
    repo.set_price(style.id, 9900, actor="t")
    review.reload()
    for typed in ("", "12.345", "abc", "1000000"):
        assert not review.set_price(typed)
        assert repo.get(style.id).price_minor == 9900
        assert review.feedback.text() and "\n" not in review.feedback.text()
    assert "128 or 128.50" in (review.set_price("12.345") or review.feedback.text())
    validator = review.price_edit.validator()
    assert validator.validate("12.3x", 0)[0].name == "Invalid"  # the field itself takes digits and one point


def test_the_price_controls_speak_chinese(page, qtbot):
    review, _repo, _style = page
    i18n.install_language("zh_CN")
    qtbot.waitUntil(lambda: review.set_price_button.text() != "Set price", timeout=5000)
    assert "¥" in review.price_label.text()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_style_card_shows_the_price_only_when_set(qtbot, language):
    from PySide6.QtWidgets import QApplication

    theme.apply_theme(QApplication.instance())
    i18n.install_language(language)
    try:
        card = StyleCard()
        qtbot.addWidget(card)
        card.resize(520, 420)
        card.show()
        card.show_style("奶白贝壳", "FES-M1MWQS", "¥128")
        assert card.name.text() == "奶白贝壳" and "FES-M1MWQS" in card.code.text()
        assert card.price.text() == "¥128" and card.price.isVisible()
        ARTIFACTS.mkdir(exist_ok=True)
        card.grab().save(str(ARTIFACTS / f"style_card_with_price_{language}.png"))
        card.show_style("奶白贝壳", "FES-M1MWQS", None)
        assert not card.price.isVisible()
    finally:
        i18n.install_language("en")


def test_the_kiosk_overlay_and_card_follow_the_stores_price(qtbot, tmp_path):
    """The running kiosk: a price set on the review page reaches the mirror's overlay and the style card text."""
    from nailmirror_desktop.core.config import load_config, save_config
    from tests.support.ui_support import set_staff_pin, started_kiosk

    save_config(load_config())
    set_staff_pin()
    i18n.install_language("en")
    with started_kiosk(qtbot) as kiosk:
        qtbot.waitUntil(lambda: kiosk.tryon.session.style is not None, timeout=60000)
        code = kiosk.tryon.session.style.code
        assert kiosk.tryon.style_price_text(code) is None and kiosk.window.mirror.price_text() == ""
        kiosk.staff.enter()
        review = kiosk.staff.review_page
        review.select_code(code)
        assert review.set_price("168")
        kiosk.staff.leave()
        assert kiosk.window.mirror.price_text() == "¥168"
        assert kiosk.tryon.style_price_text(code) == "¥168"
        assert [t for t, _ in kiosk.window.mirror.style_label_lines()][1] == "¥168"
        kiosk.window.mirror.grab().save(str(ARTIFACTS / "mirror_overlay_with_price.png"))
        kiosk.staff.enter()  # the store changes its currency in settings: prices read in it at once
        settings = kiosk.staff.settings_page
        assert settings.currency.currentData() == "CNY"
        settings.currency.setCurrentIndex(settings.currency.findData("HKD"))
        assert settings.save() and load_config().currency == "HKD"
        assert "check them" in settings.feedback.text()
        assert "HK$" in review.price_label.text() and "HK$168" in review.feedback.text() + review.details.text()
        kiosk.staff.leave()
        assert kiosk.tryon.style_price_text(code) == "HK$168"
        qtbot.waitUntil(lambda: kiosk.window.mirror.price_text() == "HK$168", timeout=3000)
        share = kiosk.share  # the snapshot page's "take it home"
        share.take_home()
        assert share.page.card.price.text() == "HK$168" and code in share.page.card.code.text()
        share.back_to_snapshot()
