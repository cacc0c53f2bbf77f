"""StyleRepository over a real SQLite file and asset store: assets, versions, lists, tags, AI idempotency."""

from __future__ import annotations

import json
import threading

import pytest

from nailmirror_desktop.adapters.style_store import open_style_repository
from nailmirror_desktop.core.catalog import (
    AssetType,
    IllegalTransition,
    StyleContent,
    StyleError,
    StyleFilter,
    StyleSource,
    StyleStatus,
    read_style_folder,
)
from nailmirror_desktop.core.catalog.status import transit
from nailmirror_desktop.core.db import open_database, write_transaction
from nailmirror_desktop.core.paths import OWNED_MARKER, database_path
from tests.support.style_fixtures import image_bytes, make_style_folder, repository


def _content(seed=0, accent=("ring",)):
    textures = {"nail": image_bytes(color=(200 + seed, 190, 180, 255))}
    if accent:
        textures["accent"] = image_bytes(color=(90, 20 + seed, 60, 255))
    return StyleContent(textures, image_bytes(size=(320, 240), color=(200 + seed, 190, 180, 255)), accent)


def _publish(repo, style):
    for target in (StyleStatus.PENDING_REVIEW, StyleStatus.PUBLISHED):
        transit(repo.conn, style.id, target, actor="t")
    return repo.get(style.id)


def test_a_style_with_content_has_textures_cover_and_thumbnail():
    repo = repository()
    style = repo.create_style_with_content("奶白贝壳", StyleSource.MANUAL, _content(), actor="t")
    assert style.status is StyleStatus.DRAFT and style.is_previewable and style.accent_fingers == ("ring",)
    assets = repo.assets(style.id)
    kinds = sorted((a.asset_type, a.slot) for a in assets)
    assert kinds == [("COVER", ""), ("NAIL_TEXTURE", "accent"), ("NAIL_TEXTURE", "nail"), ("THUMBNAIL", "")]
    cover = next(a for a in assets if a.asset_type == "COVER")
    assert cover.is_primary and style.cover_asset_id == cover.id
    assert [a.id for a in assets if a.is_primary] == [cover.id]
    thumb = next(a for a in assets if a.asset_type == "THUMBNAIL")
    assert max(thumb.width, thumb.height) == 256 and thumb.format == "PNG"
    assert repo.require_store().verify(cover.storage_path, cover.file_sha256)


def test_same_image_in_the_same_role_is_recorded_once_and_stored_once_across_styles():
    repo = repository()
    store = repo.require_store()
    a = repo.create_style("a", StyleSource.MANUAL, actor="t")
    b = repo.create_style("b", StyleSource.MANUAL, actor="t")
    blob = store.put(image_bytes())
    first = repo.add_asset(a.id, blob, AssetType.NAIL_TEXTURE, slot="nail")
    again = repo.add_asset(a.id, store.put(image_bytes()), AssetType.NAIL_TEXTURE, slot="nail")
    other_style = repo.add_asset(b.id, blob, AssetType.NAIL_TEXTURE, slot="nail")
    assert first.id == again.id and other_style.id != first.id
    assert other_style.storage_path == first.storage_path
    count = repo.conn.execute("SELECT count(*) FROM style_asset WHERE file_md5 = ?", (blob.md5,)).fetchone()[0]
    assert count == 2
    assert len([p for p in store.root.rglob("*") if p.is_file() and p.name != OWNED_MARKER]) == 1


def test_primary_asset_and_cover_stay_in_sync():
    repo = repository()
    store = repo.require_store()
    style = repo.create_style("a", StyleSource.MANUAL, actor="t")
    assert style.cover_asset_id is None
    plain = repo.add_asset(style.id, store.put(image_bytes(color=(1, 1, 1, 255))), AssetType.TRY_ON_EXAMPLE)
    assert repo.get(style.id).cover_asset_id is None  # not primary: cover untouched
    one = repo.add_asset(style.id, store.put(image_bytes(color=(2, 2, 2, 255))), AssetType.COVER, is_primary=True)
    two = repo.add_asset(style.id, store.put(image_bytes(color=(3, 3, 3, 255))), AssetType.COVER, is_primary=True)
    assert repo.get(style.id).cover_asset_id == two.id
    assert not repo.asset(one.id).is_primary and repo.asset(two.id).is_primary
    repo.set_primary_asset(style.id, plain.id)
    assert repo.get(style.id).cover_asset_id == plain.id
    primaries = repo.conn.execute("SELECT count(*) FROM style_asset WHERE style_id = ? AND is_primary = 1",
                                  (style.id,)).fetchone()[0]
    assert primaries == 1
    with pytest.raises(StyleError):
        repo.set_primary_asset(style.id, 999_999)
    assert repo.get(style.id).cover_asset_id == plain.id


