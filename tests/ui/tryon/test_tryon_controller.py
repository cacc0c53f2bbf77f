"""The try-on flow's first start: while the starter catalog imports, the customer is told so (not "no match").

The import runs through a runner that holds the job until the test lets it go (the bridge's contract, by hand),
so the screen can be read while it is still running. The repository and the import are real.
"""

from __future__ import annotations

import numpy as np
import pytest

from nailmirror_desktop.core.catalog.starter import load_starter_catalog
from nailmirror_desktop.ui.shell.main_window import MainWindow
from nailmirror_desktop.ui.tryon.tryon_controller import TryOnController
from nailmirror_desktop.ui.tryon.tryon_session import TryOnSession
from nailmirror_desktop.vision.compositor import Compositor
from nailmirror_desktop.vision.pipeline import TryOnPipeline
from nailmirror_desktop.vision.supervisor import SourceSupervisor
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
