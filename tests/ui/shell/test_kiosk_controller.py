"""The kiosk as the app builds it (real services, real bridge threads, demo video): apply a style, generate one
with the offline provider and try it on, and the event loop never stalls longer than a frame meanwhile."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QTimer

from nailmirror_desktop.ui.shell.main_window import CUSTOMER, SNAPSHOT
from nailmirror_desktop.ui.tryon.style_browser import CodeRole
from tests.support.style_fixtures import make_catalog
from tests.support.ui_support import light_kiosk, started_kiosk

# The GUI thread's own work between two 5 ms ticks: about one frame at 20–30 FPS. It is measured as that
# thread's CPU time (time.thread_time), not as wall time: on a shared 2-core CI machine the wall gap also
# counts the time the OS gave the five busy threads of this process and the machine's other tenants (92 ms
# once in CI, 20 ms quiet here), which says nothing about what this code does on the GUI thread.
STALL_BUDGET_MS = 50
# A wall-clock gap this long would be a frozen screen whatever the load: a worker holding the GIL through a
# long C call, or a blocking call on the GUI thread that does not spend CPU (disk, a lock).
FREEZE_MS = 500


@pytest.fixture
def kiosk(qtbot):
    with started_kiosk(qtbot) as controller:
        qtbot.waitUntil(lambda: controller.tryon.style_browser.model.rowCount() > 0, timeout=60000)
        yield controller


def wait_for_painted_frames(qtbot, controller, count=3):
    shown = []
    controller.tryon.mirror_loop.frame_shown.connect(lambda: shown.append(1))
    qtbot.waitUntil(lambda: len(shown) >= count, timeout=30000)


def test_tapping_a_style_applies_it_on_the_next_frame(qtbot, kiosk):
    browser = kiosk.tryon.style_browser
    index = browser.model.index(1, 0)
    code = browser.model.data(index, CodeRole)
    browser.list_view.clicked.emit(index)
    assert kiosk.services.session.style.code == code
    compositor = kiosk.services.session.pipeline.compositor
    wait_for_painted_frames(qtbot, kiosk)
    assert kiosk.services.session.pipeline.compositor is compositor  # the frames after the tap used this style
    assert browser.current_code.text() == code
    assert kiosk.window.mirror._style_code == code


@pytest.mark.slow
def test_generation_completes_and_is_tried_on_without_stalling_the_screen(qtbot, kiosk):
    wait_for_painted_frames(qtbot, kiosk)
    ticks: list[tuple[float, float]] = []  # (wall, GUI thread CPU) at each tick
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append((time.perf_counter(), time.thread_time())))
    timer.start()
    task_no = kiosk.generation.generate("奶白色底胶，贝壳碎片，无名指跳色")
    assert task_no
    panel = kiosk.generation.panel
    qtbot.waitUntil(lambda: panel.result_code.text() != "", timeout=60000)
    qtbot.wait(300)  # keep measuring while the new style is painted
    timer.stop()
    code = panel.result_code.text()
    assert kiosk.services.engine.get(task_no).status.value == "SUCCESS"
    assert kiosk.services.session.style.code == code
    assert kiosk.window.mirror._style_code == code
    gaps_ms = [(b[0] - a[0]) * 1000 for a, b in zip(ticks, ticks[1:], strict=False)]
    busy_ms = [(b[1] - a[1]) * 1000 for a, b in zip(ticks, ticks[1:], strict=False)]
    assert len(gaps_ms) > 20
    print(f"event loop: {len(gaps_ms)} ticks, longest gap {max(gaps_ms):.1f} ms wall,"
          f" most GUI-thread work between ticks {max(busy_ms):.1f} ms")
    assert max(busy_ms) <= STALL_BUDGET_MS, f"the GUI thread worked {max(busy_ms):.0f} ms without a break"
    assert max(gaps_ms) <= FREEZE_MS, f"the screen froze {max(gaps_ms):.0f} ms"


def test_a_busy_queue_gets_a_friendly_message(qtbot, kiosk):
    engine = kiosk.services.engine
    limit = engine.config.pending_limit_per_source
    kiosk.services.executor.shutdown(0)  # nothing drains the queue: it fills up
    for i in range(limit):
        engine.submit("STYLE_GENERATION", {"prompt": f"red {i}", "provider": "offline"}, provider="offline")
    assert kiosk.generation.generate("粉色法式") is None
    assert "minute" in kiosk.generation.panel.status.text() or "分钟" in kiosk.generation.panel.status.text()


@pytest.mark.slow
def test_snapshot_is_saved_and_the_idle_reset_forgets_the_customer(qtbot, kiosk, nailmirror_home):
    wait_for_painted_frames(qtbot, kiosk)
    kiosk.generation.panel.prompt.setText("粉色")
    assert kiosk.tryon.take_snapshot()
    assert kiosk.window.current_page() == SNAPSHOT
    assert kiosk.tryon.snapshot_page.view.has_images()
    folder = nailmirror_home / "snapshots"
    qtbot.waitUntil(lambda: len(list(folder.glob("*.png"))) == 2, timeout=10000)
    before = np.asarray(Image.open(next(folder.glob("*_before.png"))))
    after = np.asarray(Image.open(next(folder.glob("*_after.png"))))
    assert before.shape == after.shape and np.any(before != after), "the after photo shows no nail art"

    seen_at_reset = {}

    def record():
        seen_at_reset.update(pair=kiosk.services.session.latest_pair(), frame=kiosk.window.mirror.has_frame(),
                             snapshot=kiosk.tryon.snapshot_page.view.has_images(),
                             text=kiosk.generation.panel.prompt.text(),
                             page=kiosk.window.current_page())

    kiosk.session_did_reset.connect(record)
    kiosk.idle.set_timeout_ms(20)
    qtbot.waitUntil(lambda: bool(seen_at_reset), timeout=5000)
    assert seen_at_reset == {"pair": None, "frame": False, "snapshot": False, "text": "", "page": CUSTOMER}
    wait_for_painted_frames(qtbot, kiosk)  # the mirror goes on for the next customer


def test_expired_snapshots_are_deleted_at_start_and_after_each_customer(qtbot, nailmirror_home, tmp_path):
    """Photos older than the setting (7 days by default) go when the kiosk starts and when a session ends; newer
    ones stay. (The shell over light services, workers inline: the purge is done when the call returns.)"""
    folder = nailmirror_home / "snapshots"
    folder.mkdir(parents=True)

    def photo(name: str, age_days: float):
        path = folder / name
        path.write_bytes(b"png")
        stamp = time.time() - age_days * 86_400
        os.utime(path, (stamp, stamp))
        return path

    expired, kept = photo("old_after.png", 8), photo("recent_after.png", 6)
    with light_kiosk(qtbot, make_catalog(tmp_path / "catalog", count=1)) as controller:
        controller.start()
        assert not expired.exists() and kept.exists()
        expired_later = photo("older_after.png", 30)
        controller.reset_session()
        assert not expired_later.exists() and kept.exists()


@pytest.mark.slow
def test_no_network_gets_a_friendly_message(qtbot, monkeypatch):
    import socket

    with socket.socket() as probe:  # a loopback port nobody listens on: connections are refused at once
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("NAILMIRROR_PROVIDER", "openai")
    monkeypatch.setenv("NAILMIRROR_OPENAI_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("NAILMIRROR_OPENAI_API_KEY", "sk-test-not-a-real-key")
    with started_kiosk(qtbot) as controller:
        services = controller.services
        assert services.provider == "openai"
        task_no = controller.generation.generate("red french tips")
        assert task_no
        status = controller.generation.panel.status
        qtbot.waitUntil(lambda: "can't be reached" in status.text(), timeout=30000)
        assert services.engine.get(task_no).last_error_code == "network_unreachable"


@pytest.mark.slow
def test_a_rejected_prompt_gets_a_friendly_message(qtbot, monkeypatch):
    from tests.support.fake_providers import API_KEY, FakeOpenAI, openai_moderation_blocked

    with FakeOpenAI() as server:  # real HTTP on loopback, answering with OpenAI's moderation refusal
        server.queue(openai_moderation_blocked())
        monkeypatch.setenv("NAILMIRROR_PROVIDER", "openai")
        monkeypatch.setenv("NAILMIRROR_OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("NAILMIRROR_OPENAI_API_KEY", API_KEY)
        with started_kiosk(qtbot) as controller:
            task_no = controller.generation.generate("red, something the moderation refuses")
            status = controller.generation.panel.status
            qtbot.waitUntil(lambda: "describe it differently" in status.text(), timeout=30000)
            task = controller.services.engine.get(task_no)
            assert (task.status.value, task.last_error_class) == ("DEAD", "CONTENT_REJECTED")
            assert controller.generation.panel.generate_button.isEnabled()


def test_the_accent_picker_moves_the_accent_to_the_chosen_fingers(qtbot, kiosk):
    from nailmirror_desktop.vision.types import Finger

    browser = kiosk.tryon.style_browser
    with_accent = next(code for code in browser.model.codes()
                       if kiosk.tryon.apply_style(code) and kiosk.services.session.style.accent is not None)
    session = kiosk.services.session
    assert session.style.code == with_accent and session.accent_fingers  # the style's own accent fingers
    for finger, button in browser.accent_buttons.items():
        button.setChecked(finger == Finger.INDEX)
    assert session.accent_fingers == {Finger.INDEX}
    compositor = session.pipeline.compositor
    assert compositor.texture_for(Finger.INDEX) is not compositor.texture_for(Finger.MIDDLE)
    for finger in (Finger.THUMB, Finger.RING, Finger.PINKY):
        assert compositor.texture_for(finger) is compositor.texture_for(Finger.MIDDLE)


@pytest.mark.slow
def test_enter_while_a_paid_generation_runs_queues_nothing_more(qtbot, monkeypatch):
    """A slow provider (real HTTP on loopback, answering after 2 s): Enter pressed 11 times in the text box while
    the generation runs gives one task and one provider call; once it is tried on, Enter makes a new one."""
    from PySide6.QtCore import Qt

    from tests.support.fake_providers import API_KEY, FakeOpenAI, Reply, openai_success, swatch_png

    with FakeOpenAI() as server:
        slow = openai_success(swatch_png())
        server.queue(Reply(slow.status, slow.body, slow.headers, delay_s=2.0))
        monkeypatch.setenv("NAILMIRROR_PROVIDER", "openai")
        monkeypatch.setenv("NAILMIRROR_OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("NAILMIRROR_OPENAI_API_KEY", API_KEY)
        with started_kiosk(qtbot) as controller:
            engine, panel = controller.services.engine, controller.generation.panel
            panel.prompt.setText("red french tips")
            for _ in range(11):
                qtbot.keyClick(panel.prompt, Qt.Key.Key_Return)
                qtbot.wait(50)
            qtbot.waitUntil(lambda: server.generation_count == 1, timeout=10000)
            assert engine.count(task_type="STYLE_GENERATION") == 1
            qtbot.waitUntil(lambda: panel.result_code.text() != "", timeout=60000)
            assert server.generation_count == 1 and engine.count(task_type="STYLE_GENERATION") == 1
            qtbot.keyClick(panel.prompt, Qt.Key.Key_Return)
            assert engine.count(task_type="STYLE_GENERATION") == 2


@pytest.mark.slow
def test_two_more_versions_of_a_design_are_rendered_and_one_can_be_tried_on(qtbot, kiosk):
    """Real offline generation: the versions differ (other colours and seeds), show their preview cards and
    names, and a tap puts the picked one on the nails."""
    from PySide6.QtWidgets import QLabel

    panel = kiosk.generation.panel
    assert kiosk.generation.generate("奶白色，金色闪粉，贝壳碎片")
    qtbot.waitUntil(lambda: panel.more_button.isVisibleTo(panel), timeout=60000)
    assert not panel.preview.pixmap().isNull()
    panel.more_button.click()
    qtbot.waitUntil(lambda: len(panel.variation_buttons) == 3 and panel.generate_button.isEnabled(), timeout=90000)
    pictures = [b.findChild(QLabel, "versionPicture") for b in panel.variation_buttons]
    assert all(not picture.pixmap().isNull() for picture in pictures)
    names = panel.variation_names()
    assert len(set(names)) == 3 and all(names), names  # each version is named apart
    repo = kiosk.services.repository
    codes = [t.result["style_code"] for t in kiosk.services.engine.list_tasks(task_type="STYLE_GENERATION")]
    assert len(set(codes)) == 3
    textures = {frozenset(a.file_sha256 for a in repo.assets(repo.get_by_code(c).id, asset_type="NAIL_TEXTURE"))
                for c in codes}
    assert len(textures) == 3, "the versions are not different designs"
    panel.variation_buttons[2].click()
    qtbot.waitUntil(lambda: kiosk.services.session.style.code == panel.result_code.text(), timeout=10000)
    assert kiosk.services.session.style.code in codes


def test_the_running_kiosk_shortens_the_gil_switch_interval_and_gives_it_back(qtbot):
    """The mirror's track stage waits for the GIL behind the paint stage at most a switch interval each time it
    comes back from MediaPipe: the kiosk runs with 0.5 ms instead of Python's 5 ms, and restores it on shutdown
    (tests run kiosks in one process)."""
    import sys

    from nailmirror_desktop.ui.shell.kiosk_controller import GIL_SWITCH_INTERVAL_S

    before = sys.getswitchinterval()
    assert before != pytest.approx(GIL_SWITCH_INTERVAL_S)
    with started_kiosk(qtbot):
        assert sys.getswitchinterval() == pytest.approx(GIL_SWITCH_INTERVAL_S)
    assert sys.getswitchinterval() == before


def test_after_shutdown_the_catalog_still_paints_without_its_database(qtbot, kiosk):
    """A paint that comes after the kiosk closed its database (the window is still on screen while Qt quits)
    gets the grey placeholder for a thumbnail it had not read yet, not an error from the closed database."""
    from PySide6.QtCore import Qt

    model = kiosk.tryon.style_browser.model
    kiosk.shutdown()
    model._icons.clear()  # as if these tiles had never been painted
    icon = model.data(model.index(0, 0), Qt.ItemDataRole.DecorationRole)
    assert not icon.isNull()
    assert model.data(model.index(0, 0), CodeRole)  # the rows already read stay
