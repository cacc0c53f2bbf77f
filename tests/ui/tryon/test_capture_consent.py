"""\"Help us improve the mirror\" (issue #26 §1): off until she taps, one sentence saying what is kept, for how
long and how to withdraw; her tap keeps a capture (the real still path and face finder on a real photo) and shows
its code; nothing is captured without the tap, and an answer that comes back after the idle reset is deleted."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from nailmirror_desktop.app.captures import (
    CaptureMaker,
    capture_snapshot,
    customer_consent,
    delete_capture_in_own_connection,
)
from nailmirror_desktop.core.captures import store
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.ui.tryon.capture_consent import ConsentButton
from nailmirror_desktop.vision.sources.supervisor import FramePacket
from tests.support.style_fixtures import make_catalog
from tests.support.ui_support import HoldableRunner, light_kiosk

pytestmark = [pytest.mark.qt, pytest.mark.slow]
HAND = "4c484f8c-e402-11e8-97db-0242ac1c0002.jpg"


@pytest.fixture
def kiosk(qtbot, tmp_path):
    runner = HoldableRunner()
    maker = CaptureMaker(mirrored=False)
    with light_kiosk(qtbot, make_catalog(tmp_path / "catalog", count=2), runner,
                     take_capture=lambda before: capture_snapshot(maker, before, customer_consent()),
                     drop_capture=delete_capture_in_own_connection) as controller:
        controller.runner = runner
        yield controller
    maker.close()


def _captures() -> list[store.Capture]:
    conn = open_database(database_path())
    try:
        return store.queued(conn)
    finally:
        conn.close()


def _snapshot(kiosk, photo: Path) -> None:
    frame = cv2.imread(str(photo))
    kiosk.services.session.process(FramePacket(frame, 1, 1))
    assert kiosk.tryon.take_snapshot() and kiosk.tryon.last_snapshot is not None


def test_her_tap_keeps_a_capture_and_shows_its_code_and_nothing_before_it(kiosk, nails_eval_dir) -> None:
    consent = kiosk.capture
    assert consent.button.isHidden()  # no snapshot, no offer
    _snapshot(kiosk, nails_eval_dir / "images" / HAND)
    assert not consent.button.isHidden() and consent.button.isEnabled()
    assert "180" in consent.sentence.text() and not consent.sentence.isHidden()
    assert _captures() == []  # off by default: the snapshot alone keeps nothing
    consent.button.click()
    [kept] = _captures()
    assert consent.code == kept.code and kept.consent.by == "customer"
    assert f"{kept.code[:4]}-{kept.code[4:]}" in consent.code_label.text() and not consent.code_label.isHidden()
    assert consent.button.isHidden()
    kiosk.reset_session()
    assert consent.code_label.isHidden() and consent.code == "" and consent.button.isHidden()
    assert [c.code for c in _captures()] == [kept.code]  # kept for HQ: she saw her code


def test_an_answer_after_the_idle_reset_is_deleted_and_no_tap_keeps_nothing(kiosk, nails_eval_dir) -> None:
    _snapshot(kiosk, nails_eval_dir / "images" / HAND)
    kiosk.reset_session()  # she left without tapping
    assert _captures() == []
    _snapshot(kiosk, nails_eval_dir / "images" / HAND)
    kiosk.runner.held = True
    kiosk.capture.button.click()
    assert kiosk.capture.button.state() == ConsentButton.KEEPING
    kiosk.reset_session()  # she left before her code came
    kiosk.runner.release()
    assert _captures() == [] and not list(store.captures_dir().glob("*.png"))
    assert kiosk.capture.code_label.isHidden()


def test_a_photo_without_hands_says_so_and_keeps_nothing(kiosk, tmp_path) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), (cv2.UMat(120, 160, cv2.CV_8UC3, (60, 60, 60)).get()))
    _snapshot(kiosk, blank)
    kiosk.capture.button.click()
    assert kiosk.capture.button.state() == ConsentButton.NO_HANDS and _captures() == []
