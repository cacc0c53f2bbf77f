"""HQ test fixtures. `hq` runs a test on both engines: SQLite (WAL, in tmp_path) and PostgreSQL (a throwaway
cluster started once per session, a fresh database per test). `hq_s3` is PostgreSQL + SeaweedFS S3."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*starlette.testclient.*")

from fastapi.testclient import TestClient  # noqa: E402

from nailmirror_hq.api.app import create_app  # noqa: E402
from nailmirror_hq.config import Settings  # noqa: E402
from nailmirror_hq.service import HQ, open_hq  # noqa: E402
from tests.support.hq_servers import PostgresCluster, SeaweedS3  # noqa: E402

_servers: dict[str, object] = {}


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PostgresCluster]:
    cluster = PostgresCluster()
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def seaweed() -> Iterator[SeaweedS3]:
    server = SeaweedS3()
    yield server
    server.stop()


def make_hq(data: Path, database_url: str | None = None, blobs_url: str | None = None,
            starter: Path | None = None) -> HQ:
    settings = Settings(data, database_url or f"sqlite:///{data / 'hq.sqlite3'}",
                        blobs_url or (data / "blobs").as_uri(), starter)
    return open_hq(settings)


def _hq_for(request: pytest.FixtureRequest, tmp_path: Path) -> HQ:
    url = request.getfixturevalue("pg_cluster").new_database() if request.param.startswith("postgresql") else None
    blobs = None
    if request.param.endswith("+s3"):
        seaweed = request.getfixturevalue("seaweed")
        monkeypatch = request.getfixturevalue("monkeypatch")
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", seaweed.ACCESS_KEY)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", seaweed.SECRET_KEY)
        blobs = seaweed.new_bucket_url()
    return make_hq(tmp_path / "hq", url, blobs)


# The scale-out set-ups are marked slow: ./dev test runs all three, ./dev test-fast SQLite only.
AT_SCALE = [pytest.param("postgresql", marks=pytest.mark.slow), pytest.param("postgresql+s3", marks=pytest.mark.slow)]


@pytest.fixture(params=["sqlite", *AT_SCALE])
def hq(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[HQ]:
    """Both set-ups of the issue: one machine (SQLite + files) and at scale (PostgreSQL, and + S3)."""
    instance = _hq_for(request, tmp_path)
    yield instance
    instance.close()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def hq_local_blobs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[HQ]:
    """HQ serving blob bytes itself (the filesystem store): where its own Range handling is under test."""
    instance = _hq_for(request, tmp_path)
    yield instance
    instance.close()


@pytest.fixture
def hq_sqlite(tmp_path: Path) -> Iterator[HQ]:
    instance = make_hq(tmp_path / "hq")
    yield instance
    instance.close()


@pytest.fixture
def hq_s3(tmp_path: Path, pg_cluster: PostgresCluster, seaweed: SeaweedS3,
          monkeypatch: pytest.MonkeyPatch) -> Iterator[HQ]:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", seaweed.ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", seaweed.SECRET_KEY)
    instance = make_hq(tmp_path / "hq", pg_cluster.new_database(), seaweed.new_bucket_url())
    yield instance
    instance.close()


@pytest.fixture
def client(hq: HQ) -> Iterator[TestClient]:
    with TestClient(create_app(hq)) as test_client:
        yield test_client
