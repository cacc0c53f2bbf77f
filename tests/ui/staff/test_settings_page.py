"""Settings that take effect only at the next start offer a restart; sharing to phones is a setting, off; the
camera is chosen by name with a live preview."""

from __future__ import annotations

import time

import numpy as np
import pytest

from nailmirror_desktop.core.config import load_config, save_config
from nailmirror_desktop.core.staff_pin import StaffPin
from nailmirror_desktop.ui.shell import i18n
from nailmirror_desktop.ui.staff.camera_preview import PreviewFeeds, qt_camera_devices
from nailmirror_desktop.ui.staff.settings_page import SettingsPage
from nailmirror_desktop.vision.sources.camera_devices import CameraDevice
from nailmirror_desktop.vision.sources.readers import FrameReader, SourceUnavailable, StillImageSource, VideoFileSource
from nailmirror_desktop.vision.sources.supervisor import SourceSupervisor
from tests.support.ui_support import DEMO_VIDEO, ROOT, run_now

ARTIFACTS = ROOT / "test-artifacts"

pytestmark = pytest.mark.qt


@pytest.fixture
def page(qtbot):
    i18n.install_language("en")
    config = load_config()
    save_config(config)
    settings = SettingsPage(config, StaffPin(), running=config)
    qtbot.addWidget(settings)
    settings.show()
    return settings


def test_a_start_only_setting_offers_a_restart_and_a_live_one_does_not(qtbot, page):
    page.idle.setValue(120)
    assert page.save()
    assert not page.restart_button.isVisibleTo(page) and page.feedback.text() == "Saved."
    assert not page.share.isChecked()  # off by default: photos stay on the kiosk
    page.share.setChecked(True)
    assert page.save()
    assert load_config().share_to_phone is True
    assert not page.restart_button.isVisibleTo(page)  # take-home follows at once (ShareController.set_sharing)
    page.mirror.setChecked(not page.mirror.isChecked())  # the camera's picture is set up at start
    assert page.save()
    assert page.restart_button.isVisibleTo(page) and "Restart" in page.feedback.text()
    with qtbot.waitSignal(page.restart_requested, timeout=1000):
        page.restart_button.click()
    page.mirror.setChecked(not page.mirror.isChecked())  # back to what the kiosk runs with
    assert page.save()
    assert not page.restart_button.isVisibleTo(page)


def test_number_settings_step_with_finger_sized_buttons(qtbot, page):
    before = page.keep_days.value()
    page.keep_days.plus.click()
    page.keep_days.plus.click()
    page.keep_days.minus.click()
    assert page.keep_days.value() == before + 1
    page.idle.plus.click()
    assert page.idle.value() == load_config().idle_timeout_s + 10  # idle steps by 10 s
    for spin in (page.idle, page.keep_days):
        assert spin.spin.lineEdit().width() >= spin.spin.width() - 40  # the number has the box: no 12 px arrows
        assert spin.spin.text().startswith(str(spin.value()))
        assert min(spin.plus.height(), spin.minus.height(), spin.plus.width()) >= 48


# --- the camera by name, with a live preview (ui/staff/camera_preview.py) -----------------------------------
DEMO_CAMERA = CameraDevice(0, "Demo camera (the kiosk's demo video)", "/dev/video0",
                           "/dev/v4l/by-id/usb-NailMirror_Demo_0001-video-index0")


class DemoVideoCameras:
    """The preview's camera opener, with the kiosk's demo video standing in for camera 0 (no camera here, and no
    virtual one without root: v4l2loopback is a kernel module)."""

    def __init__(self) -> None:
        self.readers: list[FrameReader] = []
        self.opened: list[int] = []

    def __call__(self, index: int) -> FrameReader:
        self.opened.append(index)
        if index != 0:
            raise SourceUnavailable("CAMERA_NOT_FOUND", f"no camera {index}")
        reader = FrameReader(VideoFileSource(DEMO_VIDEO, loop=True), paced=True).start()
        self.readers.append(reader)
        return reader


def camera_page(qtbot, config, cameras, feeds):
    save_config(config)
    page = SettingsPage(config, StaffPin(), running=config, camera_feeds=feeds, list_cameras=lambda: cameras)
    qtbot.addWidget(page)
    page.resize(1280, 1100)
    return page


