"""A store's time zone at HQ (issue #25 §11): migration 0011 on both engines, set and checked with zoneinfo, read
by `stores.store_time_zone`, sent in hello, and set from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from nailmirror_hq import db, stores
from nailmirror_hq.api.app import create_app
from nailmirror_hq.errors import HQError
from nailmirror_hq.service import HQ
from nailmirror_protocol import paths, wire
from tests.support.hq_cli import run_hq, run_hq_json


@pytest.mark.parametrize("engine_kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def test_migration_0011_gives_every_existing_store_the_chain_s_zone(engine_kind: str, tmp_path: Path,
                                                                     request: pytest.FixtureRequest) -> None:
    from alembic import command

    url = (request.getfixturevalue("pg_cluster").new_database() if engine_kind == "postgresql"
           else f"sqlite:///{tmp_path / 'hq.sqlite3'}")
    engine = db.make_engine(url)
    try:
        config = db.alembic_config(engine)
        command.upgrade(config, "0008_signed_grants")
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO channel (code, created_at) VALUES ('all', 'x')"))
            conn.execute(text("INSERT INTO store (id, name, channel, status, inbox_seq, created_at) VALUES "
                              "('st_A', 'A', 'all', 'ACTIVE', 0, '2026-01-01T00:00:00.000Z')"))
        db.migrate(engine)
        assert db.schema_revision(engine) == db.HEAD_REVISION
        with db.read(engine) as conn:
            assert stores.store_time_zone(conn, "st_A") == "Asia/Shanghai"
        with db.write(engine) as conn:
            stores.set_time_zone(conn, "st_A", "Asia/Urumqi", "test")
        with db.read(engine) as conn:
            assert stores.store_time_zone(conn, "st_A") == "Asia/Urumqi"
    finally:
        engine.dispose()


def test_a_zone_is_checked_with_zoneinfo_and_audited(hq_local_blobs: HQ) -> None:
    hq = hq_local_blobs
    with db.write(hq.engine) as conn:
        store, _ = stores.add_store(conn, "SH-0012", "all", "test")
    assert store.time_zone == "Asia/Shanghai"
    for bad in ("Mars/Olympus", "../../etc/passwd", "", "/etc/localtime", "x" * 80):
        with pytest.raises(HQError, match="not a time zone"), db.write(hq.engine) as conn:
            stores.set_time_zone(conn, store.id, bad, "test")
    with pytest.raises(HQError, match="store st_NOPE"), db.write(hq.engine) as conn:
        stores.set_time_zone(conn, "st_NOPE", "Europe/Paris", "test")
    with db.write(hq.engine) as conn:
        stores.set_time_zone(conn, store.id, " Europe/Paris ", "hq:reviewer-a")
    with db.read(hq.engine) as conn:
        assert stores.store_time_zone(conn, store.id) == "Europe/Paris"
        assert [s.time_zone for s in stores.list_stores(conn)] == ["Europe/Paris"]
        audited = conn.execute(text("SELECT actor, detail FROM audit_log WHERE action = 'STORE_TIME_ZONE'")).one()
    assert audited.actor == "hq:reviewer-a" and "Asia/Shanghai" in audited.detail  # what it was, too


def test_hello_sends_the_store_s_zone(hq_sqlite: HQ) -> None:
    with db.write(hq_sqlite.engine) as conn:
        store, code = stores.add_store(conn, "SH-0012", "all", "test")
    with TestClient(create_app(hq_sqlite)) as client:
        token = client.post(paths.ENROLL, json={"nm": 1, "code": code}).json()["token"]
        hello = client.get(paths.HELLO, headers={"Authorization": f"Bearer {token}"}).json()
        assert wire.read_hello(hello)["store_time_zone"] == "Asia/Shanghai"
        with db.write(hq_sqlite.engine) as conn:
            stores.set_time_zone(conn, store.id, "America/Port-au-Prince", "test")
        hello = client.get(paths.HELLO, headers={"Authorization": f"Bearer {token}"}).json()
        assert wire.read_hello(hello)["store_time_zone"] == "America/Port-au-Prince"


def test_stores_set_time_zone_from_the_command_line(tmp_path: Path) -> None:
    env = {"NAILMIRROR_HQ_HOME": str(tmp_path / "hq"), "NAILMIRROR_HQ_STARTER_CATALOG": ""}
    store_id = run_hq_json(env, "stores", "add", "SH-0012")["store_id"]
    assert run_hq_json(env, "stores", "set-time-zone", store_id, "Asia/Tokyo") == {
        "store_id": store_id, "time_zone": "Asia/Tokyo"}
    assert run_hq_json(env, "stores", "list")[0]["time_zone"] == "Asia/Tokyo"
    refused = run_hq(env, "stores", "set-time-zone", store_id, "Asia/Atlantis")
    assert refused.returncode == 1 and "not a time zone" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr


def test_a_backup_from_before_0011_restores_with_the_chain_s_zone(hq_sqlite: HQ, tmp_path: Path) -> None:
    """Backups carry the zone like any column; one written before the column existed restores with the default."""
    import json

    from nailmirror_hq import backup

    with db.write(hq_sqlite.engine) as conn:
        store, _ = stores.add_store(conn, "SH-0012", "all", "test")
        stores.set_time_zone(conn, store.id, "Asia/Urumqi", "test")
    backup.backup(hq_sqlite.engine, hq_sqlite.blobs, tmp_path / "new")
    backup.restore(hq_sqlite.engine, hq_sqlite.blobs, tmp_path / "new", "test", kek=hq_sqlite.kek)
    with db.read(hq_sqlite.engine) as conn:
        assert stores.store_time_zone(conn, store.id) == "Asia/Urumqi"
    backup.backup(hq_sqlite.engine, hq_sqlite.blobs, tmp_path / "old")
    rows = tmp_path / "old" / "tables" / "store.jsonl"
    old = [{k: v for k, v in json.loads(line).items() if k != "time_zone"} for line in rows.read_text().splitlines()]
    rows.write_text("".join(json.dumps(row) + "\n" for row in old))
    backup.restore(hq_sqlite.engine, hq_sqlite.blobs, tmp_path / "old", "test", kek=hq_sqlite.kek)
    with db.read(hq_sqlite.engine) as conn:
        assert stores.store_time_zone(conn, store.id) == "Asia/Shanghai"
