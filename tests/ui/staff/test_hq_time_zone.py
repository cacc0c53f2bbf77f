"""The store's time zone HQ sets (issue #25 §11) as staff meet it on a running kiosk: editable while the kiosk is
not enrolled; after it enrolls and syncs with the real HQ on loopback, shown read-only with HQ's zone the next
time staff open the pages, and adopted by the running kiosk (its config, the daily cap's hooks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nailmirror_desktop.core.config import load_config, save_config
from nailmirror_desktop.core.credits import CreditHooks
from nailmirror_desktop.core.generation.flow import STYLE_GENERATION
from nailmirror_hq import db, stores
from tests.support.sync_rig import HqRig, nailmirror
from tests.support.ui_support import ROOT, set_staff_pin, started_kiosk

ARTIFACTS = ROOT / "test-artifacts" / "hq_time_zone"


@pytest.mark.slow  # a started kiosk and a real HQ
def test_the_zone_is_staffs_until_enrolled_then_hqs_and_read_only(qtbot, tmp_path: Path) -> None:
    save_config(load_config().with_changes(store_time_zone="Europe/Paris"))
    set_staff_pin()
    rig = HqRig(tmp_path / "hq")
    try:
        with started_kiosk(qtbot) as kiosk:
            kiosk.staff.enter()
            box = kiosk.staff.settings_page.credit_settings
            assert box.zone_name() == "Europe/Paris" and box.zone.isEnabled() and box.region.isEnabled()
            assert not box.hq_note.isVisibleTo(kiosk.staff.settings_page)
            kiosk.staff.leave()

            store_id, code = rig.add_store("SH-0012")
            with db.write(rig.hq.engine) as conn:
                stores.set_time_zone(conn, store_id, "Asia/Urumqi", "test")
            assert nailmirror("sync", "enroll", code, "--hq", rig.url).rc == 0
            synced = nailmirror("sync", "now")
            assert synced.rc == 0, synced.err

            kiosk.staff.enter()
            settings = kiosk.staff.settings_page
            assert box.zone_name() == "Asia/Urumqi"
            assert not (box.region.isEnabled() or box.zone.isEnabled() or box.use_system.isEnabled())
            assert box.hq_note.isVisibleTo(settings) and "HQ" in box.hq_note.text()
            assert kiosk.config.store_time_zone == "Asia/Urumqi" == load_config().store_time_zone
            hooks = kiosk.services.engine.hooks_for(STYLE_GENERATION)
            assert isinstance(hooks, CreditHooks) and hooks.policy.time_zone == "Asia/Urumqi"
            settings.current_pin.setText("")
            assert settings.save() and load_config().store_time_zone == "Asia/Urumqi"  # a save keeps HQ's
            show_zone(kiosk)
            assert kiosk.save_screenshot(ARTIFACTS / "settings_zone_from_hq_offscreen.png")
    finally:
        rig.stop()


def show_zone(kiosk) -> None:  # type: ignore[no-untyped-def]
    """The Settings tab, scrolled to the store's time zone (for the screenshot)."""
    from PySide6.QtWidgets import QApplication, QScrollArea

    tabs = kiosk.staff.staff_page.tabs
    settings = kiosk.staff.settings_page
    for index in range(tabs.count()):
        scroll = tabs.widget(index)
        if isinstance(scroll, QScrollArea) and scroll.widget() is settings:
            tabs.setCurrentIndex(index)
            QApplication.processEvents()
            scroll.ensureWidgetVisible(settings.credit_settings.hq_note, 50, 200)
    QApplication.processEvents()


@pytest.mark.slow  # Xvfb, a kiosk process and a real HQ
def test_the_read_only_zone_in_a_real_window_under_xvfb(tmp_path: Path) -> None:
    import json
    import os
    import shutil
    import subprocess
    import sys

    from nailmirror_desktop.core.paths import data_dir
    from tests.support.data_dirs import copy_starter_data
    from tests.support.xvfb import xvfb_display

    home = copy_starter_data(data_dir())
    rig = HqRig(tmp_path / "hq")
    try:
        store_id, code = rig.add_store("SH-0012")
        with db.write(rig.hq.engine) as conn:
            stores.set_time_zone(conn, store_id, "Asia/Urumqi", "test")
        assert nailmirror("sync", "enroll", code, "--hq", rig.url).rc == 0
        assert nailmirror("sync", "now").rc == 0
    finally:
        rig.stop()  # the kiosk below runs offline: what it shows is what the last sync recorded
    with xvfb_display() as display:
        env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
        env.update(DISPLAY=display, NAILMIRROR_HOME=str(home), QT_QPA_PLATFORM="xcb")
        done = subprocess.run([sys.executable, "-m", "tests.support.xvfb_staff_zone", str(tmp_path / "shots")],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["zone"] == "Asia/Urumqi" and not report["editable"] and "总部" in report["note"]
    assert report["window"] == [1920, 1080]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(tmp_path / "shots" / "settings_zone_from_hq.png", ARTIFACTS / "settings_zone_from_hq_1920x1080.png")
