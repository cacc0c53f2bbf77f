"""Categories and tags managed at HQ: a new one reaches every channel's feed and snapshot before any style uses
it, a rename is a newer version, a new channel starts with all of them. SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq import catalog, db
from nailmirror_hq.errors import HQError
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import new_kiosk


def _add(hq: HQ, kind: str, code: str, zh: str, en: str = "", order: int = 0) -> None:
    with db.write(hq.engine) as conn:
        catalog.add_reference(conn, kind, code, zh, en, "test", order)


def test_a_new_category_and_tag_reach_every_channel_and_a_rename_is_a_newer_version(
        hq: HQ, client: TestClient) -> None:
    _, north = new_kiosk(hq, client, "N-1", "north")
    _, south = new_kiosk(hq, client, "S-1", "south")
    cursor = client.get("/v1/catalog/snapshot", headers=north).json()["cursor"]
    _add(hq, "category", "french", "法式", "French", 3)
    _add(hq, "tag", "commute", "通勤", "Office")
    for headers in (north, south):
        snap = client.get("/v1/catalog/snapshot", headers=headers).json()
        assert snap["categories"] == [{"code": "french", "name_zh": "法式", "name_en": "French", "sort_order": 3}]
        assert snap["tags"] == [{"code": "commute", "name_zh": "通勤", "name_en": "Office"}]
    with db.write(hq.engine) as conn:
        renamed = catalog.rename_reference(conn, "category", "french", "test", name_en="French tips")
    assert renamed["version"] == 2 and renamed["name_zh"] == "法式"
    page = client.get("/v1/catalog/changes", params={"since": cursor}, headers=north).json()
    french = [(c["version"], c["category"]["name_en"]) for c in page["changes"] if c["type"] == "category"]
    assert french == [(1, "French"), (2, "French tips")]
    _, west = new_kiosk(hq, client, "W-1", "west")  # a channel created later starts with all of them
    snap = client.get("/v1/catalog/snapshot", headers=west).json()
    assert [c["name_en"] for c in snap["categories"]] == ["French tips"] and len(snap["tags"]) == 1


def test_bad_codes_duplicates_and_unknown_renames_are_refused(hq: HQ) -> None:
    _add(hq, "tag", "shell", "贝壳")
    for code, zh in (("Bad Code", "名"), ("ok", " "), ("shell", "贝壳2")):
        with pytest.raises(HQError):
            _add(hq, "tag", code, zh)
    with db.write(hq.engine) as conn, pytest.raises(HQError) as missing:
        catalog.rename_reference(conn, "category", "nope", "test", name_zh="无")
    assert missing.value.status == 404
    with db.read(hq.engine) as conn:
        assert [t["code"] for t in catalog.list_references(conn, "tag")] == ["shell"]
        assert catalog.list_references(conn, "tag")[0]["name_zh"] == "贝壳"