def test_no_camera_says_so_in_the_list_and_the_preview(qtbot):
    i18n.install_language("en")
    real = qt_camera_devices()  # Qt's own list: under Xvfb / offscreen here there is no camera
    page = camera_page(qtbot, load_config(), real, PreviewFeeds(run_now))
    page.show()
    if real:
        pytest.skip("this machine has a camera: the no-camera words are checked on an empty list below")
    assert [page.camera.itemText(i) for i in range(page.camera.count())] == ["Automatic: the first camera found"]
    assert page.camera_state.text() == "No camera found."
    assert page.camera_preview.message().startswith("No camera is connected. The mirror plays the demo video")
    ARTIFACTS.mkdir(exist_ok=True)
    page.grab().save(str(ARTIFACTS / "settings_camera_none.png"))
    i18n.install_language("zh_CN")
    try:
        qtbot.waitUntil(lambda: "摄像头" in page.camera_preview.message(), timeout=2000)  # LanguageChange is posted
        assert "摄像头" in page.camera.itemText(0) and "摄像头" in page.camera_state.text()
    finally:
        i18n.install_language("en")


@pytest.mark.slow
def test_the_chosen_camera_previews_live_and_is_let_go_when_the_page_is_left(qtbot):
    i18n.install_language("en")
    cameras = DemoVideoCameras()
    paused: list[bool] = []
    page = camera_page(qtbot, load_config(), [DEMO_CAMERA], PreviewFeeds(open_camera=cameras,
                                                                         pause_mirror=paused.append))
    assert page.camera.itemText(1) == DEMO_CAMERA.name
    page.camera.setCurrentIndex(1)
    page.show()
    qtbot.waitUntil(lambda: page.camera_preview.frames_shown >= 3, timeout=10000)
    start, shown = time.monotonic(), page.camera_preview.frames_shown
    qtbot.wait(1500)
    fps = (page.camera_preview.frames_shown - shown) / (time.monotonic() - start)
    assert fps >= 10, f"preview at {fps:.1f} FPS"
    assert paused == [True] and cameras.opened == [0]  # the mirror waits while the preview holds a camera
    ARTIFACTS.mkdir(exist_ok=True)
    page.grab().save(str(ARTIFACTS / "settings_camera_preview.png"))
    assert page.camera_preview.picture.pixmap().width() > 0
    reader = cameras.readers[0]
    page.hide()  # another staff tab, or back to the customer: the camera is let go, the mirror resumes
    qtbot.waitUntil(lambda: not reader.running, timeout=5000)
    assert paused == [True, False] and not page.camera_preview.running
    assert page.save()
    saved = load_config()
    assert (saved.camera, saved.camera_id, saved.camera_name) == ("0", DEMO_CAMERA.stable_id, DEMO_CAMERA.name)
    assert page.restart_button.isVisibleTo(page)  # the camera is opened at start


def test_a_saved_camera_that_is_unplugged_stays_chosen_and_says_so(qtbot):
    i18n.install_language("en")
    config = load_config().with_changes(camera="2", camera_id="/dev/v4l/by-id/usb-Gone-video-index0",
                                        camera_name="Logitech BRIO")
    cameras = DemoVideoCameras()
    page = camera_page(qtbot, config, [DEMO_CAMERA], PreviewFeeds(run_now, open_camera=cameras))
    page.show()
    assert page.camera.currentText() == "Logitech BRIO (not connected)"
    assert page.camera_preview.message() == "This camera is not connected." and cameras.opened == []
    page.idle.setValue(60)
    assert page.save()  # saving another setting keeps the chosen camera
    saved = load_config()
    assert (saved.camera, saved.camera_id, saved.camera_name) == ("2", config.camera_id, "Logitech BRIO")
    # Replugged at another number: found again by its name and by-id link.
    moved = CameraDevice(5, "Logitech BRIO", "/dev/video5", config.camera_id)
    page._list_cameras = lambda: [DEMO_CAMERA, moved]
    page.rescan_button.click()
    assert page.chosen_camera() == moved and cameras.opened == [5]


def test_the_mirror_s_own_camera_is_previewed_through_its_source_not_opened_twice(qtbot):
    class Camera0(StillImageSource):
        device = 0  # what CameraSource carries: the index the mirror opened

    supervisor = SourceSupervisor(lambda: FrameReader(Camera0(np.full((90, 160, 3), 120, np.uint8), repeat=True),
                                                      paced=True))
    supervisor.reopen()
    cameras = DemoVideoCameras()
    try:
        page = camera_page(qtbot, load_config(), [DEMO_CAMERA], PreviewFeeds(run_now, supervisor=supervisor,
                                                                             open_camera=cameras))
        page.camera.setCurrentIndex(1)
        page.show()
        qtbot.waitUntil(lambda: page.camera_preview.frames_shown >= 3, timeout=5000)
        assert page.camera_preview.feed.shared and cameras.opened == []
        page.hide()
        assert supervisor.current_source().running  # given back untouched
    finally:
        supervisor.close()


