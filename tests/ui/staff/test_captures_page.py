"""The staff page for consented captures: a customer's withdrawal by code (deleted here at once, queued for HQ,
a sync started), and staff's own hands: consent once (recorded), then a capture under that record from the last
snapshot. Real database and capture store; workers inline (run_now)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from nailmirror_desktop.app.captures import (
    CaptureMaker,
    capture_snapshot,
    staff_consent_in_own_connection,
    withdraw_in_own_connection,
)
from nailmirror_desktop.core.captures import store
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.ui.staff.captures_page import CapturesPage
from tests.support.ui_support import run_now

pytestmark = pytest.mark.qt
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 100


def _db():
    return open_database(database_path())


def test_a_withdrawal_by_code_deletes_the_copy_here_queues_it_and_syncs(qtbot) -> None:
    conn = _db()
    kept = store.save(conn, PNG, store.Consent("customer", "2026-12-04T10:00:00.000Z"), {}, "m", 1.8e9, 10_000)
    synced: list[bool] = []
    page = CapturesPage(run_now, withdraw_in_own_connection, sync_now=lambda: synced.append(True))
    qtbot.addWidget(page)
    page.code_edit.setText("nope")
    page.withdraw_button.click()
    assert "not a photo code" in page.feedback.text() and synced == []
    page.code_edit.setText(f"{kept.code[:4].lower()}-{kept.code[4:]}")
    page.withdraw_button.click()
    said = page.feedback.text()
    assert f"{kept.code[:4]}-{kept.code[4:]}" in said and "deleted from this kiosk" in said
    assert store.get(conn, kept.code) is None and store.pending_withdrawals(conn) == [kept.code]
    assert synced == [True] and page.code_edit.text() == ""
    conn.close()


@pytest.mark.slow
def test_staff_consent_once_then_capture_their_own_hands(qtbot, nails_eval_dir: Path, tmp_path: Path) -> None:
    before = tmp_path / "x_before.png"
    shutil.copy(nails_eval_dir / "images" / "4c484f8c-e402-11e8-97db-0242ac1c0002.jpg", before)
    maker = CaptureMaker(mirrored=False)
    page = CapturesPage(run_now, withdraw_in_own_connection, staff_consent=staff_consent_in_own_connection,
                        take_staff_capture=lambda path: capture_snapshot(maker, path,
                                                                         staff_consent_in_own_connection()),
                        last_snapshot=lambda: tmp_path / "x_after.png")
    qtbot.addWidget(page)
    try:
        assert not page.consent_button.isHidden() and page.capture_button.isHidden()
        page.consent_button.click()
        assert page.consent_button.isHidden() and not page.capture_button.isHidden()
        page.capture_button.click()
    finally:
        maker.close()
    conn = _db()
    [kept] = store.queued(conn)
    conn.close()
    assert kept.consent.by == "staff" and f"{kept.code[:4]}-{kept.code[4:]}" in page.staff_feedback.text()
