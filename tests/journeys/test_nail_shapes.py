"""Nail shape and length in a real window (issue #24): the customer opens the picker on the style card, puts each
shape on at a long length on both demo hands, takes a snapshot whose take-home card names her choice, and walks
away; the next customer starts with natural nails."""

from __future__ import annotations

import numpy as np
import pytest

from nailmirror_desktop.core.nail_form import NATURAL, NailForm, NailLength, NailShape
from tests.journeys import steps
from tests.journeys.runner import Journey, Screen, run_journey, write_config
from tests.journeys.steps import page, tr

pytestmark = [pytest.mark.journey, pytest.mark.no_qt_log]

# almond last: the snapshot and the take-home card are of it
SHAPES = (NailShape.ROUND, NailShape.SQUARE, NailShape.SQUOVAL, NailShape.COFFIN, NailShape.STILETTO,
          NailShape.ALMOND)
STORE = "指尖魔镜 · 静安店"


def painted_area(screen: Screen) -> int:
    """Pixels the paint changed on the frame the mirror shows now."""
    pair = screen.controller.services.session.latest_pair()
    if pair is None:
        return 0
    return int((np.abs(pair.after.astype(np.int16) - pair.before.astype(np.int16)).max(axis=2) > 30).sum())


def shapes(journey: Journey) -> None:
    controller = journey.screen.controller
    picker = controller.tryon.style_browser.nail_form_picker
    session = controller.services.session
    steps.first_start(journey)
    steps.both_hands_painted(journey)
    with journey.step("natural nails: the picker folded, its chip says natural") as s:
        assert session.nail_form == NATURAL and picker.isHidden()
        assert picker.toggle.text().startswith(tr("NailForm", "Natural")), picker.toggle.text()
        natural = 0
        for _ in range(5):  # the largest of a few frames: the demo's hands turn
            s.settle(100)
            natural = max(natural, painted_area(s))
    with journey.step("open shape and length") as s:
        s.tap_at(picker.toggle)
        s.wait_until(lambda: picker.isVisible(), "the shape and length rows")
        for button in (*picker.shape_buttons.values(), *picker.length_buttons.values()):
            assert button.isVisible() and button.height() >= 48 and not button.icon().isNull(), button.text()
    with journey.step("long") as s:
        s.tap_at(picker.length_buttons[NailLength.LONG])
        s.wait_until(lambda: session.nail_form.length is NailLength.LONG, "long chosen")
    for shape in SHAPES:
        with journey.step(f"{shape.value}, long, on both hands") as s:
            s.tap_at(picker.shape_buttons[shape])
            form = NailForm(shape, NailLength.LONG)
            s.wait_until(lambda f=form: session.nail_form == f, f"{shape.value} chosen")
            s.wait_until(lambda: min(s.painted_nails()) >= steps.MIN_NAILS_PER_HAND,
                         f"at least {steps.MIN_NAILS_PER_HAND} painted nails on each hand")
            # longer nails: the paint covers clearly more of the frame than the natural nails did
            s.wait_until(lambda: painted_area(s) > 1.3 * natural, f"the {shape.value} nails longer than natural")
            assert picker.toggle.text() == f"{tr('NailForm', shape_label(shape))} · {tr('NailForm', 'Long')}"
            s.settle(300)  # a few frames on, for the screenshot
    steps.snapshot_after_countdown(journey)
    with journey.step("take home: the card names the shape and length") as s:
        s.tap(tr("_TakeHomeButton", "Send to my phone"))
        s.wait_until(lambda: s.shows_text(tr("SharePage", "Take it home")), "the take-home page")
        card = controller.share.page.card
        words = f"{tr('NailForm', 'Almond')} · {tr('NailForm', 'Long')}"
        assert card.form.text() == words and card.form.isVisible(), card.form.text()
        assert words == "杏仁形 · 长", words
    with journey.step("walk away: the next customer has natural nails") as s:
        s.wait_until(lambda: page(s) == "customer" and not s.shows_text(tr("SharePage", "Take it home")),
                     "the start page again", timeout_s=controller.config.idle_timeout_s + 60)
        assert session.nail_form == NATURAL and picker.isHidden() and picker.form() == NATURAL
        s.wait_until(lambda: sum(s.painted_nails()) >= 4, "the mirror live again, a first style painted")


def shape_label(shape: NailShape) -> str:
    return {NailShape.ROUND: "Round", NailShape.SQUARE: "Square", NailShape.SQUOVAL: "Squoval",
            NailShape.ALMOND: "Almond", NailShape.COFFIN: "Coffin", NailShape.STILETTO: "Stiletto"}[shape]


def test_each_shape_long_on_both_demo_hands(journey_display, nailmirror_home, monkeypatch):
    write_config(nailmirror_home, language="zh_CN", share_to_phone=True, store_name=STORE)
    run_journey("nail-shapes", shapes, monkeypatch)
