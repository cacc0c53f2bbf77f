"""The customer's style browser over a real repository (SQLite file and asset store in the test's data dir)."""

from __future__ import annotations

import pytest

from nailmirror_desktop.core.catalog.content import read_style_folder
from nailmirror_desktop.core.catalog.starter import load_starter_catalog
from nailmirror_desktop.core.catalog.status import StyleStatus
from nailmirror_desktop.ui.tryon.style_browser import StyleBrowser
from tests.support.style_fixtures import make_catalog, make_style_folder, repository


@pytest.fixture
def repo(tmp_path):
    repo = repository()
    load_starter_catalog(repo, make_catalog(tmp_path / "catalog", count=4))
    yield repo
    repo.conn.close()


def publish_ai_style(repo, folder):
    content = read_style_folder(make_style_folder(folder, name="酒红磨砂")).content
    style, _ = repo.create_ai_style("T000000000000000a", name="酒红磨砂", content=content, actor="test")
    for status in (StyleStatus.PENDING_REVIEW, StyleStatus.PUBLISHED):
        repo.transit(style.style_code, status, actor="staff")
    return style


def test_a_published_ai_style_is_listed_but_is_not_the_next_customers_default(qtbot, repo, tmp_path):
    browser = StyleBrowser(repo)
    qtbot.addWidget(browser)
    catalog_default = browser.default_code()
    ai = publish_ai_style(repo, tmp_path / "ai")
    browser.reload()
    assert browser.model.codes()[0] == ai.style_code  # newest first: the customer still finds it
    assert browser.default_code() == catalog_default != ai.style_code


def test_the_default_ignores_the_last_customers_filter(qtbot, repo):
    browser = StyleBrowser(repo)
    qtbot.addWidget(browser)
    expected = browser.default_code()
    browser.search.setText("no such style")
    assert browser.model.rowCount() == 0 and browser.default_code() == expected
