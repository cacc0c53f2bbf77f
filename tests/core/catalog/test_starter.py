"""The starter catalog: loaded on first start as PUBLISHED, previewable CATALOG styles; a second start adds nothing."""

from __future__ import annotations

import json

import pytest

from nailmirror_desktop.adapters.style_store import open_style_repository
from nailmirror_desktop.core.catalog import StyleError, StyleFilter, StyleStatus
from nailmirror_desktop.core.catalog.starter import default_catalog_folder, load_starter_catalog
from nailmirror_desktop.core.catalog.try_on_assets import export_style_folder
from nailmirror_desktop.vision.paint.style_textures import load_style
from nailmirror_desktop.vision.types import Finger
from tests.support.style_fixtures import make_catalog, repository


def _count(repo, table):
    return repo.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_catalog_loads_published_previewable_styles_with_their_assets(tmp_path):
    folder = make_catalog(tmp_path / "catalog", count=6)
    repo = repository()
    report = load_starter_catalog(repo, folder)
    assert len(report.added) == 6 and report.present == 0
    customer = repo.list_for_customers(limit=100)
    assert {s.style_code for s in customer} == set(report.added)
    for style in customer:
        assert style.source == "CATALOG" and style.status is StyleStatus.PUBLISHED and style.is_previewable
        kinds = {(a.asset_type, a.slot) for a in repo.assets(style.id)}
        assert {("NAIL_TEXTURE", "nail"), ("COVER", ""), ("THUMBNAIL", "")} <= kinds
        assert style.cover_asset_id == next(a.id for a in repo.assets(style.id) if a.asset_type == "COVER")
        assert [e.action for e in repo.audit_trail(style.id)] == ["CREATE", "SUBMIT", "APPROVE"]
    accented = [s for s in customer if s.accent_fingers]
    assert accented and all(("NAIL_TEXTURE", "accent") in {(a.asset_type, a.slot) for a in repo.assets(s.id)}
                            for s in accented)
    assert {c.code for c in repo.categories()} == {"solid", "french", "glitter"}
    assert {t.code for t in repo.tags()} == {"通勤", "约会"}
    assert len(repo.list_styles(StyleFilter(tag_code="约会"))) == 3
    first = next(s for s in customer if json.loads(s.design_json)["catalog_code"] == "style-00")
    assert first.name == "款式0" and first.name_en == "Style 0" and first.category_name == "纯色"


def test_a_second_start_adds_nothing(tmp_path):
    folder = make_catalog(tmp_path / "catalog", count=4)
    repo = repository()
    first = load_starter_catalog(repo, folder)
    tables = ("style", "style_asset", "audit_log", "category", "tag", "style_tag_relation")
    counts = {t: _count(repo, t) for t in tables}
    files = sorted(p for p in repo.require_store().root.rglob("*") if p.is_file())
    again = load_starter_catalog(repository(), folder)
    assert again.added == () and again.present == 4
    assert {t: _count(repo, t) for t in counts} == counts
    assert sorted(p for p in repo.require_store().root.rglob("*") if p.is_file()) == files
    assert len(first.added) == 4


def test_codes_are_the_same_on_every_kiosk(tmp_path, monkeypatch):
    folder = make_catalog(tmp_path / "catalog", count=3)
    kiosk_a = load_starter_catalog(repository(), folder).added
    monkeypatch.setenv("NAILMIRROR_HOME", str(tmp_path / "kiosk-b"))
    (tmp_path / "kiosk-b").mkdir()
    assert load_starter_catalog(repository(), folder).added == kiosk_a


def test_an_interrupted_load_finishes_on_the_next_start(tmp_path):
    folder = make_catalog(tmp_path / "catalog", count=5)
    broken = folder / "style-03" / "nail.png"
    good_bytes = broken.read_bytes()
    broken.write_bytes(good_bytes[: len(good_bytes) // 2])  # a damaged file stops the load at style 3
    repo = repository()
    with pytest.raises(StyleError) as info:
        load_starter_catalog(repo, folder)
    assert info.value.code == "IMAGE_TRUNCATED"
    assert _count(repo, "style") == 3  # styles 0–2 are in, style 3 left no partial rows
    broken.write_bytes(good_bytes)
    report = load_starter_catalog(repo, folder)
    assert report.present == 3 and len(report.added) == 2
    assert _count(repo, "style") == 5


def test_a_malformed_catalog_is_refused(tmp_path):
    (tmp_path / "catalog.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(StyleError) as info:
        load_starter_catalog(repository(), tmp_path)
    assert info.value.code == "CATALOG_INVALID"
    (tmp_path / "catalog.json").write_text(json.dumps({"styles": [{"name_zh": "无编号"}]}), encoding="utf-8")
    with pytest.raises(StyleError):
        load_starter_catalog(repository(), tmp_path)


def test_opening_the_repository_loads_the_catalog_once(tmp_path):
    folder = make_catalog(tmp_path / "catalog", count=2)
    repo = open_style_repository(catalog_folder=folder)
    assert len(repo.list_for_customers()) == 2
    assert len(open_style_repository(catalog_folder=folder).list_for_customers()) == 2


@pytest.mark.slow
def test_the_shipped_starter_catalog_loads():
    folder = default_catalog_folder()
    assert (folder / "catalog.json").is_file(), f"the kiosk ships a starter catalog in {folder}"
    repo = repository()
    report = load_starter_catalog(repo, folder)
    assert len(report.added) >= 24
    customer = repo.list_for_customers(limit=1000)
    assert len(customer) == len(report.added)
    assert len({s.category_id for s in customer}) >= 3
    assert all(json.loads(s.design_json)["design"] for s in customer)  # the renderer's design came along
    assert any(s.accent_fingers for s in customer)
    for style in customer:
        loaded = load_style(export_style_folder(repo, style.style_code))
        assert all(loaded.texture_for(finger).shape[2] == 4 for finger in Finger)  # every nail painted, with alpha
    assert load_starter_catalog(repo, folder).added == ()
