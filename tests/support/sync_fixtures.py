"""The sync tests' two fixtures: the real HQ app on loopback (`rig`) and the fault-injecting relay in front of it
(`proxy`). Imported by the conftests of tests/core/sync and tests/adapters/sync; a module that needs another HQ
(PostgreSQL + S3, parametrized) defines its own `rig`, which takes precedence."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.sync_rig import FaultProxy, HqRig


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
