"""The fleet at HQ (issue #25 §7, §8): reports old and new kept, the problems and filters of the fleet page,
operator requests handed out by hello and closed by the kiosk's answer, names, one kiosk revoked, a PC replaced.
On SQLite and PostgreSQL (+ S3): every test here writes HQ's tables."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from nailmirror_hq import db, fleet, meta, rollouts
from nailmirror_hq.schema import channel, store_token
from nailmirror_hq.service import HQ
from nailmirror_protocol import paths
from tests.support.hq_fixtures import add_store, enroll

GIB = 2**30


def report(client: TestClient, headers: dict[str, str], body: dict[str, Any]) -> Any:
    answer = client.put("/v1/kiosks/me/sync-report", headers=headers, json={"nm": 1, **body})
    assert answer.status_code == 200, answer.text
    return answer.json()


def another_code(hq: HQ, store_id: str) -> str:
    with db.write(hq.engine) as conn:
        return fleet.stores.new_enroll_code(conn, store_id, "test")


def row(hq: HQ, name: str) -> fleet.FleetKiosk:
    with db.read(hq.engine) as conn:
        return next(k for k in fleet.fleet(conn) if k.name == name)


def test_old_and_new_reports_are_kept_and_the_fleet_shows_their_problems(hq: HQ, client: TestClient) -> None:
    store_id, code = add_store(hq)
    old = enroll(client, code, "old one")
    new = enroll(client, another_code(hq, store_id), "new one")
    assert client.get("/v1/hello", headers=old).status_code == 200
    assert client.get("/v1/hello", headers=new).status_code == 200
    report(client, old, {"failed_downloads": []})  # a kiosk from before the fleet fields
    with db.read(hq.engine) as conn:
        epoch = meta.epoch(conn)
    with db.write(hq.engine) as conn:
        conn.execute(update(channel).where(channel.c.code == "all").values(head_seq=40))
    report(client, new, {"app_version": "0.2.0", "model_version": "2ae635817291", "sync_state": "OK",
                         "cursor": f"{epoch}.35", "dead_letters": {"BLOB_FETCH": 2}, "disk_free_bytes": GIB // 2,
                         "camera_state": "LOST", "fps": 0.0, "future_field": {"x": 1},
                         "failed_downloads": [{"style_code": "HQ-1", "sha256": "ab" * 32, "attempts": 2,
                                               "last_error": "hash_mismatch"}]})
    bad = client.put("/v1/kiosks/me/sync-report", headers=new, json={"nm": 1, "fps": "fast"})
    assert bad.status_code == 400 and "fps" in bad.json()["message"]

    plain, worst = row(hq, "old one"), row(hq, "new one")
    assert plain.problems == () and plain.app_version == "0.1.0" and plain.model_version is None
    assert worst.app_version == "0.2.0" and worst.model_version == "2ae635817291" and worst.cursor_lag == 5
    assert worst.problems == ("failed_downloads", "dead_letters", "disk_low", "camera")
    with db.write(hq.engine) as conn:  # the old one has not synced for a day and a half
        conn.execute(update(store_token).where(store_token.c.kiosk_name == "old one").values(
            last_seen_at=(datetime.now(UTC) - timedelta(hours=36)).strftime("%Y-%m-%dT%H:%M:%S.000Z")))
    with db.read(hq.engine) as conn:
        rows = fleet.fleet(conn)
    assert [k.name for k in fleet.select_rows(rows, "not_seen")] == ["old one"]
    assert [k.name for k in fleet.select_rows(rows, "failed_downloads")] == ["new one"]
    assert {k.name for k in fleet.select_rows(rows, "problems")} == {"old one", "new one"}
    assert [(k.name, p) for k, p in fleet.alerts(rows)] == [
        ("old one", "not_seen"), ("new one", "failed_downloads"), ("new one", "dead_letters"),
        ("new one", "disk_low"), ("new one", "camera")]


def test_a_canary_kiosks_lag_is_counted_on_the_canary_feed_it_pages(hq: HQ, client: TestClient) -> None:
    store_id, code = add_store(hq)
    headers = enroll(client, code, "canary one")
    with db.write(hq.engine) as conn:
        rollouts.add_canary(conn, "all", store_id, "hq:li")
    answer = client.get(paths.CATALOG_SNAPSHOT, headers=headers)  # the kiosk now pages "~all"
    assert answer.status_code == 200, answer.text
    with db.read(hq.engine) as conn:
        epoch = meta.epoch(conn)
    with db.write(hq.engine) as conn:  # the channel far ahead of its canary feed's own numbering
        conn.execute(update(channel).where(channel.c.code == "all").values(head_seq=40))
        conn.execute(update(channel).where(channel.c.code == "~all").values(head_seq=12))
    report(client, headers, {"cursor": f"{epoch}.10", "sync_state": "OK"})
    assert row(hq, "canary one").cursor_lag == 2


def test_a_request_goes_out_in_hello_until_the_kiosks_answer_closes_it(hq: HQ, client: TestClient) -> None:
    _store_id, code = add_store(hq)
    headers = enroll(client, code, "front desk")
    with db.write(hq.engine) as conn:
        asked = fleet.ask(conn, "front desk", "replay_dead_letters", "hq:li")
        again = fleet.ask(conn, "front desk", "replay_dead_letters", "hq:li")  # before the kiosk synced: one
    assert again.id == asked.id
    for _ in range(2):  # sent until answered
        hello = client.get("/v1/hello", headers=headers).json()
        assert hello["fleet_requests"] == [{"id": asked.id, "kind": "replay_dead_letters"}]
        assert hello["kiosk_name"] == "front desk"
    done = {"id": asked.id, "kind": "replay_dead_letters", "outcome": "DONE", "done_at": "2026-12-04T10:00:00.000Z",
            "detail": "2 replayed, 1 left for staff (generation or outcome unknown)"}
    stranger = {**done, "id": "fr_not_this_kiosks"}
    report(client, headers, {"fleet_results": [done, stranger]})
    assert client.get("/v1/hello", headers=headers).json()["fleet_requests"] == []
    (request,) = row(hq, "front desk").requests
    assert (request.outcome, request.detail, request.sent_at is not None) == ("DONE", done["detail"], True)
    report(client, headers, {"fleet_results": [{**done, "outcome": "FAILED"}]})  # an answer counts once
    assert row(hq, "front desk").requests[0].outcome == "DONE"


def test_kiosks_enrolled_before_names_get_store_n_at_their_next_sync(hq: HQ, client: TestClient) -> None:
    store_id, code = add_store(hq)
    first = enroll(client, code, "PC-7F3A")
    second = enroll(client, another_code(hq, store_id), "")
    with db.write(hq.engine) as conn:
        conn.execute(update(store_token).where(store_token.c.kiosk_name == "PC-7F3A").values(named_at=None))
    # Enrolled without a name: SH-0012-1 at once; the one from before names: the next free number at its hello.
    assert client.get("/v1/hello", headers=second).json()["kiosk_name"] == "SH-0012-1"
    assert client.get("/v1/hello", headers=first).json()["kiosk_name"] == "SH-0012-2"
    with db.write(hq.engine) as conn:
        fleet.rename(conn, "SH-0012-2", "Window", "hq:li")
    assert client.get("/v1/hello", headers=first).json()["kiosk_name"] == "Window"
    with db.write(hq.engine) as conn:
        try:
            fleet.rename(conn, "Window", "SH-0012-1", "hq:li")
        except fleet.HQError as exc:
            assert exc.status == 409 and "already has" in exc.message
        else:
            raise AssertionError("a name taken in the store was given twice")


def test_one_kiosk_revoked_and_a_pc_replaced_in_one_step(hq: HQ, client: TestClient) -> None:
    store_id, code = add_store(hq)
    stolen = enroll(client, code, "stolen")
    old = enroll(client, another_code(hq, store_id), "old PC")
    other = enroll(client, another_code(hq, store_id), "other")
    with db.write(hq.engine) as conn:
        fleet.revoke(conn, "stolen", "hq:li")
    answer = client.get("/v1/hello", headers=stolen)
    assert answer.status_code == 401 and answer.json()["error"] == "token_revoked"
    assert client.get("/v1/hello", headers=other).status_code == 200
    with db.write(hq.engine) as conn:
        replaced_id, new_code = fleet.replacement_code(conn, "old PC", "hq:li")
    assert client.get("/v1/hello", headers=old).status_code == 200  # until the new PC is in
    new = enroll(client, new_code, "new PC")
    assert client.get("/v1/hello", headers=new).status_code == 200
    assert client.get("/v1/hello", headers=old).json()["error"] == "token_revoked"
    assert client.get("/v1/hello", headers=other).status_code == 200
    assert row(hq, "old PC").kiosk_id == replaced_id and row(hq, "old PC").problems == ("revoked",)
    with db.write(hq.engine) as conn:
        try:
            fleet.ask(conn, "old PC", "resync", "hq:li")
        except fleet.HQError as exc:
            assert exc.status == 409
        else:
            raise AssertionError("a revoked kiosk took a request")


@pytest.mark.slow  # alembic's full chain: about 2 s
def test_migration_0010_leaves_earlier_kiosks_unnamed_until_their_next_hello(tmp_path: Path) -> None:
    """A kiosk enrolled before 0010 keeps its row as it was (its token works); its next hello names it."""
    from alembic import command
    from sqlalchemy import create_engine, text

    engine = create_engine(f"sqlite:///{tmp_path / 'hq.sqlite3'}")
    config = db.alembic_config(engine)
    command.upgrade(config, "0008_signed_grants")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO channel (code, created_at) VALUES ('all', 'x')"))
        conn.execute(text("INSERT INTO store (id, name, channel, status, inbox_seq, created_at) VALUES "
                          "('st_A', 'A', 'all', 'ACTIVE', 0, '2026-01-01T00:00:00.000Z')"))
        conn.execute(text("INSERT INTO store_token (token_sha256, store_id, kiosk_id, kiosk_name, app_version, "
                          "created_at) VALUES ('t', 'st_A', 'k_old', 'DESKTOP-7F3A', '0.1', 'x')"))
    command.upgrade(config, "head")
    with engine.begin() as conn:
        assert conn.execute(text("SELECT named_at FROM store_token")).scalar_one() is None
        assert fleet.name_for_hello(conn, "k_old") == "A-1"
        assert fleet.name_for_hello(conn, "k_old") == "A-1"  # named once
        assert conn.execute(text("SELECT kiosk_name FROM store_token")).scalar_one() == "A-1"
    command.downgrade(config, "0008_signed_grants")  # the revision undoes itself
    engine.dispose()