@pytest.mark.slow
def test_in_the_kiosk_the_settings_tab_shows_the_cameras_and_leaving_gives_the_mirror_back(qtbot):
    """The settings tab in the kiosk as the app builds it (demo video, no camera here): the camera part says what
    it found; leaving the staff pages leaves the mirror running, never paused by the preview."""
    from tests.support.ui_support import set_staff_pin, started_kiosk

    save_config(load_config())
    set_staff_pin()
    with started_kiosk(qtbot) as kiosk:
        kiosk.staff.enter()
        staff, settings = kiosk.staff.staff_page, kiosk.staff.settings_page
        staff.tabs.setCurrentIndex(staff._page_keys.index("settings"))
        qtbot.waitUntil(lambda: settings.camera_preview.running or bool(settings.camera_preview.message()),
                        timeout=10000)
        if not settings._devices:
            assert settings.camera_preview.message().startswith("No camera is connected")
        ARTIFACTS.mkdir(exist_ok=True)
        kiosk.window.grab().save(str(ARTIFACTS / "staff_settings_camera.png"))
        staff.tabs.setCurrentIndex(staff._page_keys.index("diagnostics"))
        assert not settings.camera_preview.running
        kiosk.staff.leave()
        shown = kiosk.tryon.mirror_loop.fps
        qtbot.waitUntil(lambda: shown() > 0, timeout=10000)  # the mirror plays on
        assert not kiosk.tryon.mirror_loop._paused


def test_automatic_previews_the_first_listed_camera_that_opens(qtbot):
    i18n.install_language("en")
    cameras = DemoVideoCameras()
    listed = [CameraDevice(4, "Broken webcam", "/dev/video4"), DEMO_CAMERA]
    page = camera_page(qtbot, load_config(), listed, PreviewFeeds(open_camera=cameras))
    assert page.chosen_camera() is None  # automatic
    page.show()
    qtbot.waitUntil(lambda: page.camera_preview.frames_shown >= 2, timeout=10000)
    assert cameras.opened == [4, 0]  # the listed cameras only, in Qt's order; not 1, 2, 3
    page.hide()
    qtbot.waitUntil(lambda: not cameras.readers[0].running, timeout=5000)


def test_a_camera_that_does_not_open_is_said_in_words(qtbot):
    i18n.install_language("en")
    busy = CameraDevice(3, "Webcam in use", "/dev/video3")
    paused: list[bool] = []
    page = camera_page(qtbot, load_config(), [busy], PreviewFeeds(open_camera=DemoVideoCameras(),
                                                                  pause_mirror=paused.append))
    page.camera.setCurrentIndex(1)
    page.show()
    qtbot.waitUntil(lambda: "does not open" in page.camera_preview.message(), timeout=5000)
    assert page.camera_preview.message() == ("This camera does not open: it may be unplugged or in use by another "
                                             "program.")
    page.hide()
    assert paused == [True, False]


def test_a_camera_known_by_index_that_gets_its_name_needs_no_restart_but_another_camera_does(qtbot):
    i18n.install_language("en")
    old = load_config().with_changes(camera="0")  # a config from before cameras had names
    other = CameraDevice(2, "Logitech BRIO", "/dev/video2", "/dev/v4l/by-id/usb-BRIO-video-index0")
    page = camera_page(qtbot, old, [DEMO_CAMERA, other], PreviewFeeds(run_now, open_camera=DemoVideoCameras()))
    assert page.chosen_camera() == DEMO_CAMERA  # index 0 is the demo camera's
    assert page.save() and not page.needs_restart() and load_config().camera_name == DEMO_CAMERA.name
    page.camera.setCurrentIndex(2)
    assert page.save() and page.needs_restart()


