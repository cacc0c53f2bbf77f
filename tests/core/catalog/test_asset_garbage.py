"""Collecting the asset store's garbage (issue #12, point 7): temporaries left by interrupted writes and blobs no
style_asset row points at, older than the age guard; never a blob an import is about to record."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time

from nailmirror_desktop.app.services import collect_asset_garbage_in_own_connection
from nailmirror_desktop.core.catalog import StyleContent, StyleSource
from nailmirror_desktop.core.catalog.assets import ASSET_GARBAGE_MIN_AGE_S
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.paths import database_path
from tests.support.style_fixtures import image_bytes, repository

HOUR_S = 3_600


def _content(seed: int) -> StyleContent:
    return StyleContent(nail_textures={"nail": image_bytes(color=(seed % 256, 100, 200, 255))},
                        preview=image_bytes(size=(120, 90), color=(seed % 256, 50, 60, 255)))


def _age(path, seconds):
    moment = time.time() - seconds
    os.utime(path, (moment, moment))


def _files(root):
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def _referenced(repo):
    return {row[0] for row in repo.conn.execute("SELECT storage_path FROM style_asset")}


def test_start_up_collects_old_temporaries_and_unreferenced_blobs_and_reports_them(caplog):
    repo = repository()
    store = repo.require_store()
    style = repo.create_style_with_content("kept", StyleSource.MANUAL, _content(1), actor="t")
    referenced = _referenced(repo)
    # What a failed import leaves: blobs stored, no row recorded.
    orphans = [store.put(image_bytes(color=(9, 9, i, 255))) for i in range(3)]
    young_orphan = store.put(image_bytes(color=(8, 8, 8, 255)))
    # What interrupted writes leave: temporaries beside a blob and beside a thumbnail reference.
    stale_parts = [store.root / "ab" / "cd" / ".tmp-dead1.part", store.root / "thumbs" / ".tmp-dead2.part"]
    for part in stale_parts:
        part.parent.mkdir(parents=True, exist_ok=True)
        part.write_bytes(b"x" * 1000)
    young_part = store.root / "ab" / ".tmp-writing.part"
    young_part.write_bytes(b"y" * 10)
    stranger = store.root / "README.txt"  # not the store's: never touched
    stranger.write_text("hello")
    for relative in _files(store.root) - {young_orphan.relative_path, "ab/.tmp-writing.part"}:
        _age(store.root / relative, 2 * HOUR_S)

    with caplog.at_level(logging.INFO):
        result = collect_asset_garbage_in_own_connection()

    assert (result.temporaries, result.temporary_bytes) == (2, 2000)
    assert (result.blobs, result.blob_bytes) == (3, sum(b.size for b in orphans))
    left = _files(store.root)
    assert not {b.relative_path for b in orphans} & left
    assert not {p.relative_to(store.root).as_posix() for p in stale_parts} & left
    assert referenced <= left and young_orphan.relative_path in left
    assert {"ab/.tmp-writing.part", "README.txt"} <= left
    for asset in repo.assets(style.id):
        assert store.verify(asset.storage_path, asset.file_sha256)
    assert any("3 unreferenced blob(s)" in r.getMessage() and "2 temporary file(s)" in r.getMessage()
               for r in caplog.records)
    again = collect_asset_garbage_in_own_connection()
    assert (again.temporaries, again.blobs) == (0, 0)


def test_an_import_reusing_an_old_unreferenced_blob_keeps_it():
    repo = repository()
    store = repo.require_store()
    content = _content(7)
    leftover = store.put(content.nail_textures["nail"])  # an earlier, failed import of the same image
    _age(store.path_of(leftover.relative_path), 2 * HOUR_S)
    stored = repo.store_content(content)  # the new import finds it: from now on it is young again
    result = repo.collect_garbage(time.time())
    assert result.blobs == 0
    repo.create_style_from_stored("again", StyleSource.MANUAL, stored, actor="t")
    assert store.path_of(leftover.relative_path).is_file()


def test_a_blob_collected_between_an_imports_write_and_its_rows_is_written_again():
    repo = repository()
    store = repo.require_store()
    content = _content(11)
    stored = repo.store_content(content)
    for relative in {b.relative_path for b in (stored.textures["nail"], stored.cover, stored.thumbnail)}:
        store.path_of(relative).unlink()  # the collector got there first
    style = repo.create_style_from_stored("late", StyleSource.MANUAL, stored, actor="t")
    for asset in repo.assets(style.id):
        assert store.verify(asset.storage_path, asset.file_sha256), asset


def test_imports_racing_a_collector_without_age_guard_never_leave_a_row_without_its_file():
    """The worst case: the collector runs flat out with no age guard while styles are imported; every recorded
    asset must still have its file (the collector deletes only under the write lock, the import checks under it)."""
    repo = repository()
    store = repo.require_store()
    stop = threading.Event()
    collected = []

    def collect():
        conn = open_database(database_path(), check_same_thread=False)
        collector = repository().__class__(conn, store)
        while not stop.is_set():
            collected.append(collector.collect_garbage(time.time() + 1, min_age_s=0).blobs)
        conn.close()

    thread = threading.Thread(target=collect)
    thread.start()
    try:
        styles = [repo.create_style_with_content(f"s{i}", StyleSource.MANUAL, _content(i), actor="t")
                  for i in range(40)]
    finally:
        stop.set()
        thread.join()
    for style in styles:
        for asset in repo.assets(style.id):
            path = store.path_of(asset.storage_path)
            assert path.is_file(), asset
            assert hashlib.sha256(path.read_bytes()).hexdigest() == asset.file_sha256
    assert len(collected) > 1 and sum(collected) > 0, collected  # it did run, and did take blobs mid-import


def test_the_age_guard_is_an_hour():
    assert ASSET_GARBAGE_MIN_AGE_S == HOUR_S


def test_the_kiosks_start_up_job_collects_then_loads_the_catalog():
    from nailmirror_desktop.app.services import prepare_catalog_in_own_connection

    repo = repository()
    store = repo.require_store()
    orphan = store.put(image_bytes(color=(1, 2, 3, 255)))
    _age(store.path_of(orphan.relative_path), 2 * HOUR_S)
    collected = prepare_catalog_in_own_connection()
    assert collected is not None and (collected.blobs, collected.blob_bytes) == (1, orphan.size)
    assert not store.path_of(orphan.relative_path).exists()
    assert len(repo.list_for_customers(limit=100)) == 30
