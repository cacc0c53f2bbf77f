"""Migration 0009 (issue #25 point 6): accounts made before roles existed become ops_admin, on SQLite and on
PostgreSQL; new accounts get the role they are given, content_reviewer by default."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select, text

from nailmirror_hq import db, reviewers
from nailmirror_hq.schema import reviewer


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgresql":
        return str(request.getfixturevalue("pg_cluster").new_database())
    return f"sqlite:///{tmp_path / 'hq.sqlite3'}"


def test_existing_reviewers_become_ops_admins_and_new_ones_content_reviewers(database_url: str) -> None:
    from alembic import command

    engine = db.make_engine(database_url)
    try:
        command.upgrade(db.alembic_config(engine), "0008_signed_grants")
        with engine.begin() as conn:
            for name in ("li.wang", "zhang.min"):
                conn.execute(text("INSERT INTO reviewer (name, password_hash, created_at) VALUES (:n, 'x', 'y')"),
                             {"n": name})
        db.migrate(engine)  # what HQ's start does
        assert db.schema_revision(engine) == db.HEAD_REVISION
        with db.write(engine) as conn:
            reviewers.add(conn, "new.person", "correct horse battery", "cli:root")
        with db.read(engine) as conn:
            rows = conn.execute(select(reviewer.c.name, reviewer.c.role).order_by(reviewer.c.name)).all()
        assert [tuple(r) for r in rows] == [("li.wang", "ops_admin"), ("new.person", "content_reviewer"),
                                            ("zhang.min", "ops_admin")]
    finally:
        engine.dispose()