def test_the_store_time_zone_and_prices_are_saved_and_charge_the_next_generation(qtbot, page):
    """Staff pick a zone (region, then zone) and a price per image; saved in config.json, and the running
    engine's hooks charge the next generation with them (the credits page applies the saved config)."""
    from nailmirror_desktop.app.services import register_credits
    from nailmirror_desktop.core.credits import CreditPolicy, apply_grant, ledger_entries
    from nailmirror_desktop.core.generation.flow import submit_generation
    from nailmirror_desktop.core.paths import database_path
    from nailmirror_desktop.core.tasks import TaskEngine
    from nailmirror_desktop.ui.staff.credits_page import CreditsPage

    box = page.credit_settings
    assert set(box.price_boxes) == {"openai", "dashscope"}  # offline: shown free, no box to edit
    assert box.offline_price.text().startswith("Free")
    box.region.setCurrentIndex(box.region.findData("Europe"))
    assert all(box.zone.itemData(i).startswith("Europe/") for i in range(box.zone.count()))
    box.set_zone("Europe/Paris")
    assert box.zone_name() == "Europe/Paris" and "Paris (UTC+0" in box.zone.currentText()
    box.price_boxes["openai"].plus.click()
    box.price_boxes["openai"].plus.click()  # 1 (the default) → 3
    with TaskEngine(database_path()) as engine:
        hooks = register_credits(engine, CreditPolicy(models={"openai": "gpt-image-1"}))
        credits = CreditsPage(engine)
        qtbot.addWidget(credits)
        page.config_saved.connect(credits.apply_config)
        assert page.save()
        saved = load_config()
        assert saved.store_time_zone == "Europe/Paris"
        assert saved.credit_prices[box.price_key("openai")] == 3 and "offline" not in saved.credit_prices
        assert hooks.policy.time_zone == "Europe/Paris" and hooks.policy.unit_price("openai") == 3
        with engine.write_transaction() as conn:
            apply_grant(conn, "g-1", 10, "test")
        submit_generation(engine, "glitter", "openai")
        (charge, _grant) = ledger_entries(engine.connection(), hooks.policy)
        assert (charge.unit_price, charge.amount) == (3, 3)  # no restart
        submit_generation(engine, "glitter", "offline")  # still free
        assert len(ledger_entries(engine.connection(), hooks.policy)) == 2


def test_the_time_zone_picker_speaks_the_ui_language_and_is_finger_sized(qtbot, page):
    box = page.credit_settings
    box.set_zone("Asia/Shanghai")
    assert "China Standard Time" in box.zone.currentText()
    i18n.install_language("zh_CN")
    try:
        qtbot.waitUntil(lambda: "中国标准时间" in box.zone.currentText(), timeout=3000)  # LanguageChange is posted
        assert box.region.currentText() == "亚洲" and box.zone_label.text() == "门店时区（每日上限按此日计）"
    finally:
        i18n.install_language("en")
    assert min(box.region.height(), box.zone.height(), box.use_system.height()) >= 48
    box.use_system.click()  # this computer's zone: the test machine's own
    assert box.zone_name()


def test_providers_show_names_not_ids_in_both_languages_and_save_the_id(qtbot, page):
    """Before: the drop-down listed offline / openai / dashscope, and the prices read 'openai/gpt-image-1'."""
    shown = [page.provider.itemText(i) for i in range(page.provider.count())]
    assert not {"offline", "openai", "dashscope"} & set(shown)
    assert any("OpenAI" in text for text in shown) and any("Offline" in text for text in shown)
    labels = [label.text() for label, _ in page.credit_settings.price_labels]
    assert not any("openai/" in text or "dashscope" in text for text in labels)
    page.provider.setCurrentIndex(page.provider.findData("dashscope"))
    assert page.save()
    from nailmirror_desktop.core.generation.provider_config import load_provider_config

    assert load_provider_config().default_provider == "dashscope"
    i18n.install_language("zh_CN")
    try:
        qtbot.waitUntil(lambda: "离线" in page.provider.itemText(page.provider.findData("offline")), timeout=3000)
        assert "通义万相" in page.provider.currentText()
    finally:
        i18n.install_language("en")


def test_a_zone_hq_recorded_is_shown_and_cannot_be_changed_here(qtbot):
    """An enrolled kiosk whose store time zone HQ recorded (sync state): shown, read-only, and saved as HQ's."""
    i18n.install_language("en")
    config = load_config().with_changes(store_time_zone="Europe/Paris")
    save_config(config)
    settings = SettingsPage(config, StaffPin(), running=config, hq_time_zone="Asia/Shanghai")
    qtbot.addWidget(settings)
    box = settings.credit_settings
    assert box.zone_name() == "Asia/Shanghai" and "China Standard Time" in box.zone.currentText()
    assert not (box.region.isEnabled() or box.zone.isEnabled() or box.use_system.isEnabled())
    assert box.hq_note.isVisibleTo(settings) and "HQ" in box.hq_note.text()
    assert settings.save() and load_config().store_time_zone == "Asia/Shanghai"


def test_without_hq_the_zone_is_the_staffs_to_choose(qtbot, page):
    box = page.credit_settings
    assert box.region.isEnabled() and box.zone.isEnabled() and not box.hq_note.isVisibleTo(page)


def test_the_store_name_is_saved_for_the_take_home_card_at_once(qtbot, page):
    assert page.store_name.text() == "" and page.store_name.placeholderText()
    page.store_name.setText("  指尖魔镜 · 静安店 ")
    with qtbot.waitSignal(page.config_saved, timeout=1000) as saved:
        assert page.save()
    assert saved.args[0].store_name == "指尖魔镜 · 静安店" == load_config().store_name
    assert not page.restart_button.isVisibleTo(page)  # the next take-home shows it (KioskController)
