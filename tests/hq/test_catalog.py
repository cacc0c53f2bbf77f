"""The catalog HQ starts with: the kiosk's starter catalog under the kiosk's own ids and style codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from nailmirror_desktop.core.catalog import codes as kiosk_codes
from nailmirror_desktop.core.catalog.starter import catalog_client_uid, default_catalog_folder, read_catalog
from nailmirror_hq import catalog, db, feed, meta
from nailmirror_hq.style_folder import StyleFolderError
from tests.hq.conftest import make_hq
from tests.support.hq_fixtures import style_folder


def test_starter_catalog_has_the_kiosks_ids_and_codes(tmp_path: Path) -> None:
    folder = default_catalog_folder()
    hq = make_hq(tmp_path / "hq", starter=folder)
    try:
        entries = read_catalog(folder)
        with db.read(hq.engine) as conn:
            rows = {r.id: r for r in catalog.list_styles(conn)}
            live = {i for i, _, _ in feed.live(conn, "all", "style")}
            categories = {i for i, _, _ in feed.live(conn, "all", "category")}
        assert len(rows) == len(entries) == len(live)
        for entry in entries:
            row = rows[catalog_client_uid(entry.code)]  # the kiosk's uuid5 for this starter style
            prefix = kiosk_codes.code_prefix(entry.category_code, "CATALOG")
            assert row.style_code == kiosk_codes.stable_style_code(prefix, entry.code)
            assert row.status == "PUBLISHED" and row.body["name"]["zh"] == entry.name_zh
            assert {a["slot"] for a in row.body["assets"] if a["type"] == "NAIL_TEXTURE"} >= {"nail"}
            for asset in row.body["assets"]:
                assert hq.blobs.has(asset["sha256"])
        assert {e.category_code for e in entries} == categories
    finally:
        hq.close()
    reopened = make_hq(tmp_path / "hq", starter=folder)  # a second start adds nothing
    try:
        with db.read(reopened.engine) as conn:
            assert len(catalog.list_styles(conn)) == len(entries)
    finally:
        reopened.close()


def test_import_publish_off_shelf_and_take_down_bump_the_version(hq_sqlite, tmp_path: Path) -> None:
    hq = hq_sqlite
    with db.write(hq.engine) as conn:
        catalog.ensure_category(conn, "french", "法式", "French", 3)
    row = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path), actor="test", category_code="french")
    assert row.status == "UNPUBLISHED" and row.style_code.startswith("FRE-")
    with db.read(hq.engine) as conn:
        assert feed.live(conn, "all", "style") == []  # not sent before it is published
    versions = []
    for status in ("PUBLISHED", "OFF_SHELF", "WITHDRAWN", "PUBLISHED"):
        with db.write(hq.engine) as conn:
            versions.append(catalog.set_status(conn, row.id, status, "test").version)
    assert versions == sorted(versions) and len(set(versions)) == 4
    with db.read(hq.engine) as conn:
        changes, _ = feed.page(conn, "all", 0, 100)
    assert [(c["type"], c["op"], c.get("style", {}).get("status")) for c in changes] == [
        ("category", "upsert", None), ("style", "upsert", "PUBLISHED"), ("style", "upsert", "OFF_SHELF"),
        ("style", "delete", None), ("style", "upsert", "PUBLISHED")]


def test_a_new_channel_starts_with_every_live_style(hq_sqlite, tmp_path: Path) -> None:
    hq = hq_sqlite
    row = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path), actor="test", publish=True)
    with db.write(hq.engine) as conn:
        catalog.ensure_channel(conn, "cn-south")
        assert [i for i, _, _ in feed.live(conn, "cn-south", "style")] == [row.id]
        assert meta.epoch(conn)


def test_bad_style_folders_are_refused_with_the_reason(hq_sqlite, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(StyleFolderError, match="no nail.png"):
        catalog.import_folder(hq_sqlite.engine, hq_sqlite.blobs, empty, actor="test")
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "nail.png").write_bytes(b"not an image")
    with pytest.raises(StyleFolderError, match="not a PNG"):
        catalog.import_folder(hq_sqlite.engine, hq_sqlite.blobs, fake, actor="test")
    with db.read(hq_sqlite.engine) as conn:
        assert catalog.list_styles(conn) == []
