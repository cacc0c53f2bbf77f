"""Migration 0015_labels on SQLite and PostgreSQL: issue #26's datasets (capture_dataset rows without label
versions) become legacy datasets, and their captures in the evaluation split are taken out and counted, so the
evaluation set is never trained on — whatever was listed before labels existed."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select, text

from nailmirror_hq import datasets, db
from nailmirror_hq.schema import capture_dataset
from tests.support.hq_labels import day_for


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgresql":
        return str(request.getfixturevalue("pg_cluster").new_database())
    return f"sqlite:///{tmp_path / 'hq.sqlite3'}"


def test_earlier_datasets_become_legacy_and_lose_their_evaluation_captures(database_url: str) -> None:
    from alembic import command

    engine = db.make_engine(database_url)
    store_id = "st_SH-0012"
    try:
        command.upgrade(db.alembic_config(engine), "0014_captures")
        with engine.begin() as conn:
            channel = conn.execute(text("SELECT code FROM channel LIMIT 1")).scalar()
            if channel is None:
                channel = "all"
                conn.execute(text("INSERT INTO channel (code, created_at) VALUES ('all', 'x')"))
            conn.execute(text("INSERT INTO store (id, name, channel, status, created_at) VALUES (:s, 'SH', :c, "
                              "'ACTIVE', 'x')"), {"s": store_id, "c": channel})
            for code, evaluation in (("K7QH3MPX", False), ("23456789", True)):
                taken = f"{day_for(store_id, evaluation)}T10:00:00.000Z"
                conn.execute(text(
                    "INSERT INTO capture (code, store_id, kiosk_id, image_sha256, size, width, height, taken_at,"
                    " received_at, consent_by, consent_at, consent_text_version, model_version, facts) VALUES"
                    " (:c, :s, 'k1', :sha, 10, 4, 4, :t, :t, 'customer', :t, 'v1', 'm', '{}')"),
                    {"c": code, "s": store_id, "sha": code.lower().ljust(64, "0"), "t": taken})
                conn.execute(text("INSERT INTO capture_dataset (dataset, code, added_at) VALUES ('train-1', :c,"
                                  " '2026-12-01T00:00:00.000Z')"), {"c": code})
        db.migrate(engine)
        assert db.schema_revision(engine) == db.HEAD_REVISION
        with db.read(engine) as conn:
            legacy = datasets.get(conn, "train-1")
            kept = conn.execute(select(capture_dataset.c.code, capture_dataset.c.label_version)).all()
        assert (legacy.members, legacy.excluded, legacy.lost, legacy.legacy) == (1, 1, 0, True)
        assert [tuple(r) for r in kept] == [("K7QH3MPX", None)]
    finally:
        engine.dispose()
