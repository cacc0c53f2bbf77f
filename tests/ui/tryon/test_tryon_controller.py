"""The try-on flow's first start: while the starter catalog imports, the customer is told so (not "no match").

The import runs through a runner that holds the job until the test lets it go (the bridge's contract, by hand),
so the screen can be read while it is still running. The repository and the import are real.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from nailmirror_desktop.core.catalog.starter import load_starter_catalog
from nailmirror_desktop.ui.shell.main_window import MainWindow
from nailmirror_desktop.ui.tryon.tryon_controller import TryOnController
from nailmirror_desktop.ui.tryon.tryon_session import TryOnSession
from nailmirror_desktop.vision.paint.compositor import Compositor
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from nailmirror_desktop.vision.sources.supervisor import SourceSupervisor
from tests.support.style_fixtures import make_catalog, repository
from tests.support.ui_support import run_now, still_reader


class HeldRunner:
    """run_in_background that keeps each job until `release()`."""

    def __init__(self) -> None:
        self.jobs: list = []

    def __call__(self, fn, on_done) -> None:
        self.jobs.append((fn, on_done))

    def release(self) -> None:
        while self.jobs:
            run_now(*self.jobs.pop(0))


@pytest.fixture
def parts(qtbot):
    repo = repository()
    window = MainWindow()
    qtbot.addWidget(window)
    with TryOnPipeline(Compositor()) as pipeline:
        supervisor = SourceSupervisor(lambda: still_reader(np.zeros((120, 160, 3), np.uint8)))
        yield repo, window, TryOnSession(pipeline), supervisor
        supervisor.close()
    repo.conn.close()


def test_while_the_starter_catalog_imports_the_customer_is_told_so(qtbot, parts, tmp_path):
    repo, window, session, supervisor = parts
    runner = HeldRunner()
    controller = TryOnController(window, session, supervisor, repo, runner)
    browser = controller.style_browser
    folder = make_catalog(tmp_path / "catalog", count=3)
    controller.load_catalog(lambda: load_starter_catalog(repository(), folder))
    assert browser.model.rowCount() == 0 and browser.empty_label.isVisibleTo(browser)
    assert "Setting up the style catalog" in browser.empty_label.text()
    runner.release()
    assert browser.model.rowCount() == 3 and not browser.empty_label.isVisibleTo(browser)
    assert session.style is not None  # and the mirror opens with a style on
    browser.search.setText("no such style")
    browser.apply_search_now()
    assert browser.empty_label.text().startswith("No styles match")


def test_a_failed_import_says_so(qtbot, parts):
    repo, window, session, supervisor = parts
    controller = TryOnController(window, session, supervisor, repo, run_now)

    def broken():
        raise OSError("disk gone")

    controller.load_catalog(broken)
    assert "could not be loaded" in controller.style_browser.empty_label.text()


def test_two_styles_are_compared_side_by_side_and_the_chosen_one_goes_on(qtbot, parts, tmp_path):
    from nailmirror_desktop.ui.shell.main_window import COMPARE, CUSTOMER

    repo, window, session, supervisor = parts
    load_starter_catalog(repo, make_catalog(tmp_path / "catalog", count=3))
    controller = TryOnController(window, session, supervisor, repo, run_now)
    browser = controller.style_browser
    first, second = browser.model.codes()[:2]
    assert controller.apply_style(first)
    browser.compare_button.click()
    browser.list_view.clicked.emit(browser.model.index(1, 0))
    page = controller.compare_page
    assert window.current_page() == COMPARE and page.shown_codes() == (first, second)
    assert [n.text() for n in page.names] == [repo.get_by_code(c).name_en for c in (first, second)]
    page.resize(1200, 800)
    assert all(not p.pixmap().isNull() for p in page.previews)
    page.try_buttons[1].click()
    assert session.style.code == second and window.current_page() == CUSTOMER


@pytest.fixture
def rendering_kiosk(parts, tmp_path, nails_eval_dir):
    """A controller over a real task engine with the real EFFECT_PREVIEW handler, one style on, a real photo shown.

    Yields (controller, page, session); the executor, renderer and engine are closed after the test.
    """
    from nailmirror_desktop.app.effect_preview import register_effect_preview
    from nailmirror_desktop.core.paths import database_path
    from nailmirror_desktop.core.tasks import TaskEngine
    from nailmirror_desktop.ui.generation.task_executor import TaskExecutor
    from nailmirror_desktop.vision.sources.supervisor import FramePacket
    from tests.support.hand_photos import photo

    repo, window, session, supervisor = parts
    session.mirror = False
    code = load_starter_catalog(repo, make_catalog(tmp_path / "catalog", count=1)).added[0]
    engine = TaskEngine(database_path())
    renderer = register_effect_preview(engine, mirrored=False, max_hands=1)
    executor = TaskExecutor(engine)
    controller = TryOnController(window, session, supervisor, repo, run_now, executor=executor)
    try:
        executor.start()
        assert controller.apply_style(code)
        session.process(FramePacket(photo(nails_eval_dir, "2C29D473-CCB4-458C-926B-99D0042161E6.jpg"), 0, 0))
        yield controller, controller.snapshot_page, session
    finally:
        executor.shutdown()
        renderer.close()
        engine.close()


@pytest.mark.slow
def test_a_snapshot_shows_the_live_pair_at_once_then_the_still_render_with_progress(qtbot, rendering_kiosk):
    """A real photo through the live path, a real task executor and the real EFFECT_PREVIEW handler."""
    from nailmirror_desktop.core.tryon.effect_preview import frames_dir
    from nailmirror_desktop.ui.shell.qt_images import bgr_to_qimage

    controller, page, session = rendering_kiosk
    live_after = bgr_to_qimage(session.snapshot_pair().after)
    shown: list[int] = []
    page.render_bar.valueChanged.connect(shown.append)
    assert controller.take_snapshot()
    assert page.view.after_image() == live_after  # the live pair at once
    assert page.is_rendering() and page.render_bar.isVisibleTo(page)
    qtbot.waitUntil(lambda: not page.is_rendering(), timeout=120_000)
    assert any(0 < value < 100 for value in shown)  # the handler's progress reached the page
    rendered = page.view.after_image()
    assert rendered is not None and rendered != live_after  # swapped for the still render
    assert rendered == bgr_to_qimage(cv2.imread(str(controller.last_snapshot)))  # which is what was saved
    assert [p for p in frames_dir().iterdir() if not p.name.startswith(".")] == []


def test_a_failed_still_render_keeps_the_live_after_and_logs_one_line(qtbot, rendering_kiosk, caplog):
    from nailmirror_desktop.core.paths import data_dir
    from nailmirror_desktop.core.tryon.effect_preview import frames_dir

    controller, page, _session = rendering_kiosk
    for texture in (data_dir() / "assets").rglob("*.png"):
        texture.unlink()  # the style's files are lost; the mirror goes on with the textures it decoded
    caplog.clear()
    assert controller.take_snapshot()
    live_after = page.view.after_image()
    saved = controller.last_snapshot.read_bytes()
    qtbot.waitUntil(lambda: not page.is_rendering(), timeout=60_000)
    assert page.view.after_image() == live_after and controller.last_snapshot.read_bytes() == saved
    lines = [r for r in caplog.records if r.name.endswith("tryon_controller")]
    assert len(lines) == 1 and "DEAD" in lines[0].getMessage() and "TEXTURE_" in lines[0].getMessage()
    assert not any(r.exc_info for r in caplog.records)  # no traceback anywhere
    assert [p for p in frames_dir().iterdir() if not p.name.startswith(".")] == []


def test_a_frame_that_cannot_be_kept_ends_the_progress_and_the_snapshot_stays_saved(qtbot, parts, tmp_path,
                                                                                     nails_eval_dir):
    from nailmirror_desktop.core.paths import data_dir, database_path
    from nailmirror_desktop.core.tasks import TaskEngine
    from nailmirror_desktop.ui.generation.task_executor import TaskExecutor
    from nailmirror_desktop.vision.sources.supervisor import FramePacket
    from tests.support.hand_photos import photo

    repo, window, session, supervisor = parts
    code = load_starter_catalog(repo, make_catalog(tmp_path / "catalog", count=1)).added[0]
    (data_dir() / "effect_preview").write_bytes(b"")  # a file where the temp folder should be: unusable
    engine = TaskEngine(database_path())
    executor = TaskExecutor(engine)
    controller = TryOnController(window, session, supervisor, repo, run_now, executor=executor)
    try:
        executor.start()
        assert controller.apply_style(code)
        session.process(FramePacket(photo(nails_eval_dir, "2C29D473-CCB4-458C-926B-99D0042161E6.jpg"), 0, 0))
        assert session.snapshot_pair().nails > 0  # a render would have been asked for
        assert controller.take_snapshot()
        assert not controller.snapshot_page.is_rendering()  # nothing to wait for
        assert controller.last_snapshot is not None and controller.last_snapshot.is_file()
        assert engine.count() == 0  # no task queued
    finally:
        executor.shutdown()
        engine.close()


@pytest.mark.slow
def test_back_to_the_mirror_mid_render_shows_nothing_late_but_the_saved_after_is_still_rendered(
        qtbot, parts, tmp_path, nails_eval_dir):
    from nailmirror_desktop.app.effect_preview import register_effect_preview
    from nailmirror_desktop.core.paths import database_path
    from nailmirror_desktop.core.tasks import TaskEngine
    from nailmirror_desktop.core.tryon.effect_preview import EFFECT_PREVIEW
    from nailmirror_desktop.ui.generation.task_executor import TaskExecutor
    from nailmirror_desktop.vision.sources.supervisor import FramePacket
    from tests.support.hand_photos import photo

    repo, window, session, supervisor = parts
    session.mirror = False
    code = load_starter_catalog(repo, make_catalog(tmp_path / "catalog", count=1)).added[0]
    engine = TaskEngine(database_path())
    renderer = register_effect_preview(engine, mirrored=False, max_hands=1)
    executor = TaskExecutor(engine)
    controller = TryOnController(window, session, supervisor, repo, run_now, executor=executor)
    page = controller.snapshot_page
    try:
        executor.start()
        assert controller.apply_style(code)
        session.process(FramePacket(photo(nails_eval_dir, "2C29D473-CCB4-458C-926B-99D0042161E6.jpg"), 0, 0))
        assert controller.take_snapshot()
        saved = controller.last_snapshot.read_bytes()
        controller.back_to_mirror()
        assert not page.is_rendering() and not page.view.has_images()
        qtbot.waitUntil(lambda: engine.list_tasks(task_type=EFFECT_PREVIEW)[0].finished_at is not None,
                        timeout=120_000)
        qtbot.wait(200)  # the late signals arrive
        assert not page.view.has_images() and not page.is_rendering()  # nothing shown to the next customer
        assert controller.last_snapshot.read_bytes() != saved  # the kept photo is the still render
    finally:
        executor.shutdown()
        renderer.close()
        engine.close()
