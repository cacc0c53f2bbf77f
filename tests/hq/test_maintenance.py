"""Scheduled housekeeping on SQLite and PostgreSQL (+ S3): compaction below the retention horizon, and the
clean-up of blobs nothing names once they are past the grace period."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from nailmirror_hq import catalog, clock, db, feed, maintenance, meta
from nailmirror_hq.schema import blob, catalog_change
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import draft_body, new_draft_id, new_kiosk, png, style_folder, upload

OLD = clock.now_text(-timedelta(days=400))


def _age_feed(hq: HQ, up_to_seq: int) -> None:
    with db.write(hq.engine) as conn:
        conn.execute(update(catalog_change).where(catalog_change.c.seq <= up_to_seq).values(created_at=OLD))


def _age_blobs(hq: HQ, hashes: list[str]) -> None:
    with db.write(hq.engine) as conn:
        conn.execute(update(blob).where(blob.c.sha256.in_(hashes)).values(created_at=OLD))


def test_compaction_drops_only_superseded_changes_older_than_the_horizon(hq: HQ, client: TestClient) -> None:
    _, headers = new_kiosk(hq, client)
    with db.write(hq.engine) as conn:
        base = feed.head(conn, "all").head_seq  # type: ignore[union-attr]
        for version in (1, 2, 3):
            feed.append(conn, "all", "tag", "upsert", "gloss", version, {"code": "gloss", "v": version})
        feed.append(conn, "all", "tag", "upsert", "matte", 1, {"code": "matte"})
        old_head = base + 4
    _age_feed(hq, old_head)
    with db.write(hq.engine) as conn:  # young changes: never dropped, even when superseded
        feed.append(conn, "all", "tag", "upsert", "matte", 2, {"code": "matte", "v": 2})
        feed.append(conn, "all", "tag", "upsert", "matte", 3, {"code": "matte", "v": 3})
    result = maintenance.run(hq.engine, hq.blobs)
    assert result.ran and result.changes_dropped["all"] == 3  # gloss v1, v2 and matte v1
    with db.read(hq.engine) as conn:
        epoch = meta.epoch(conn)
        left, _ = feed.page(conn, "all", base, 100)
    assert [(c["id"], c["version"]) for c in left] == [("gloss", 3), ("matte", 2), ("matte", 3)]
    below = client.get("/v1/catalog/changes", params={"since": f"{epoch}.{base}"}, headers=headers)
    assert below.status_code == 410 and below.json()["details"]["reason"] == "compacted"
    at = client.get("/v1/catalog/changes", params={"since": f"{epoch}.{old_head + 1}"}, headers=headers)
    assert at.status_code == 200 and [c["version"] for c in at.json()["changes"]] == [3]


def test_unreferenced_blobs_past_the_grace_period_are_deleted_and_nothing_else(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    _, headers = new_kiosk(hq, client)
    published = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, salt=1), actor="t", publish=True)
    in_style = [a["sha256"] for a in published.body["assets"]]
    body = draft_body(client, headers, salt=2)
    assert client.put(f"/v1/drafts/{new_draft_id()}/revisions/1", headers=headers, json=body).status_code == 201
    in_draft = [a["sha256"] for a in body["assets"]]
    orphan_old = upload(client, headers, png(salt=50))
    orphan_new = upload(client, headers, png(salt=51))  # uploaded, its draft PUT not here yet: kept
    _age_blobs(hq, [*in_style, *in_draft, orphan_old])
    result = maintenance.run(hq.engine, hq.blobs)
    assert result.blobs_deleted == [orphan_old]
    assert not hq.blobs.has(orphan_old)
    for kept in (*in_style, *in_draft, orphan_new):
        assert hq.blobs.has(kept)
    with db.read(hq.engine) as conn:
        rows = set(conn.execute(select(blob.c.sha256)).scalars())
    assert orphan_old not in rows and {*in_style, *in_draft, orphan_new} <= rows
    missing = client.post("/v1/blobs:missing", json={"sha256": [orphan_old]}, headers=headers).json()
    assert missing["missing"] == [orphan_old]  # a kiosk asked again uploads it again


def test_a_withdrawn_styles_blobs_are_kept_for_a_later_publish(hq: HQ, tmp_path: Path) -> None:
    row = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, salt=3), actor="t", publish=True)
    with db.write(hq.engine) as conn:
        catalog.set_status(conn, row.id, "WITHDRAWN", "t")
    hashes = [a["sha256"] for a in row.body["assets"]]
    _age_blobs(hq, hashes)
    assert maintenance.run(hq.engine, hq.blobs, retention=timedelta(0)).blobs_deleted == []
    assert all(hq.blobs.has(h) for h in hashes)


def test_the_scheduled_run_skips_when_another_process_ran_it_within_the_interval(hq: HQ) -> None:
    assert maintenance.run(hq.engine, hq.blobs, interval=maintenance.INTERVAL).ran
    assert not maintenance.run(hq.engine, hq.blobs, interval=maintenance.INTERVAL).ran
    scheduler = maintenance.Scheduler(hq.engine, hq.blobs, tick=timedelta(milliseconds=50)).start()
    scheduler.stop()
    assert scheduler.last_error is None and not scheduler.thread.is_alive()
