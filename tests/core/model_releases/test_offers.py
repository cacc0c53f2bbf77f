"""Releases read from HQ's answers into the table (core/model_releases/offers.py), with real signatures and a real
database: a shut gate ignores upserts but honours withdrawals, a stale delete changes nothing, and a snapshot
from a restored HQ replaces releases numbered after the one it lists."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from nailmirror_desktop.adapters.signing import verify_ed25519
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.model_releases import offers, store
from nailmirror_desktop.core.paths import database_path
from tests.support.model_releases import HqSigner, manifest_for, model_file


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    connection = open_database(database_path())
    yield connection
    connection.close()


def test_a_shut_gate_ignores_releases_but_a_withdrawal_always_applies(conn: sqlite3.Connection) -> None:
    hq = HqSigner.new()
    gate = offers.ReleaseGate("ok", hq.key, verify_ed25519)
    assert offers.offer(conn, gate, "live", 3, hq.sign(manifest_for(model_file(100)))) == 1
    assert offers.offer(conn, offers.CLOSED, "live", 4, hq.sign(manifest_for(model_file(100)))) == 0
    assert [r.release for r in store.rows(conn, "live")] == [3]
    assert offers.withdraw(conn, "live", 2) == 0  # older than the release held: a stale delete
    assert offers.withdraw(conn, "live", 5) == 1 and store.rows(conn, "live") == []


def test_a_restored_hqs_snapshot_replaces_releases_numbered_after_the_one_it_lists(conn: sqlite3.Connection) -> None:
    hq = HqSigner.new()
    gate = offers.ReleaseGate("ok", hq.key, verify_ed25519)
    offers.offer(conn, gate, "live", 7, hq.sign(manifest_for(model_file(100))))
    store.mark_verified(conn, "live", 7, "/m/7.onnx")
    store.mark_active(conn, "live", 7)
    served = hq.sign(manifest_for(model_file(100)))
    offers.replace_from_snapshot(conn, gate, [{"id": "live", "version": 3, "model": served}])
    assert [(r.release, r.state) for r in store.rows(conn, "live")] == [(3, "downloading")]
    offers.replace_from_snapshot(conn, gate, [{"id": "live", "version": 3, "model": served}])  # again: no change
    assert [(r.release, r.state) for r in store.rows(conn, "live")] == [(3, "downloading")]
    offers.replace_from_snapshot(conn, gate, None)  # an HQ from before releases: nothing withdrawn
    offers.replace_from_snapshot(conn, gate, [])  # HQ lists none: the slot goes back to the bundled model
    assert store.rows(conn, "live") == []