def test_editing_a_published_style_makes_a_new_version_and_returns_it_to_draft():
    repo = repository()
    style = _publish(repo, repo.create_style_with_content("a", StyleSource.MANUAL, _content(), actor="t"))
    v1 = {(a.asset_type, a.slot): a for a in repo.assets(style.id)}
    new_nail = image_bytes(color=(10, 120, 200, 255))
    edited = repo.edit_content(style.style_code, StyleContent({"nail": new_nail}), actor="staff", reason="换底色")
    assert edited.status is StyleStatus.DRAFT and edited.content_version == 2 and edited.is_previewable
    v2 = {(a.asset_type, a.slot): a for a in repo.assets(style.id)}
    assert set(v2) == set(v1)  # accent texture, cover and thumbnail carried over
    assert edited.accent_fingers == ("ring",)
    assert v2[("NAIL_TEXTURE", "nail")].file_md5 != v1[("NAIL_TEXTURE", "nail")].file_md5
    assert v2[("NAIL_TEXTURE", "accent")].file_md5 == v1[("NAIL_TEXTURE", "accent")].file_md5
    assert edited.cover_asset_id == v2[("COVER", "")].id
    # The reviewed version stays as it was.
    assert {(a.asset_type, a.slot): a.id for a in repo.assets(style.id, version=1)} == {k: a.id for k, a in v1.items()}
    last = repo.audit_trail(style.id)[-1]
    assert (last.action, last.from_status, last.to_status, last.reason) == (
        "EDIT_CONTENT", "PUBLISHED", "DRAFT", "换底色")
    assert json.loads(last.detail_json)["version"] == 2


def test_a_style_under_review_cannot_be_edited():
    repo = repository()
    style = repo.create_style_with_content("a", StyleSource.MANUAL, _content(), actor="t")
    transit(repo.conn, style.id, StyleStatus.PENDING_REVIEW, actor="t")
    with pytest.raises(IllegalTransition):
        repo.edit_content(style.style_code, _content(seed=5), actor="t")
    after = repo.get(style.id)
    assert after.content_version == 1 and after.status is StyleStatus.PENDING_REVIEW
    assert repo.conn.execute("SELECT max(version) FROM style_asset WHERE style_id = ?", (style.id,)).fetchone()[0] == 1


def test_previewable_needs_textures_for_every_finger():
    repo = repository()
    style = repo.create_style("a", StyleSource.MANUAL, actor="t")
    with pytest.raises(StyleError) as info:
        repo.set_previewable(style.id, True)
    assert info.value.code == "NO_NAIL_TEXTURE"
    partial = repo.create_style_with_content("b", StyleSource.MANUAL, StyleContent({"ring": image_bytes()}), actor="t")
    assert not partial.is_previewable
    four_fingers = ("thumb", "index", "middle", "pinky")
    four_and_accent = {f: image_bytes(color=(i, 8, 8, 255)) for i, f in enumerate(four_fingers)}
    accent_only = StyleContent({**four_and_accent, "accent": image_bytes()}, None, ("ring",))
    assert repo.create_style_with_content("d", StyleSource.MANUAL, accent_only, actor="t").is_previewable
    five = {f: image_bytes(color=(i, 9, 9, 255)) for i, f in enumerate(("thumb", "index", "middle", "ring", "pinky"))}
    assert repo.create_style_with_content("c", StyleSource.MANUAL, StyleContent(five), actor="t").is_previewable


