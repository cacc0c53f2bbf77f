"""HQ's pinned key on the kiosk (core/model_releases/keys.py) with real ed25519 signatures and a real database:
the first key is pinned, a signed rotation chain is followed, a forged one or a bare new key is a mismatch logged
once, an older HQ's silence keeps the pin, and a new enrollment starts trust again."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator

import pytest

from nailmirror_desktop.adapters.signing import verify_ed25519
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.model_releases import keys
from nailmirror_desktop.core.paths import database_path
from tests.support.model_releases import HqSigner


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    connection = open_database(database_path())
    yield connection
    connection.close()


def test_the_first_key_is_pinned_and_a_chain_of_signed_rotations_is_followed(conn: sqlite3.Connection) -> None:
    k1, k2, k3 = HqSigner.new(), HqSigner.new(), HqSigner.new()
    assert keys.signing(conn).state == "no_key"
    first = keys.adopt_from_hello(conn, k1.key, [], verify_ed25519)
    assert first.state == "ok" and first.changed and keys.current_key(conn) == k1.key
    again = keys.adopt_from_hello(conn, k1.key, [], verify_ed25519)
    assert again.state == "ok" and not again.changed
    rotated = keys.adopt_from_hello(conn, k3.key, [k2.rotate_to(k3), k1.rotate_to(k2)], verify_ed25519)
    assert rotated.state == "ok" and rotated.changed and keys.current_key(conn) == k3.key
    assert keys.pinned_ids(conn)[0] == k3.key["key_id"] and len(keys.pinned_ids(conn)) == 2  # old one kept


def test_a_key_no_signed_rotation_reaches_is_a_mismatch_logged_once(conn: sqlite3.Connection,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    k1, thief = HqSigner.new(), HqSigner.new()
    keys.pin_at_enrollment(conn, k1.key)
    with caplog.at_level(logging.WARNING, logger="nailmirror_desktop"):
        for _ in range(3):  # three polls: one line
            seen = keys.adopt_from_hello(conn, thief.key, [k1.rotate_to(thief, signed_by=thief)], verify_ed25519)
            assert seen.state == "key_mismatch" and seen.key is None
    assert len([r for r in caplog.records if "ignored" in r.getMessage()]) == 1
    assert keys.signing(conn).state == "key_mismatch" and keys.current_key(conn) == k1.key
    assert keys.adopt_from_hello(conn, None, [], verify_ed25519).state == "key_mismatch"  # silence changes nothing
    assert keys.adopt_from_hello(conn, k1.key, [], verify_ed25519).state == "ok"  # HQ back on the pinned key


def test_no_verifier_pins_nothing_and_a_new_enrollment_starts_trust_again(conn: sqlite3.Connection) -> None:
    k1, k2 = HqSigner.new(), HqSigner.new()
    assert keys.adopt_from_hello(conn, k1.key, [], None).state == "no_key"
    keys.pin_at_enrollment(conn, k1.key)
    keys.pin_at_enrollment(conn, k2.key)  # enrolled again (an operator's one-time code): that HQ's key
    assert keys.current_key(conn) == k2.key and keys.pinned_ids(conn) == [k2.key["key_id"]]
    keys.pin_at_enrollment(conn, None)  # an HQ from before releases: the next hello's key will be pinned
    assert keys.signing(conn).state == "no_key"
