"""Credits at HQ against the real app, on SQLite and PostgreSQL: a grant is one transaction with its
credits.grant inbox event, the ledger upload is idempotent by entry id (replay 200, different body 409, bad
bodies 400 with nothing stored), each store's books, and `nailmirror-hq credits` from the command line."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from nailmirror_hq import credits, db, stores
from nailmirror_hq.api.app import create_app
from nailmirror_hq.errors import HQError
from nailmirror_hq.schema import credit_grant, credit_ledger_entry, store_event
from nailmirror_hq.service import HQ
from tests.support.hq_cli import run_hq
from tests.support.hq_fixtures import add_store, enroll, new_kiosk

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def api(hq_local_blobs: HQ) -> Iterator[TestClient]:
    """SQLite and PostgreSQL (credits touch no blobs, so the S3 set-up adds nothing here)."""
    with TestClient(create_app(hq_local_blobs)) as test_client:
        yield test_client


def _grant(hq: HQ, store_id: str, amount: int, reason: str = "opening") -> credits.Grant:
    with db.write(hq.engine) as conn:
        return credits.grant(conn, store_id, amount, reason, "test", key=hq.require_signing_key())


def _books(hq: HQ, store_id: str) -> dict[str, Any]:
    with db.read(hq.engine) as conn:
        (found,) = credits.books(conn, store_id)
    return found.as_json()


def charge(task_no: str = "T0000000000000001", status: str = "CONFIRMED", amount: int = 1, confirmed: int = 1,
           funded: bool = True, **extra: Any) -> dict[str, Any]:
    return {"nm": 1, "kind": "CHARGE", "status": status, "amount": amount, "confirmed_amount": confirmed,
            "funded": funded, "grant_id": None, "task_no": task_no, "provider": "openai", "model": "gpt-image-1",
            "unit_price": 1, "variations": amount, "reason": None, "note": None,
            "created_at": "2026-12-01T10:00:00.000Z", "settled_at": "2026-12-01T10:00:09.500Z", **extra}


def grant_entry(grant_id: str, amount: int) -> dict[str, Any]:
    return {"nm": 1, "kind": "GRANT", "status": "CONFIRMED", "amount": amount, "confirmed_amount": 0, "funded": True,
            "grant_id": grant_id, "task_no": None, "reason": "opening", "created_at": "2026-12-01T09:00:00.000Z",
            "settled_at": "2026-12-01T09:00:00.000Z"}


# --- grants --------------------------------------------------------------------------------------------------

def test_a_grant_reaches_the_store_inbox_as_a_credits_grant_event(hq_local_blobs: HQ, api: TestClient) -> None:
    hq = hq_local_blobs
    store_id, headers = new_kiosk(hq, api)
    other_id, other_headers = new_kiosk(hq, api, name="BJ-0001")
    given = _grant(hq, store_id, 25, "  grand opening  ")
    assert given.grant_id.startswith("gr_") and given.reason == "grand opening"
    events = api.get("/v1/stores/me/inbox", headers=headers).json()["events"]
    grants = [e for e in events if e["type"] == "credits.grant"]
    assert [{k: e[k] for k in ("grant_id", "amount", "reason")} for e in grants] == [
        {"grant_id": given.grant_id, "amount": 25, "reason": "grand opening"}]
    assert grants[0]["seq"] == given.inbox_seq
    # only that store's inbox carries it
    assert not [e for e in api.get("/v1/stores/me/inbox", headers=other_headers).json()["events"]
                if e["type"] == "credits.grant"]
    second = _grant(hq, store_id, 5)
    assert second.grant_id != given.grant_id and second.inbox_seq == given.inbox_seq + 1
    assert _books(hq, store_id)["granted"] == 30 and _books(hq, store_id)["balance"] == 30
    assert _books(hq, other_id)["granted"] == 0
    body = api.get("/v1/hello", headers=headers).json()["capabilities"]
    assert "credits.grant" in body["inbox_events"] and body["ledger_upload"] == {
        "path": "/v1/ledger/entries/{entry_id}", "method": "PUT", "status": "available"}


@pytest.mark.parametrize(("amount", "reason", "status", "says"), [
    (0, "x", 400, "1 to 1000000"), (-3, "x", 400, "1 to 1000000"), (1_000_001, "x", 400, "1 to 1000000"),
    (True, "x", 400, "whole number"), (5, "   ", 400, "needs a reason"), (5, "r" * 501, 400, "over 500"),
])
def test_a_bad_grant_is_refused_and_writes_nothing(hq_local_blobs: HQ, amount: Any, reason: str, status: int,
                                                   says: str) -> None:
    hq = hq_local_blobs
    store_id, _code = add_store(hq)
    with pytest.raises(HQError) as refused:
        _grant(hq, store_id, amount, reason)
    assert refused.value.status == status and says in refused.value.message
    with db.read(hq.engine) as conn:
        assert conn.execute(select(func.count()).select_from(credit_grant)).scalar_one() == 0
        assert conn.execute(select(func.count()).select_from(store_event)).scalar_one() == 0
        assert stores.get_store(conn, store_id) is not None


def test_no_grant_to_an_unknown_or_revoked_store(hq_local_blobs: HQ) -> None:
    hq = hq_local_blobs
    with pytest.raises(HQError) as refused:
        _grant(hq, "st_NOPE", 5)
    assert refused.value.status == 404
    store_id, _code = add_store(hq)
    with db.write(hq.engine) as conn:
        stores.revoke(conn, store_id, "test")
    with pytest.raises(HQError) as refused:
        _grant(hq, store_id, 5)
    assert refused.value.status == 409 and "revoked" in refused.value.message
    with db.read(hq.engine) as conn:
        assert conn.execute(select(func.count()).select_from(store_event)).scalar_one() == 0


# --- ledger upload -------------------------------------------------------------------------------------------

def test_ledger_upload_is_idempotent_by_entry_id(hq_local_blobs: HQ, api: TestClient) -> None:
    hq = hq_local_blobs
    store_id, headers = new_kiosk(hq, api)
    path = "/v1/ledger/entries/0123456789abcdef0123456789abcdef"
    first = api.put(path, headers=headers, json=charge())
    assert first.status_code == 201 and first.json()["entry_id"] == "0123456789abcdef0123456789abcdef"
    # the same entry again, keys in another order (a retry after a lost answer): 200, stored once
    replay = api.put(path, headers={**headers, "Content-Type": "application/json"},
                     content=json.dumps(dict(reversed(list(charge().items()))), indent=2))
    assert replay.status_code == 200
    changed = api.put(path, headers=headers, json=charge(status="REFUNDED", confirmed=0))
    assert changed.status_code == 409 and changed.json()["error"] == "ledger_entry_conflict"
    assert changed.json()["retryable"] is False
    with db.read(hq.engine) as conn:
        rows = conn.execute(select(credit_ledger_entry)).all()
    assert [(r.store_id, r.status, r.confirmed_amount) for r in rows] == [(store_id, "CONFIRMED", 1)]
    assert rows[0].kiosk_id.startswith("k_")


def test_entries_land_under_the_uploading_store_only(hq_local_blobs: HQ, api: TestClient) -> None:
    hq = hq_local_blobs
    first_id, first = new_kiosk(hq, api)
    second_id, second = new_kiosk(hq, api, name="BJ-0001")
    # the same entry id from two stores is two entries: ids are only unique within a store's books
    assert api.put("/v1/ledger/entries/e1", headers=first, json=charge()).status_code == 201
    assert api.put("/v1/ledger/entries/e1", headers=second, json=charge(amount=2, confirmed=2)).status_code == 201
    assert _books(hq, first_id)["confirmed"] == 1 and _books(hq, second_id)["confirmed"] == 2
    assert api.put("/v1/ledger/entries/e2", json=charge()).status_code == 401


@pytest.mark.parametrize(("entry_id", "change", "says"), [
    ("e1", {"nm": 2}, '"nm": 1'),
    ("e1", {"status": "PENDING", "settled_at": None}, "only settled entries"),
    ("e1", {"kind": "REFUND"}, "kind"),
    ("e1", {"amount": -1}, "amount"),
    ("e1", {"amount": 1.5}, "amount"),
    ("e1", {"confirmed_amount": 2}, "more than amount"),
    ("e1", {"status": "REFUNDED"}, "confirmed_amount 0"),
    ("e1", {"funded": 1}, "funded"),
    ("e1", {"task_no": None}, "task_no"),
    ("e1", {"grant_id": "gr_x"}, "no grant_id"),
    ("e1", {"created_at": "yesterday"}, "created_at"),
    ("e1", {"note": "n" * 501}, "note"),
    ("bad id!", {}, "entry_id"),
    ("x" * 65, {}, "entry_id"),
])
def test_a_bad_ledger_entry_is_refused_with_its_reason_and_nothing_stored(
        hq_local_blobs: HQ, api: TestClient, entry_id: str, change: dict[str, Any], says: str) -> None:
    hq = hq_local_blobs
    _store_id, headers = new_kiosk(hq, api)
    answer = api.put(f"/v1/ledger/entries/{entry_id}", headers=headers, json={**charge(), **change})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == "invalid_ledger_entry" and says in answer.json()["message"]
    with db.read(hq.engine) as conn:
        assert conn.execute(select(func.count()).select_from(credit_ledger_entry)).scalar_one() == 0


def test_books_from_grants_and_uploaded_entries(hq_local_blobs: HQ, api: TestClient) -> None:
    hq = hq_local_blobs
    store_id, headers = new_kiosk(hq, api)
    given = _grant(hq, store_id, 10)
    uploads = {
        "g-hq": grant_entry(given.grant_id, 10),  # the HQ grant coming back as applied: not granted twice
        "g-local": grant_entry("local-7f3a", 4),  # staff's own grant at the kiosk
        "c1": charge("T1", amount=3, confirmed=2),  # 3 variations, 2 arrived: 2 spent, 1 refunded (+1 from T2)
        "c2": charge("T2", status="REFUNDED", amount=1, confirmed=0),
        "c3": charge("T3", funded=False),  # before the first grant: the store paid its provider itself
    }
    for entry_id, body in uploads.items():
        assert api.put(f"/v1/ledger/entries/{entry_id}", headers=headers, json=body).status_code == 201
    found = _books(hq, store_id)
    assert {k: found[k] for k in ("granted", "granted_locally", "confirmed", "refunded", "balance", "generations",
                                  "unfunded_confirmed", "grants", "grants_applied")} == {
        "granted": 10, "granted_locally": 4, "confirmed": 2, "refunded": 2, "balance": 12, "generations": 2,
        "unfunded_confirmed": 1, "grants": 1, "grants_applied": 1}
    assert found["last_upload_at"] is not None


# --- the command line, as a real process -------------------------------------------------------------------

def _env(tmp_path: Path, database_url: str | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_HQ_STARTER_CATALOG": ""}
    env.pop("NAILMIRROR_HQ_DATABASE_URL", None)
    env.pop("NAILMIRROR_HQ_BLOBS", None)
    if database_url is not None:
        env["NAILMIRROR_HQ_DATABASE_URL"] = database_url
    env["NAILMIRROR_HQ_HOME"] = str(tmp_path / "hq")
    return env


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def hq_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    url = request.getfixturevalue("pg_cluster").new_database() if request.param == "postgresql" else None
    return _env(tmp_path, url)


def test_credits_grant_and_show_from_the_command_line(hq_env: dict[str, str], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    env = hq_env
    store_id = json.loads(run_hq(env, "stores", "add", "SH-0012", "--json").stdout)["store_id"]
    other = json.loads(run_hq(env, "stores", "add", "BJ-0001", "--json").stdout)
    # a store without a kiosk: the grant would reach no ledger
    early = run_hq(env, "credits", "grant", store_id, "20", "--reason", "opening")
    assert early.returncode == 1 and "no enrolled kiosk" in early.stderr and len(early.stderr.splitlines()) == 1

    for key in ("NAILMIRROR_HQ_DATABASE_URL", "NAILMIRROR_HQ_STARTER_CATALOG", "NAILMIRROR_HQ_HOME"):
        monkeypatch.setenv(key, env[key]) if key in env else monkeypatch.delenv(key, raising=False)
    from nailmirror_hq.config import load_settings
    from nailmirror_hq.service import open_hq

    hq = open_hq(load_settings())
    try:
        with TestClient(create_app(hq)) as client:
            enroll(client, other["enrollment_code"])
            code = json.loads(run_hq(env, "stores", "enroll-code", store_id, "--json").stdout)["enrollment_code"]
            headers = enroll(client, code)
            done = run_hq(env, "credits", "grant", store_id, "20", "--reason", "opening", "--json")
            assert done.returncode == 0, done.stderr
            given = json.loads(done.stdout)
            assert given["grant_id"].startswith("gr_") and given["amount"] == 20 and given["store_id"] == store_id
            assert given["kiosk_id"].startswith("k_")  # the store's only kiosk
            # --json before the subcommand; text output names the grant id
            text = run_hq(env, "credits", "grant", store_id, "5", "--reason", "top-up")
            assert text.returncode == 0 and text.stdout.startswith("grant_id=gr_")
            # the kiosk sees both grants, addressed to it, in its inbox and uploads a spend
            events = client.get("/v1/stores/me/inbox", headers=headers).json()["events"]
            grants = [e for e in events if e["type"] == "credits.grant"]
            assert [e["amount"] for e in grants] == [20, 5] and {e["kiosk_id"] for e in grants} == {given["kiosk_id"]}
            assert client.put("/v1/ledger/entries/c1", headers=headers,
                              json=charge(amount=2, confirmed=2)).status_code == 201
    finally:
        hq.close()

    shown = json.loads(run_hq(env, "--json", "credits", "show").stdout)
    assert [(s["store_id"], s["granted"], s["confirmed"], s["refunded"], s["balance"]) for s in shown] == [
        (other["store_id"], 0, 0, 0, 0), (store_id, 25, 2, 0, 23)]
    assert [(k["kiosk_id"], k["granted"], k["balance"]) for k in shown[1]["kiosks"]] == [(given["kiosk_id"], 25, 23)]
    one = json.loads(run_hq(env, "credits", "show", store_id, "--json").stdout)
    assert [s["store_id"] for s in one] == [store_id]


def test_a_store_with_two_kiosks_needs_the_kiosk_named_and_books_each(hq_local_blobs: HQ, api: TestClient) -> None:
    hq = hq_local_blobs
    store_id, front = new_kiosk(hq, api)
    with db.write(hq.engine) as conn:
        code = stores.new_enroll_code(conn, store_id, "test")
    back = enroll(api, code, "nail bar")
    with db.read(hq.engine) as conn:
        (first, _), (second, _) = credits.active_kiosks(conn, store_id)
    with pytest.raises(HQError) as refused:
        _grant(hq, store_id, 5)
    assert refused.value.status == 400 and first in refused.value.message and second in refused.value.message
    assert "--kiosk" in refused.value.message and "nail bar" in refused.value.message
    with pytest.raises(HQError) as refused, db.write(hq.engine) as conn:
        credits.grant(conn, store_id, 5, "r", "test", key=hq.require_signing_key(), kiosk_id="k_nope")
    assert refused.value.status == 404
    with db.write(hq.engine) as conn:
        given = credits.grant(conn, store_id, 5, "r", "test", key=hq.require_signing_key(), kiosk_id=second)
    assert given.kiosk_id == second
    # both kiosks read the store's inbox; the event names the one that applies it
    for headers in (front, back):
        (event,) = [e for e in api.get("/v1/stores/me/inbox", headers=headers).json()["events"]
                    if e["type"] == "credits.grant"]
        assert event["kiosk_id"] == second
    assert api.put("/v1/ledger/entries/g1", headers=back, json=grant_entry(given.grant_id, 5)).status_code == 201
    assert api.put("/v1/ledger/entries/c1", headers=back, json=charge()).status_code == 201
    assert api.put("/v1/ledger/entries/c2", headers=front, json=charge(funded=False)).status_code == 201
    found = _books(hq, store_id)
    assert (found["granted"], found["confirmed"], found["balance"]) == (5, 1, 4)
    assert [(k["kiosk_id"], k["kiosk_name"], k["granted"], k["confirmed"], k["balance"], k["generations"])
            for k in found["kiosks"]] == [(first, "front desk", 0, 0, 0, 1), (second, "nail bar", 5, 1, 4, 1)]
    # a revoked kiosk is no longer one to choose: the other one is the store's only kiosk again
    with db.write(hq.engine) as conn:
        stores.revoke(conn, store_id, "test", kiosk_id=first)
    assert _grant(hq, store_id, 2).kiosk_id == second


def test_a_conflict_names_hq_s_body_and_an_entry_resent_under_a_new_id_replaces_it(
        hq_local_blobs: HQ, api: TestClient) -> None:
    hq = hq_local_blobs
    store_id, headers = new_kiosk(hq, api)
    assert api.put("/v1/ledger/entries/e1", headers=headers, json=charge()).status_code == 201
    mine = charge(status="REFUNDED", confirmed=0, note="refunded on the restored disk")
    clash = api.put("/v1/ledger/entries/e1", headers=headers, json=mine)
    assert clash.status_code == 409 and clash.json()["details"]["stored"]["status"] == "CONFIRMED"
    assert api.put("/v1/ledger/entries/e1b", headers=headers, json={**mine, "replaces": "e1"}).status_code == 201
    found = _books(hq, store_id)
    assert (found["confirmed"], found["refunded"], found["generations"]) == (0, 1, 0)  # e1 no longer counted
    # the same entry again without `replaces` (a restore re-offers everything) is a replay, not a conflict
    assert api.put("/v1/ledger/entries/e1b", headers=headers, json=mine).status_code == 200
    assert api.put("/v1/ledger/entries/e2", headers=headers,
                   json={**charge("T9"), "replaces": "bad id!"}).status_code == 400


@pytest.mark.parametrize(("args", "rc", "says"), [
    (("credits", "grant", "st_NOPE", "5", "--reason", "x"), 1, "nailmirror-hq: not_found: no such store st_NOPE"),
    (("credits", "grant", "{store}", "0", "--reason", "x"), 1, "1 to 1000000"),
    (("credits", "grant", "{store}", "5", "--reason", " "), 1, "needs a reason"),
    (("credits", "show", "st_NOPE"), 1, "no such store st_NOPE"),
    (("credits", "grant", "{store}", "five", "--reason", "x"), 2, "invalid int value"),
    (("credits", "grant", "{store}", "5"), 2, "--reason"),
])
def test_credits_command_line_errors_are_one_line(tmp_path: Path, args: tuple[str, ...], rc: int,
                                                  says: str) -> None:
    hq_env = _env(tmp_path)  # refusals do not depend on the engine: SQLite is enough
    store_id = json.loads(run_hq(hq_env, "stores", "add", "SH-0012", "--json").stdout)["store_id"]
    done = run_hq(hq_env, *(a.replace("{store}", store_id) for a in args))
    assert done.returncode == rc and says in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    if rc == 1:
        assert len(done.stderr.strip().splitlines()) == 1
    assert json.loads(run_hq(hq_env, "credits", "show", "--json").stdout)[0]["granted"] == 0


# --- with the kiosk's real ledger ----------------------------------------------------------------------------

def test_grant_to_kiosk_ledger_and_back_to_hq_books(hq_local_blobs: HQ, api: TestClient, tmp_path: Path) -> None:
    """The issue's flow end to end on a real kiosk database: HQ grants 2, the kiosk applies the inbox event
    (delivered twice: counted once), one paid generation succeeds and one is refunded, the settled entries go
    up (the whole batch sent again after a 'crash' before marking: all 200), and HQ's balance equals the kiosk's."""
    from nailmirror_desktop.core.credits import ledger
    from nailmirror_desktop.core.credits.inbox_grant import apply_grant_event
    from nailmirror_desktop.core.credits.upload import mark_uploaded, pending_uploads
    from nailmirror_desktop.core.db import open_database

    hq = hq_local_blobs
    store_id, headers = new_kiosk(hq, api)
    given = _grant(hq, store_id, 2, "opening")
    kiosk = open_database(tmp_path / "kiosk.db")
    try:
        now = 1_790_000_000_000
        for _delivery in range(2):
            for event in api.get("/v1/stores/me/inbox", headers=headers).json()["events"]:
                if event["type"] == "credits.grant":
                    apply_grant_event(kiosk, event, store_id=store_id, now_ms=now)
        assert ledger.find_account(kiosk, store_id).balance == 2
        for n, delivered in ((1, 1), (2, 0)):
            task_no = f"T{n:016d}"
            ledger.pre_deduct(kiosk, store_id, ledger.Charge(task_no, "openai", "gpt-image-1", 1, 1, None, "kiosk",
                                                              100, 3, now - 10, now + 86_400_000), now + n)
            ledger.settle(kiosk, task_no, delivered, None, now + 100 + n)
        assert ledger.find_account(kiosk, store_id).balance == 1

        batch = pending_uploads(kiosk, store_id)
        assert len(batch) == 3
        answers = [api.put(f"/v1/ledger/entries/{u.entry_id}", headers=headers, json=u.body) for u in batch]
        assert [a.status_code for a in answers] == [201, 201, 201]
        # a crash before mark_uploaded: the next cycle sends the same batch, HQ answers 200 and stores nothing new
        answers = [api.put(f"/v1/ledger/entries/{u.entry_id}", headers=headers, json=u.body) for u in batch]
        assert [a.status_code for a in answers] == [200, 200, 200]
        assert mark_uploaded(kiosk, [u.entry_id for u in batch], now + 1_000) == 3
        assert pending_uploads(kiosk, store_id) == []
        kiosk_balance = ledger.find_account(kiosk, store_id).balance
    finally:
        kiosk.close()
    found = _books(hq, store_id)
    assert (found["granted"], found["confirmed"], found["refunded"], found["balance"]) == (2, 1, 1, kiosk_balance)
    assert found["grants_applied"] == 1 and found["granted_locally"] == 0 and found["generations"] == 1
    with db.read(hq.engine) as conn:
        grant_rows = conn.execute(select(credit_ledger_entry.c.grant_id).where(
            credit_ledger_entry.c.kind == "GRANT")).scalars().all()
    assert grant_rows == [given.grant_id]


def test_grants_and_uploaded_entries_survive_backup_and_restore(hq_local_blobs: HQ, api: TestClient,
                                                                tmp_path: Path) -> None:
    from nailmirror_hq import backup

    hq = hq_local_blobs
    store_id, headers = new_kiosk(hq, api)
    given = _grant(hq, store_id, 7)
    assert api.put("/v1/ledger/entries/c1", headers=headers, json=charge(amount=2, confirmed=2)).status_code == 201
    before = _books(hq, store_id)
    backup.backup(hq.engine, hq.blobs, tmp_path / "bk")
    _grant(hq, store_id, 100, "after the backup")
    backup.restore(hq.engine, hq.blobs, tmp_path / "bk", "test")
    assert _books(hq, store_id) == before and before["balance"] == 5
    with db.read(hq.engine) as conn:
        assert [g.grant_id for g in credits.grants(conn, store_id)] == [given.grant_id]
    # the restored entry is still there: the same upload is a replay
    assert api.put("/v1/ledger/entries/c1", headers=headers, json=charge(amount=2, confirmed=2)).status_code == 200


def test_migration_0006_addresses_earlier_grants_to_the_store_s_first_kiosk(tmp_path: Path) -> None:
    """A grant made before grants were addressed went to the whole store: the migration names the kiosk that
    was enrolled by then, in the grant row and in its inbox event, so a second PC enrolled later skips it."""
    from alembic import command
    from sqlalchemy import create_engine, text

    engine = create_engine(f"sqlite:///{tmp_path / 'hq.sqlite3'}")
    config = db.alembic_config(engine)
    command.upgrade(config, "0003_channels_and_taxonomy")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO channel (code, created_at) VALUES ('all', 'x')"))
        conn.execute(text("INSERT INTO store (id, name, channel, status, inbox_seq, created_at) VALUES "
                          "('st_A', 'A', 'all', 'ACTIVE', 1, '2026-01-01T00:00:00.000Z')"))
        for kiosk, at in (("k_first", "2026-01-01T00:00:00.000Z"), ("k_later", "2026-06-01T00:00:00.000Z")):
            conn.execute(text("INSERT INTO store_token (token_sha256, store_id, kiosk_id, kiosk_name, app_version, "
                              "created_at) VALUES (:t, 'st_A', :k, :k, '0.1', :at)"), {"t": kiosk * 4, "k": kiosk,
                                                                                       "at": at})
        body = {"type": "credits.grant", "at": "2026-02-01T00:00:00.000Z", "grant_id": "gr_" + "0" * 24,
                "amount": 5, "reason": "opening"}
        conn.execute(text("INSERT INTO store_event (store_id, seq, type, body, created_at) VALUES "
                          "('st_A', 1, 'credits.grant', :b, '2026-02-01T00:00:00.000Z')"), {"b": json.dumps(body)})
        conn.execute(text("INSERT INTO credit_grant (grant_id, store_id, amount, reason, actor, inbox_seq, created_at) "
                          "VALUES (:g, 'st_A', 5, 'opening', 'cli', 1, '2026-02-01T00:00:00.000Z')"),
                     {"g": body["grant_id"]})
    command.upgrade(config, "head")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT kiosk_id FROM credit_grant")).scalar_one() == "k_first"
        event = json.loads(conn.execute(text("SELECT body FROM store_event")).scalar_one())
    assert event["kiosk_id"] == "k_first" and event["amount"] == 5
    engine.dispose()