def test_lists_filter_by_status_category_tag_and_text():
    repo = repository()
    repo.ensure_category("french", "法式", "French")
    repo.ensure_category("solid", "纯色", "Solid")
    french = repo.create_style_with_content("法式白边", StyleSource.MANUAL, _content(1), actor="t",
                                            category_code="french", tags=["通勤"], name_en="French tip")
    solid = repo.create_style_with_content("裸粉 100%", StyleSource.MANUAL, _content(2), actor="t",
                                           category_code="solid", tags=["约会", "通勤"])
    hidden = repo.create_style("无图", StyleSource.MANUAL, actor="t", category_code="solid")
    _publish(repo, french)
    _publish(repo, hidden)
    codes = lambda styles: {s.style_code for s in styles}  # noqa: E731
    assert codes(repo.list_styles(StyleFilter(status="PUBLISHED"))) == {french.style_code, hidden.style_code}
    assert codes(repo.list_styles(StyleFilter(category_code="solid"))) == {solid.style_code, hidden.style_code}
    assert codes(repo.list_styles(StyleFilter(tag_code="约会"))) == {solid.style_code}
    assert codes(repo.list_styles(StyleFilter(tag_code="通勤"))) == {french.style_code, solid.style_code}
    assert codes(repo.list_styles(StyleFilter(text="白边"))) == {french.style_code}
    assert codes(repo.list_styles(StyleFilter(text="french"))) == {french.style_code}
    assert codes(repo.list_styles(StyleFilter(text=solid.style_code[-4:].lower()))) == {solid.style_code}
    assert codes(repo.list_styles(StyleFilter(text="100%"))) == {solid.style_code}
    assert codes(repo.list_styles(StyleFilter(text="%"))) == {solid.style_code}  # % is literal, not a wildcard
    # Customers see PUBLISHED styles that can be tried on, nothing else.
    assert codes(repo.list_for_customers()) == {french.style_code}
    repo.conn.execute("UPDATE style SET deleted = 1 WHERE id = ?", (french.id,))
    assert repo.list_for_customers() == []
    newest_first = [s.style_code for s in repo.list_styles()]
    assert newest_first == [hidden.style_code, solid.style_code]


def test_renaming_a_category_rewrites_the_denormalised_name():
    repo = repository()
    repo.ensure_category("cat_eye", "猫眼", "Cat eye")
    style = repo.create_style("a", StyleSource.MANUAL, actor="t", category_code="cat_eye")
    assert style.category_name == "猫眼"
    repo.ensure_category("cat_eye", "魔镜猫眼", "Cat eye")
    assert repo.get(style.id).category_name == "魔镜猫眼"
    assert repo.set_category(style.id, None).category_name is None
    with pytest.raises(StyleError):
        repo.create_style("b", StyleSource.MANUAL, actor="t", category_code="missing")


def test_tags_both_ways():
    repo = repository()
    a = repo.create_style("a", StyleSource.MANUAL, actor="t")
    repo.ensure_tag("commute", "通勤", "Commute")
    repo.tag_style(a.id, ["commute", "summer", "commute"])
    assert [t.code for t in repo.tags_of(a.id)] == ["commute", "summer"]
    assert repo.tags_of(a.id)[0].name_zh == "通勤"
    assert [s.id for s in repo.list_styles(StyleFilter(tag_code="summer"))] == [a.id]


def test_list_queries_use_the_indexes():
    repo = repository()
    plan = lambda sql, params: " ".join(r[3] for r in repo.conn.execute("EXPLAIN QUERY PLAN " + sql, params))  # noqa: E731
    from nailmirror_desktop.core.catalog.repository import _list_sql

    sql, params = _list_sql(StyleFilter(status="PUBLISHED", category_code="french"))
    assert "style_list_by_category" in plan(sql, params)
    sql, params = _list_sql(StyleFilter(status="PUBLISHED"))
    assert "style_list_by_status" in plan(sql, params)
    assert "style_tag_relation_by_tag" in plan("SELECT style_id FROM style_tag_relation WHERE tag_id = ?", (1,))
    assert "PRIMARY KEY" in plan("SELECT tag_id FROM style_tag_relation WHERE style_id = ?", (1,))
    assert "style_origin_task_no" in plan("SELECT * FROM style WHERE origin_task_no = ?", ("T1",))


