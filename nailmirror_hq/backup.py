"""Backup and restore, the same on SQLite and PostgreSQL: a logical dump HQ can read back on either engine.

    DIR/manifest.json        {"format": "nailmirror-hq-backup", "version": 1, "epoch": …, "tables": {name: rows}}
    DIR/tables/<name>.jsonl  one JSON object a row, read in one consistent transaction
    DIR/blobs/ab/cd/<sha256> every blob the database names

A restore replaces everything in one transaction and then gives HQ a **new epoch**: every kiosk's cursor from
before is refused with 410 epoch_changed, so each one resyncs from a snapshot instead of trusting a history
that may have gone back in time. Blobs are put (verified by hash) before the rows that name them.

HQ's signing key (keys.py) is a row like any other, sealed: the backup carries it, and HQ's config file (hq.toml,
which holds the key that unseals it) is kept apart from the backups. A restore checks that the backup's key opens
with this HQ's config file before it changes anything; a backup written before the key existed keeps this HQ's
key, and the grants it brings back are signed with it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, delete, select

from nailmirror_hq import audit, clock, db, keys, meta
from nailmirror_hq.blobs import BlobStore, FileBlobStore
from nailmirror_hq.errors import HQError
from nailmirror_hq.schema import blob, hq_signing_key, metadata
from nailmirror_protocol.errors import ErrorCode

FORMAT = "nailmirror-hq-backup"
VERSION = 1


def backup(engine: Engine, blobs: BlobStore, target: Path) -> dict[str, Any]:
    target = Path(target)
    if target.exists() and any(target.iterdir()):
        raise HQError(400, ErrorCode.BAD_REQUEST, f"{target} is not empty")
    (target / "tables").mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    with db.read(engine) as conn:
        epoch = meta.epoch(conn)
        for table in metadata.sorted_tables:
            with open(target / "tables" / f"{table.name}.jsonl", "w", encoding="utf-8") as out:
                n = 0
                for row in conn.execute(select(table)):
                    out.write(json.dumps(dict(row._mapping), ensure_ascii=False) + "\n")
                    n += 1
            counts[table.name] = n
        hashes = list(conn.execute(select(blob.c.sha256)).scalars())
    copy = FileBlobStore(target / "blobs")
    for sha256 in hashes:
        path = copy.path(sha256)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as out:
            for chunk in blobs.read_chunks(sha256):
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
    manifest = {"format": FORMAT, "version": VERSION, "created_at": clock.now_text(), "epoch": epoch,
                "tables": counts, "blobs": len(hashes)}
    (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


# Tables later migrations added: a backup written before them restores with them empty (0003: chosen channels,
# where empty means every channel, as all publishing was then; rotated tokens). Any other missing table is a
# damaged backup and is refused.
ADDED_AFTER_V1 = frozenset({"style_channel", "retired_token", "credit_grant", "credit_ledger_entry",
                            "hq_signing_key", "channel_canary", "rollout", "capture", "capture_withdrawal",
                            "capture_dataset", "label_version", "label_dataset"})


def _read_rows(source: Path, manifest: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    rows: dict[str, list[dict[str, Any]]] = {}
    for table in metadata.sorted_tables:
        path = source / "tables" / f"{table.name}.jsonl"
        if table.name in ADDED_AFTER_V1 and table.name not in manifest["tables"]:
            rows[table.name] = []
            continue
        if not path.is_file():
            raise HQError(400, ErrorCode.BAD_REQUEST, f"{source}: {path.name} is missing")
        rows[table.name] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        if len(rows[table.name]) != manifest["tables"].get(table.name):
            raise HQError(400, ErrorCode.BAD_REQUEST, f"{source}: {path.name} is incomplete")
    return rows


def _check_keys(source: Path, rows: list[dict[str, Any]], kek: bytes | None) -> None:
    """The backup's signing key must open with this HQ's config file, or the restored HQ could not start."""
    if kek is None:
        return
    for row in rows:
        try:
            keys.unseal(row["key_id"], row["public_key"], row["private_sealed"], kek)
        except keys.SigningKeyUnavailable:
            raise HQError(400, ErrorCode.BAD_REQUEST, f"{source}: its signing key does not open with this HQ's "
                                                      "config file (hq.toml): put back the one kept with HQ's "
                                                      "backups, then restore") from None


def restore(engine: Engine, blobs: BlobStore, source: Path, actor: str, kek: bytes | None = None) -> dict[str, Any]:
    """Replace HQ's state by the backup's. `kek` (the config file's key): the backup's signing key is checked
    against it first, and the grants restored unsigned are signed."""
    source = Path(source)
    try:
        manifest = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise HQError(400, ErrorCode.BAD_REQUEST, f"{source} is not an HQ backup (no manifest.json)") from None
    if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise HQError(400, ErrorCode.BAD_REQUEST, f"{source}: unknown backup format")
    copy = FileBlobStore(source / "blobs")
    rows = _read_rows(source, manifest)
    _check_keys(source, rows["hq_signing_key"], kek)
    # A backup from before the signing key existed must not take this HQ's key away.
    keep = {hq_signing_key.name} if not rows["hq_signing_key"] else set()
    for item in rows["blob"]:  # blobs first: a row never names a blob the store lacks
        if not blobs.has(item["sha256"]):
            blobs.put_verified(item["sha256"], copy.path(item["sha256"]))
    epoch = meta.new_epoch()
    with db.write(engine) as conn:
        for table in reversed(metadata.sorted_tables):
            if table.name not in keep:
                conn.execute(delete(table))
        for table in metadata.sorted_tables:
            if rows[table.name]:
                conn.execute(table.insert(), rows[table.name])
        meta.put(conn, "epoch", epoch)
        if kek is not None:
            keys.sign_unsigned_grants(conn, keys.ensure_key(conn, kek, clock.now_text()))
        if engine.dialect.name == "postgresql":  # id sequences must move past the restored ids
            for name in ("audit_log", "rollout"):
                conn.exec_driver_sql(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                                     f"COALESCE((SELECT MAX(id) FROM {name}), 1))")
        audit.record(conn, actor, "RESTORE", "hq", epoch, source=str(source), from_epoch=manifest.get("epoch"))
    return {"epoch": epoch, "from_epoch": manifest.get("epoch"), "tables": manifest["tables"]}
