"""Backup and restore keep what migration 0003 added (chosen channels), and a backup written before it was
added still restores (its tables start empty). SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

from nailmirror_hq import backup, catalog, db, stores
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import style_folder


def _setup(hq: HQ, tmp_path: Path) -> str:
    with db.write(hq.engine) as conn:
        stores.add_store(conn, "N-1", "north", "test")
    row = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, salt=1), actor="test")
    with db.write(hq.engine) as conn:
        catalog.set_status(conn, row.id, "PUBLISHED", "test", channels=["north"])
    return row.id


def test_chosen_channels_survive_a_backup_and_restore(hq_local_blobs: HQ, tmp_path: Path) -> None:
    hq = hq_local_blobs
    style_id = _setup(hq, tmp_path)
    backup.backup(hq.engine, hq.blobs, tmp_path / "bk")
    with db.write(hq.engine) as conn:
        catalog.set_status(conn, style_id, "PUBLISHED", "test", channels=[])
    backup.restore(hq.engine, hq.blobs, tmp_path / "bk", "test")
    with db.read(hq.engine) as conn:
        assert catalog.chosen_channels(conn, style_id) == ["north"]


def test_a_backup_from_before_migration_0003_restores(hq_local_blobs: HQ, tmp_path: Path) -> None:
    hq = hq_local_blobs
    style_id = _setup(hq, tmp_path)
    target = tmp_path / "bk"
    backup.backup(hq.engine, hq.blobs, target)
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    for name in ("style_channel", "retired_token"):  # what an older HQ wrote: no such tables
        del manifest["tables"][name]
        (target / "tables" / f"{name}.jsonl").unlink()
    (target / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    backup.restore(hq.engine, hq.blobs, target, "test")
    with db.read(hq.engine) as conn:
        row = catalog.get_style(conn, style_id)
        assert row is not None and row.status == "PUBLISHED" and catalog.chosen_channels(conn, style_id) == []


def test_canary_sets_and_rollouts_survive_a_restore_and_new_ones_follow(hq_local_blobs: HQ, tmp_path: Path) -> None:
    """Migration 0012's tables are in the backup; after a restore (PostgreSQL: the id sequence moved past the
    restored ids) the next publish records its rollout; a backup from before 0012 restores with none."""
    from nailmirror_hq import rollouts

    hq = hq_local_blobs
    style_id = _setup(hq, tmp_path)
    with db.write(hq.engine) as conn:
        store, _ = stores.add_store(conn, "N-2", "north", "test")
        rollouts.add_canary(conn, "north", store.id, "test")
        catalog.set_status(conn, style_id, "WITHDRAWN", "test")
        catalog.set_status(conn, style_id, "PUBLISHED", "test")  # held for north's canary store
    backup.backup(hq.engine, hq.blobs, tmp_path / "bk")
    if hq.engine.dialect.name == "postgresql":  # restoring into a new database: its sequence starts at 1
        with db.write(hq.engine) as conn:
            conn.exec_driver_sql("SELECT setval(pg_get_serial_sequence('rollout', 'id'), 1, false)")
    backup.restore(hq.engine, hq.blobs, tmp_path / "bk", "test")
    with db.write(hq.engine) as conn:
        assert rollouts.canary_stores(conn, "north") == [store.id]
        before = rollouts.list_rollouts(conn, subject_id=style_id)
        assert [r.stage for r in before] == ["CANARY", "WIDENED"]
        catalog.set_status(conn, style_id, "WITHDRAWN", "test")
        catalog.set_status(conn, style_id, "PUBLISHED", "test")
        assert rollouts.list_rollouts(conn, subject_id=style_id)[0].id > before[0].id

    target = tmp_path / "bk"
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    for name in ("channel_canary", "rollout"):  # what HQ wrote before migration 0012
        del manifest["tables"][name]
        (target / "tables" / f"{name}.jsonl").unlink()
    (target / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    backup.restore(hq.engine, hq.blobs, target, "test")
    with db.read(hq.engine) as conn:
        assert rollouts.canary_sets(conn) == {} and rollouts.list_rollouts(conn) == []
