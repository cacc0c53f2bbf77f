"""A large published catalog, fast: the images are stored once and every style points at them (as a chain's
catalog shares textures), so thousands of styles take seconds. For the browser's paging tests and its benchmark."""

from __future__ import annotations

from pathlib import Path

from nailmirror_desktop.core.catalog import StyleRepository
from nailmirror_desktop.core.catalog.content import read_style_folder
from nailmirror_desktop.core.catalog.status import StyleStatus
from tests.support.style_fixtures import make_style_folder


def add_published_styles(repo: StyleRepository, count: int, folder: Path, name: str = "批量款") -> None:
    content = read_style_folder(make_style_folder(folder, name=name)).content
    stored = repo.store_content(content)
    for i in range(count):
        style = repo.create_style_from_stored(f"{name}{i}", "MANUAL", stored, actor="bench")
        for status in (StyleStatus.PENDING_REVIEW, StyleStatus.PUBLISHED):
            repo.transit(style.style_code, status, actor="bench")