def test_ai_style_is_created_once_per_task():
    repo = repository()
    style, created = repo.create_ai_style("T-1", name="贝壳", content=_content(), actor="worker-1", prompt="贝壳")
    again, created_again = repo.create_ai_style("T-1", name="贝壳", content=_content(), actor="worker-2")
    assert created and not created_again and again.id == style.id
    assert style.source == "AI" and style.status is StyleStatus.DRAFT and style.origin_task_no == "T-1"
    assert repo.conn.execute("SELECT count(*) FROM style").fetchone()[0] == 1
    other, created_other = repo.create_ai_style("T-2", name="贝壳", content=_content(), actor="worker-1")
    assert created_other and other.id != style.id


def test_ai_style_from_two_workers_at_once_is_created_once():
    open_database(database_path()).close()
    results, errors = [], []
    barrier = threading.Barrier(4)

    def worker():
        try:
            repo = open_style_repository(open_database(database_path(), check_same_thread=False), load_catalog=False)
            barrier.wait(timeout=30)
            results.append(repo.create_ai_style("T-race", name="x", content=_content(), actor="w"))
            repo.conn.close()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
            barrier.abort()  # the others must not wait for a worker that will never arrive

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [], [f"{type(e).__name__}: {e}" for e in errors]
    assert len({style.id for style, _ in results}) == 1
    assert sum(created for _, created in results) == 1
    repo = repository()
    assert repo.conn.execute("SELECT count(*) FROM style WHERE origin_task_no = 'T-race'").fetchone()[0] == 1


def test_ai_style_rolls_back_with_the_callers_transaction():
    repo = repository()
    with pytest.raises(RuntimeError), write_transaction(repo.conn):
        repo.create_ai_style("T-3", name="x", content=_content(), actor="w")
        raise RuntimeError("crash before the task result was written")
    assert repo.find_by_origin_task("T-3") is None
    assert repo.conn.execute("SELECT count(*) FROM style_asset").fetchone()[0] == 0
    style, created = repo.create_ai_style("T-3", name="x", content=_content(), actor="w")
    assert created and repo.find_by_origin_task("T-3").id == style.id


def test_a_bad_image_creates_no_style():
    repo = repository()
    with pytest.raises(StyleError) as info:
        repo.create_ai_style("T-4", name="x", content=StyleContent({"nail": b"junk"}), actor="w")
    assert info.value.code == "IMAGE_FORMAT_NOT_ALLOWED"
    assert repo.find_by_origin_task("T-4") is None


def test_style_folder_round_trip(tmp_path):
    folder = make_style_folder(tmp_path / "s", accent=("ring", "thumb"))
    (folder / "index.png").write_bytes(image_bytes(color=(5, 5, 5, 255)))
    read = read_style_folder(folder)
    assert read.name == "奶白贝壳" and read.content.accent_fingers == ("thumb", "ring")
    assert set(read.content.nail_textures) == {"nail", "accent", "index"}
    assert json.loads(read.design_json()) == {"design": {"base": "milky_white"}, "seed": 7}
    (folder / "accent.png").unlink()
    with pytest.raises(StyleError) as info:
        read_style_folder(folder)  # accent_fingers without accent.png: the try-on loader refuses it too
    assert info.value.code == "STYLE_FOLDER_INVALID"
    (tmp_path / "empty").mkdir()
    for bad in (tmp_path / "empty", tmp_path / "missing"):
        with pytest.raises(StyleError) as info:
            read_style_folder(bad)
        assert info.value.code == "STYLE_FOLDER_INVALID"


def test_a_deleted_style_is_hidden_but_its_code_and_history_stay():
    repo = repository()
    style = _publish(repo, repo.create_style_with_content("a", StyleSource.MANUAL, _content(), actor="t"))
    repo.mark_deleted(style.id, actor="sync", reason="tombstone")
    assert repo.list_styles() == [] and repo.list_for_customers() == []
    with pytest.raises(StyleError):
        repo.get_by_code(style.style_code)
    with pytest.raises(StyleError):
        repo.mark_deleted(style.id, actor="sync")
    assert repo.audit_trail(style.id)[-1].action == "DELETE"
    again = repo.create_style("b", StyleSource.MANUAL, actor="t", preferred_code=style.style_code)
    assert again.style_code != style.style_code
