"""The sync tests' fixtures: the real HQ app on loopback (`rig`), the fault-injecting relay in front of it
(`proxy`), and for the PostgreSQL + S3 runs a throwaway PostgreSQL cluster (`pg_cluster`) and a SeaweedFS S3
server (`seaweed`), one of each per module. Imported by the conftests of tests/core/sync and tests/adapters/sync
and by tests/cli/test_sync.py; a module that needs another HQ defines its own `rig`, which takes precedence."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.hq_servers import PostgresCluster, SeaweedS3
from tests.support.sync_rig import FaultProxy, HqRig


def rig_on(backend: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> HqRig:
    """The real HQ on loopback on `backend`: "sqlite" (one machine), or "postgresql+s3" (this module's PostgreSQL
    cluster and S3 server, whose credentials the test's environment gets). For modules whose `any_rig` fixture is
    parametrized over both, each with its own marks."""
    if backend == "sqlite":
        return HqRig(tmp_path / "hq")
    cluster, s3 = request.getfixturevalue("pg_cluster"), request.getfixturevalue("seaweed")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3.ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3.SECRET_KEY)
    return HqRig(tmp_path / "hq", database_url=cluster.new_database(), blobs_url=s3.new_bucket_url())


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[HqRig]:
    hq = HqRig(tmp_path / "hq")
    yield hq
    hq.stop()


@pytest.fixture
def proxy(rig: HqRig) -> Iterator[FaultProxy]:
    relay = FaultProxy(rig.server.port)
    yield relay
    relay.stop()


@pytest.fixture(scope="module")
def pg_cluster() -> Iterator[PostgresCluster]:
    cluster = PostgresCluster()
    yield cluster
    cluster.stop()


@pytest.fixture(scope="module")
def seaweed() -> Iterator[SeaweedS3]:
    server = SeaweedS3()
    yield server
    server.stop()
