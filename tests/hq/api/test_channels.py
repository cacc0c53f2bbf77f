"""Publishing to chosen channels, and the 410 resets a kiosk gets when its cursor belongs to another feed
(its store moved: channel_changed; HQ's feed format went up: protocol_upgraded). SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from nailmirror_hq import catalog, db, drafts, meta, stores
from nailmirror_hq.errors import HQError
from nailmirror_hq.schema import store_token
from nailmirror_hq.service import HQ
from nailmirror_protocol import FEED_FORMAT
from tests.support.hq_fixtures import draft_body, new_draft_id, new_kiosk, style_folder


def _import(hq: HQ, tmp_path: Path, salt: int) -> str:
    return catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, salt=salt), actor="test").id


def _publish(hq: HQ, style_id: str, channels: list[str] | None) -> catalog.StyleRow:
    with db.write(hq.engine) as conn:
        return catalog.set_status(conn, style_id, "PUBLISHED", "test", channels=channels)


def _start(hq: HQ) -> str:
    with db.read(hq.engine) as conn:
        return f"{meta.epoch(conn)}.0"


def _feed(client: TestClient, headers: dict[str, str], since: str) -> dict[str, Any]:
    answer = client.get("/v1/catalog/changes", params={"since": since}, headers=headers)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _live_ids(client: TestClient, headers: dict[str, str]) -> set[str]:
    answer = client.get("/v1/catalog/snapshot", headers=headers)
    assert answer.status_code == 200, answer.text
    return {s["id"] for s in answer.json()["styles"]}


def _styles_in(page: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["op"], c["id"]) for c in page["changes"] if c["type"] == "style"]


def test_a_style_published_to_one_channel_reaches_only_that_channels_stores(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    _, north = new_kiosk(hq, client, "N-1", "north")
    _, south = new_kiosk(hq, client, "S-1", "south")
    style_id = _import(hq, tmp_path, 1)
    start = _start(hq)
    _publish(hq, style_id, ["north"])
    assert ("upsert", style_id) in _styles_in(_feed(client, north, start))
    assert _styles_in(_feed(client, south, start)) == []
    assert style_id in _live_ids(client, north) and style_id not in _live_ids(client, south)

    moved = _publish(hq, style_id, ["south"])  # the north stores drop it: a delete with a newer version
    north_page = _feed(client, north, start)
    assert north_page["changes"][-1]["op"] == "delete" and north_page["changes"][-1]["version"] == moved.version
    assert style_id not in _live_ids(client, north) and style_id in _live_ids(client, south)

    _publish(hq, style_id, [])  # every channel again
    assert style_id in _live_ids(client, north) and style_id in _live_ids(client, south)
    with db.read(hq.engine) as conn:
        assert catalog.chosen_channels(conn, style_id) == []


def test_a_new_channel_gets_chain_wide_styles_but_not_another_channels(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    new_kiosk(hq, client, "N-1", "north")
    everywhere, north_only = _import(hq, tmp_path, 1), _import(hq, tmp_path, 2)
    _publish(hq, everywhere, None)
    _publish(hq, north_only, ["north"])
    _, west = new_kiosk(hq, client, "W-1", "west")  # the channel is created now
    assert everywhere in _live_ids(client, west) and north_only not in _live_ids(client, west)


def test_publishing_to_an_unknown_channel_is_refused_and_changes_nothing(hq: HQ, tmp_path: Path) -> None:
    style_id = _import(hq, tmp_path, 1)
    with pytest.raises(HQError, match="nrth") as refused:
        _publish(hq, style_id, ["nrth"])
    assert refused.value.status == 400
    with db.read(hq.engine) as conn:
        row = catalog.get_style(conn, style_id)
        assert row is not None and row.status == "UNPUBLISHED" and catalog.chosen_channels(conn, style_id) == []


def test_a_store_moved_to_another_channel_gets_410_channel_changed_then_resyncs(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    store_id, headers = new_kiosk(hq, client, "N-1", "north")
    new_kiosk(hq, client, "S-1", "south")
    north_style, south_style = _import(hq, tmp_path, 1), _import(hq, tmp_path, 2)
    _publish(hq, north_style, ["north"])
    _publish(hq, south_style, ["south"])
    snap = client.get("/v1/catalog/snapshot", headers=headers)
    cursor, etag = snap.json()["cursor"], snap.headers["etag"]
    with db.write(hq.engine) as conn:
        stores.move_store(conn, store_id, "south", "test")

    answer = client.get("/v1/catalog/changes", params={"since": cursor}, headers=headers)
    assert answer.status_code == 410 and answer.json()["details"]["reason"] == "channel_changed", answer.text
    # Its old ETag never earns a 304 from the new channel, even where the two heads have the same seq.
    fresh = client.get("/v1/catalog/snapshot", headers={**headers, "If-None-Match": etag})
    assert fresh.status_code == 200
    assert {s["id"] for s in fresh.json()["styles"]} == {south_style}
    after = client.get("/v1/catalog/changes", params={"since": fresh.json()["cursor"]}, headers=headers)
    assert after.status_code == 200 and after.json()["changes"] == []


def test_a_cursor_from_an_older_feed_format_gets_410_protocol_upgraded(hq: HQ, client: TestClient) -> None:
    _, headers = new_kiosk(hq, client)
    cursor = client.get("/v1/catalog/snapshot", headers=headers).json()["cursor"]
    assert client.get("/v1/catalog/changes", params={"since": cursor}, headers=headers).status_code == 200
    with db.write(hq.engine) as conn:  # what a kiosk that last synced with an older HQ looks like
        conn.execute(update(store_token).values(feed_format=FEED_FORMAT - 1))
    answer = client.get("/v1/catalog/changes", params={"since": cursor}, headers=headers)
    assert answer.status_code == 410 and answer.json()["details"]["reason"] == "protocol_upgraded"
    again = client.get("/v1/catalog/snapshot", headers=headers)  # the snapshot moves it to the new format
    ok = client.get("/v1/catalog/changes", params={"since": again.json()["cursor"]}, headers=headers)
    assert ok.status_code == 200


def test_an_approved_draft_can_be_published_to_chosen_channels(hq: HQ, client: TestClient) -> None:
    _, north = new_kiosk(hq, client, "N-1", "north")
    _, south = new_kiosk(hq, client, "S-1", "south")
    draft_id = new_draft_id()
    assert client.put(f"/v1/drafts/{draft_id}/revisions/1", headers=north,
                      json=draft_body(client, north)).status_code == 201
    with db.write(hq.engine) as conn:
        drafts.approve(conn, draft_id, "reviewer", channels=["north"])
    assert draft_id in _live_ids(client, north) and draft_id not in _live_ids(client, south)
