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
