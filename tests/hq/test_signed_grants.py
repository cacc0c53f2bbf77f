"""HQ's signing key and signed grants (issue 25 §1), against the real app on SQLite and PostgreSQL: a grant HQ
lost in a restore is learned back only when HQ's own signature on it verifies; any other claim of an HQ grant is
parked for an operator and counted nowhere; the key is made on the first start, sealed in the database with the
config file's key (0600), carried by the backup, and a migration signs the grants HQ already held."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, text

from nailmirror_hq import backup, credits, db, keys
from nailmirror_hq.api.app import create_app
from nailmirror_hq.schema import credit_grant, hq_signing_key
from nailmirror_hq.service import HQ
from tests.hq.conftest import make_hq
from tests.support.hq_cli import run_hq
from tests.support.hq_fixtures import new_kiosk

ROOT = Path(__file__).resolve().parents[2]
UNKNOWN = "gr_" + "a" * 24  # HQ's form of grant id, never issued by this HQ


@pytest.fixture
def api(hq_local_blobs: HQ) -> Iterator[TestClient]:
    with TestClient(create_app(hq_local_blobs)) as test_client:
        yield test_client


def _grant(hq: HQ, store_id: str, amount: int) -> credits.Grant:
    with db.write(hq.engine) as conn:
        return credits.grant(conn, store_id, amount, "opening", "test", key=hq.require_signing_key())


def _books(hq: HQ, store_id: str) -> dict[str, Any]:
    with db.read(hq.engine) as conn:
        (found,) = credits.books(conn, store_id)
    return found.as_json()


def grant_entry(grant_id: str, amount: int, grant_sig: str | None = None) -> dict[str, Any]:
    body = {"nm": 1, "kind": "GRANT", "status": "CONFIRMED", "amount": amount, "confirmed_amount": 0,
            "funded": True, "grant_id": grant_id, "task_no": None, "reason": "opening",
            "created_at": "2026-12-01T09:00:00.000Z", "settled_at": "2026-12-01T09:00:00.000Z"}
    if grant_sig is not None:
        body["grant_sig"] = grant_sig
    return body


def test_a_grant_s_inbox_event_carries_hq_s_signature_of_id_store_and_amount(hq_local_blobs: HQ,
                                                                              api: TestClient) -> None:
    hq = hq_local_blobs
    store_id, headers = new_kiosk(hq, api)
    given = _grant(hq, store_id, 25)
    (event,) = [e for e in api.get("/v1/stores/me/inbox", headers=headers).json()["events"]
                if e["type"] == "credits.grant"]
    assert event["grant_sig"] == given.signature
    with db.read(hq.engine) as conn:
        public = keys.public_key(conn)
    assert public is not None
    assert public.verify(keys.GRANT_PURPOSE, keys.grant_payload(given.grant_id, store_id, 25), event["grant_sig"])
    for forged in (keys.grant_payload(given.grant_id, store_id, 2500), keys.grant_payload(given.grant_id, "st_x", 25)):
        assert not public.verify(keys.GRANT_PURPOSE, forged, event["grant_sig"])
    # one key, several purposes: a grant's signature never passes for a model release's
    assert not public.verify(keys.MODEL_RELEASE_PURPOSE, keys.grant_payload(given.grant_id, store_id, 25),
                             event["grant_sig"])


def test_a_kiosk_s_word_never_makes_an_hq_grant_it_is_parked(hq_local_blobs: HQ, api: TestClient) -> None:
    """The attack of the issue: any token uploads a GRANT entry with a well-formed id HQ never issued."""
    hq = hq_local_blobs
    store_id, headers = new_kiosk(hq, api)
    _grant(hq, store_id, 50)
    key = hq.require_signing_key()
    claims = {
        "e-unsigned": grant_entry(UNKNOWN, 100_000),
        "e-garbage": grant_entry("gr_" + "b" * 24, 100_000, grant_sig="A" * 86),
        # HQ's real signature of that id for 5 credits, claimed for 500
        "e-amount": grant_entry("gr_" + "c" * 24, 500, grant_sig=key.sign_grant("gr_" + "c" * 24, store_id, 5)),
        # signed for another store
        "e-store": grant_entry("gr_" + "d" * 24, 5, grant_sig=key.sign_grant("gr_" + "d" * 24, "st_other", 5)),
    }
    for entry_id, body in claims.items():
        answer = api.put(f"/v1/ledger/entries/{entry_id}", headers=headers, json=body)
        assert answer.status_code == 201, answer.text  # stored (the kiosk is not stuck re-sending it) ...
    books = _books(hq, store_id)  # ... and counted nowhere
    assert (books["granted"], books["granted_locally"], books["balance"], books["grants"]) == (50, 0, 50, 1)
    assert (books["parked_grants"], books["parked_amount"]) == (4, 100_000 + 100_000 + 500 + 5)
    with db.read(hq.engine) as conn:
        parked = credits.parked(conn)
        assert sorted(p.entry_id for p in parked) == sorted(claims)
        assert conn.execute(select(credit_grant.c.grant_id).where(
            credit_grant.c.grant_id.in_([b["grant_id"] for b in claims.values()]))).all() == []
    # the same upload again is a replay, still parked once
    assert api.put("/v1/ledger/entries/e-unsigned", headers=headers, json=claims["e-unsigned"]).status_code == 200
    assert _books(hq, store_id)["parked_grants"] == 4


def test_a_grant_a_restore_lost_is_learned_back_when_hq_s_signature_verifies(
        hq_local_blobs: HQ, api: TestClient, tmp_path: Path) -> None:
    hq = hq_local_blobs
    store_id, headers = new_kiosk(hq, api)
    _grant(hq, store_id, 2)
    backup.backup(hq.engine, hq.blobs, tmp_path / "bk")
    later = _grant(hq, store_id, 5)
    (event,) = [e for e in api.get("/v1/stores/me/inbox", headers=headers).json()["events"]
                if e["type"] == "credits.grant" and e["grant_id"] == later.grant_id]
    backup.restore(hq.engine, hq.blobs, tmp_path / "bk", "test", kek=hq.kek)
    assert _books(hq, store_id)["granted"] == 2
    body = grant_entry(later.grant_id, 5, grant_sig=event["grant_sig"])
    assert api.put("/v1/ledger/entries/e-later", headers=headers, json=body).status_code == 201
    books = _books(hq, store_id)
    assert (books["granted"], books["grants"], books["grants_applied"], books["parked_grants"]) == (7, 2, 1, 0)
    with db.read(hq.engine) as conn:
        learned = [g for g in credits.grants(conn, store_id) if g.grant_id == later.grant_id]
    assert [(g.amount, g.learned_from_entry, g.signature) for g in learned] == [(5, "e-later", event["grant_sig"])]


def _env(tmp_path: Path, database_url: str | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_HQ_STARTER_CATALOG": "",
           "NAILMIRROR_HQ_HOME": str(tmp_path / "hq")}
    for name in ("NAILMIRROR_HQ_DATABASE_URL", "NAILMIRROR_HQ_BLOBS", "NAILMIRROR_HQ_CONFIG"):
        env.pop(name, None)
    if database_url is not None:
        env["NAILMIRROR_HQ_DATABASE_URL"] = database_url
    return env


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def hq_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    url = request.getfixturevalue("pg_cluster").new_database() if request.param == "postgresql" else None
    return _env(tmp_path, url)


def test_an_operator_lists_accepts_and_rejects_parked_grants_from_the_command_line(
        hq_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = hq_env
    for name in ("NAILMIRROR_HQ_DATABASE_URL", "NAILMIRROR_HQ_STARTER_CATALOG", "NAILMIRROR_HQ_HOME"):
        monkeypatch.setenv(name, env[name]) if name in env else monkeypatch.delenv(name, raising=False)
    from nailmirror_hq.config import load_settings
    from nailmirror_hq.service import open_hq

    hq = open_hq(load_settings())
    try:
        with TestClient(create_app(hq)) as client:
            store_id, headers = new_kiosk(hq, client)
            for entry_id, grant_id, amount in (("e1", UNKNOWN, 40), ("e2", "gr_" + "e" * 24, 100_000)):
                assert client.put(f"/v1/ledger/entries/{entry_id}", headers=headers,
                                  json=grant_entry(grant_id, amount)).status_code == 201
    finally:
        hq.close()
    listed = json.loads(run_hq(env, "credits", "parked", "--json").stdout)
    assert [(p["entry_id"], p["grant_id"], p["amount"], p["state"]) for p in listed] == [
        ("e1", UNKNOWN, 40, "PARKED"), ("e2", "gr_" + "e" * 24, 100_000, "PARKED")]
    nameless = run_hq(env, "credits", "accept", store_id, "e1")
    assert nameless.returncode == 2 and "--reason" in nameless.stderr
    accepted = run_hq(env, "credits", "accept", store_id, "e1", "--reason", "finance ticket 881", "--json")
    assert accepted.returncode == 0, accepted.stderr
    assert json.loads(accepted.stdout)["state"] == "ACCEPTED"
    rejected = run_hq(env, "credits", "reject", store_id, "e2", "--reason", "never granted", "--json")
    assert rejected.returncode == 0 and json.loads(rejected.stdout)["state"] == "REJECTED"
    again = run_hq(env, "credits", "reject", store_id, "e2", "--reason", "x")
    assert again.returncode == 1 and "REJECTED already" in again.stderr and len(again.stderr.splitlines()) == 1
    missing = run_hq(env, "credits", "accept", store_id, "e9", "--reason", "x")
    assert missing.returncode == 1 and "no such parked grant entry e9" in missing.stderr
    assert json.loads(run_hq(env, "credits", "parked", "--json").stdout) == []
    assert [p["state"] for p in json.loads(run_hq(env, "credits", "parked", "--all", "--json").stdout)] == [
        "ACCEPTED", "REJECTED"]
    (books,) = json.loads(run_hq(env, "credits", "show", store_id, "--json").stdout)
    # the accepted one is HQ's grant now, signed; the rejected one counts nowhere
    assert (books["granted"], books["granted_locally"], books["grants_applied"], books["parked_grants"],
            books["balance"]) == (40, 0, 1, 0, 40)


# --- the key at rest -----------------------------------------------------------------------------------------

def test_the_key_is_made_once_sealed_with_the_config_file_s_key_and_that_file_is_0600(tmp_path: Path) -> None:
    first = make_hq(tmp_path / "hq")
    config = tmp_path / "hq" / "hq.toml"
    try:
        assert stat.S_IMODE(config.stat().st_mode) == 0o600
        with db.read(first.engine) as conn:
            (row,) = conn.execute(select(hq_signing_key)).all()
        raw_private = first.require_signing_key()._private.private_bytes_raw()
        assert raw_private not in keys._unb64(row.private_sealed)  # sealed, not stored plain
        assert row.algorithm == "ed25519" and row.key_id == first.require_signing_key().public.key_id
    finally:
        first.close()
    shown = json.loads(run_hq(_env(tmp_path, None), "signing-key", "--json").stdout)
    assert shown == {"key_id": row.key_id, "algorithm": "ed25519", "config_file": str(config),
                     "public_key": first.require_signing_key().public.raw.hex()}
    os.chmod(config, 0o644)  # an operator put a copy back carelessly: tightened again at the next start
    second = make_hq(tmp_path / "hq")
    try:
        assert second.require_signing_key().public == first.require_signing_key().public
        assert stat.S_IMODE(config.stat().st_mode) == 0o600
    finally:
        second.close()


@pytest.mark.parametrize("change", ["missing", "another"])
def test_hq_refuses_to_start_in_one_line_without_the_config_file_that_opens_its_key(
        tmp_path: Path, change: str) -> None:
    env = _env(tmp_path, None)
    assert run_hq(env, "stores", "add", "SH-0012").returncode == 0
    config = tmp_path / "hq" / "hq.toml"
    original = config.read_text()
    config.unlink()
    if change == "another":
        config.write_text(f'[signing]\nkey_encryption_key = "{keys._b64(os.urandom(32))}"\n')
    done = run_hq(env, "stores", "list")
    assert done.returncode == 4 and len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert ("missing" if change == "missing" else "does not open") in done.stderr
    assert config.exists() == (change == "another")  # a missing file is never replaced by a new key
    config.write_text(original)
    assert run_hq(env, "stores", "list", "--json").returncode == 0  # nothing was lost


def test_a_restore_refuses_a_backup_whose_key_this_config_cannot_open(tmp_path: Path) -> None:
    one = make_hq(tmp_path / "one")
    try:
        backup.backup(one.engine, one.blobs, tmp_path / "bk")
    finally:
        one.close()
    other = make_hq(tmp_path / "other")  # its own hq.toml
    try:
        with pytest.raises(Exception, match="does not open with this HQ's config file"):
            backup.restore(other.engine, other.blobs, tmp_path / "bk", "test", kek=other.kek)
        with db.read(other.engine) as conn:  # nothing changed
            assert keys.public_key(conn) == other.require_signing_key().public
    finally:
        other.close()
    # on a new machine with the config file kept apart from the backups, it restores
    fresh = make_hq(tmp_path / "fresh")
    try:
        (tmp_path / "fresh" / "hq.toml").write_bytes((tmp_path / "one" / "hq.toml").read_bytes())
        kek = keys.load_or_create_kek(tmp_path / "fresh" / "hq.toml", may_create=False)
        backup.restore(fresh.engine, fresh.blobs, tmp_path / "bk", "test", kek=kek)
    finally:
        fresh.close()
    again = make_hq(tmp_path / "fresh")
    try:
        assert again.require_signing_key().public == one.require_signing_key().public
    finally:
        again.close()


def test_migration_0008_signs_every_grant_hq_already_held(tmp_path: Path) -> None:
    from alembic import command

    engine = db.make_engine(f"sqlite:///{tmp_path / 'hq.sqlite3'}")
    command.upgrade(db.alembic_config(engine), "0007_kiosk_sync_report")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO channel (code, created_at) VALUES ('all', 'x')"))
        conn.execute(text("INSERT INTO store (id, name, channel, status, inbox_seq, created_at) VALUES "
                          "('st_A', 'A', 'all', 'ACTIVE', 1, '2026-01-01T00:00:00.000Z')"))
        conn.execute(text("INSERT INTO credit_grant (grant_id, store_id, amount, reason, actor, inbox_seq, "
                          "created_at) VALUES (:g, 'st_A', 30, 'opening', 'cli:x', 1, '2026-02-01T00:00:00.000Z')"),
                     {"g": UNKNOWN})
    kek = os.urandom(32)
    db.migrate(engine, kek)  # what HQ's start does, with the config file's key
    with db.read(engine) as conn:
        signature = conn.execute(select(credit_grant.c.signature)).scalar_one()
        public = keys.public_key(conn)
    engine.dispose()
    assert public is not None and signature is not None
    assert public.verify(keys.GRANT_PURPOSE, keys.grant_payload(UNKNOWN, "st_A", 30), signature)
