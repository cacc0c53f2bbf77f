"""The kiosk's idle reset is where a nail model release takes over (issue #27 §7): the shell as the app builds it
over a real database and real onnxruntime sessions. A release loaded while a customer is at the mirror waits;
the idle reset switches the mirror's pipeline to it between frames; staff see what runs and, after a rollback,
why, on the diagnostics page."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from nailmirror_desktop.app.model_switch import build_model_switcher
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.model_releases import store
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.staff.diagnostics_page import DiagnosticsPage
from nailmirror_desktop.vision.nails.active_models import ActiveSegmenters
from tests.support.style_fixtures import make_catalog
from tests.support.ui_support import light_kiosk, run_now
from tests.support.verified_releases import BUNDLED, as_good_model, blind_model, offer_verified

pytestmark = pytest.mark.qt
FRAMES = 5  # frames with a hand that make a session here


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    connection = open_database(database_path())
    yield connection
    connection.close()


@pytest.fixture
def kiosk(qtbot, tmp_path, conn):
    active = ActiveSegmenters()

    def models(session):
        switcher = build_model_switcher(conn, active, run_now, min_frames=FRAMES)
        session.tally = switcher.tally  # as app/kiosk.py wires it
        return switcher

    with light_kiosk(qtbot, make_catalog(tmp_path / "catalog", count=1), active=active, models=models) as controller:
        controller.active = active
        yield controller


def customer_frames(kiosk, painted: int, frames: int = FRAMES) -> None:
    """What the paint stage counts while a customer is at the mirror (tests/app/test_model_switch.py paints the
    demo's real frames; here the shell is under test)."""
    for _ in range(frames):
        kiosk.services.models.tally.observe(hands=2, painted=painted, blinks=0, chances=painted, segment_ms=6.0)


def test_a_release_waits_for_the_idle_reset_and_the_mirror_runs_it_from_then_on(kiosk, conn, tmp_path):
    offer_verified(conn, as_good_model(tmp_path / "r7"), 7)
    customer_frames(kiosk, painted=10, frames=2)  # she is at the mirror
    kiosk.start()  # loads the waiting release beside the running model
    pipeline = kiosk.tryon.session.pipeline
    assert kiosk.active.live is None and pipeline.segmenter().path == BUNDLED
    assert store.waiting(conn, "live") is not None
    kiosk.reset_session()
    assert kiosk.active.live is not None and pipeline.segmenter() is kiosk.active.live
    # the snapshot's render keeps the stills' own larger build: a live release is for the mirror
    assert pipeline.still_segmenter().path.name == "nail_segmenter_still.onnx"
    assert store.active(conn, "live").release == 7


def test_staff_see_the_running_model_and_why_the_last_release_went_back(kiosk, conn, tmp_path):
    kiosk.start()
    for _ in range(2):  # the bundled model's customers
        customer_frames(kiosk, painted=10)
        kiosk.reset_session()
    version = offer_verified(conn, blind_model(tmp_path), 8)
    kiosk.reset_session()  # nobody at the mirror: it loads and switches
    kiosk.staff.enter()
    page = kiosk.staff.staff_page.findChild(DiagnosticsPage)
    i18n.install_language("en")
    page.refresh()
    assert page.values["model"].text() == f"{version} (HQ release 8, its first customers are being watched)"
    assert page.values["rollback"].text() == "None"
    kiosk.staff.leave()
    for _ in range(3):
        customer_frames(kiosk, painted=0)
        kiosk.reset_session()
    assert kiosk.active.live is None
    i18n.install_language("en")  # the idle reset put the store's language back
    page.refresh()
    assert page.values["model"].text().endswith("(bundled with the kiosk)")
    assert page.values["rollback"].text().startswith(f"Release 8 ({version}) went back at 20")
    assert page.values["rollback"].text().endswith(
        ": painted nails per frame was 0.00 against 10.00, the previous model's median over its last 2 customers"
        " (few customers to compare with)")
    assert store.get(conn, "live", 8).detail == \
        "painted nails per frame 0.00 vs median 10.00 of 2 sessions (fewer than 5)"
    i18n.install_language("zh_CN")
    page.refresh()
    assert page.values["model"].text().endswith("（终端自带）")
    assert page.values["rollback"].text().startswith(f"发布 8（{version}）已于 20")
    assert page.values["rollback"].text().endswith(
        "自动回退：每帧上色指甲数为 0.00，上一模型最近 2 位顾客的中位数为 10.00（可比较的顾客较少）")
    assert page.labels["rollback"].text() == "最近一次模型回退"
    i18n.install_language("en")
