"""Credits through sync against the real HQ app on a loopback socket: a grant at HQ (its own command line, in a
real process) reaches the kiosk's ledger by `nailmirror sync now`; a paid generation (the real engine and the
fake OpenAI server on loopback) goes up to HQ as a settled entry; a grant delivered twice counts once; an entry
HQ refuses (409) is parked with a visible error and never sent again."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nailmirror_desktop.app.services import register_generation
from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.credits import CreditPolicy
from nailmirror_desktop.core.credits.upload import pending_uploads
from nailmirror_desktop.core.db import open_database, write_transaction
from nailmirror_desktop.core.generation.flow import submit_generation
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.sync import drafts
from nailmirror_desktop.core.tasks import EngineConfig, TaskEngine, TaskStatus
from nailmirror_protocol.shapes import InboxPage
from tests.support.credit_books import assert_books_balance
from tests.support.fake_providers import FakeOpenAI
from tests.support.sync_rig import FaultProxy, HqRig, enroll, nailmirror

ROOT = Path(__file__).resolve().parents[3]
PROMPT = "奶白色底胶、贝壳碎片、无名指跳色"
POLICY = CreditPolicy(daily_cap=100, session_cap=3)


@pytest.fixture
def openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def hq_command(rig: HqRig, *args: str) -> Any:
    """`nailmirror-hq …` in its own process over the rig's data directory (the server keeps running)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_HQ_STARTER_CATALOG": "",
           "NAILMIRROR_HQ_HOME": str(rig.root)}
    env.pop("NAILMIRROR_HQ_DATABASE_URL", None)
    env.pop("NAILMIRROR_HQ_BLOBS", None)
    done = subprocess.run([sys.executable, "-m", "nailmirror_hq", "--json", *args], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def hq_books(rig: HqRig, store_id: str) -> dict[str, Any]:
    shown = hq_command(rig, "credits", "show", store_id)
    assert len(shown) == 1 and shown[0]["store_id"] == store_id
    return dict(shown[0])


def credits_show() -> dict[str, Any]:
    run = nailmirror("credits", "show", "--json")
    assert run.rc == 0, run.err
    return dict(run.json())


def sync_now() -> dict[str, Any]:
    run = nailmirror("sync", "now", "--json")
    assert run.rc == 0, run.err
    return dict(run.json())


def paid_generation(openai: FakeOpenAI) -> str:
    """One paid generation on the kiosk's own database: the real engine, the real credit hooks."""
    from nailmirror_desktop.core.generation.provider_config import (
        PollSettings,
        ProviderConfig,
        RemoteProviderSettings,
        Secret,
    )
    from tests.support.fake_providers import API_KEY

    config = ProviderConfig(openai=RemoteProviderSettings(openai.base_url, Secret(API_KEY), "gpt-image-1"),
                            connect_timeout_s=2.0, read_timeout_s=5.0, poll=PollSettings())
    with TaskEngine(database_path(), clock=ManualClock(), config=EngineConfig(retry_base_s=0.01)) as engine:
        register_generation(engine, config, credits=POLICY)
        task = submit_generation(engine, PROMPT, "openai")
        engine.run_until_idle(timeout_s=60)
        done = engine.get(task.task_no)
        assert done is not None and done.status is TaskStatus.SUCCESS
        return task.task_no


@pytest.mark.slow
def test_done_when_grant_at_hq_spend_at_the_kiosk_and_hq_sees_it(rig: HqRig, openai: FakeOpenAI) -> None:
    store_id = enroll(rig)
    given = hq_command(rig, "credits", "grant", store_id, "2", "--reason", "opening")
    assert credits_show()["balance"] is None  # nothing arrived yet: no grant ever received

    first = sync_now()
    assert first["cycle"]["inbox_events"] == 1
    assert credits_show()["balance"] == 2
    # The GRANT entry went up in the same cycle: HQ knows its grant was applied.
    assert first["pending_ledger_uploads"] == 0 and first["cycle"]["ledger_uploaded"] == 1
    assert hq_books(rig, store_id)["grants_applied"] == 1

    task_no = paid_generation(openai)
    assert credits_show()["balance"] == 1
    status = nailmirror("sync", "status", "--json").json()
    assert status["pending_ledger_uploads"] == 1 and status["parked_ledger_uploads"] == 0

    second = sync_now()
    assert second["cycle"]["ledger_uploaded"] == 1 and second["pending_ledger_uploads"] == 0
    books = hq_books(rig, store_id)
    assert (books["confirmed"], books["balance"], books["granted"], books["generations"]) == (1, 1, 2, 1)
    assert credits_show()["balance"] == 1
    assert_books_balance(database_path())

    # Nothing left to send: a third cycle PUTs nothing and HQ's books stay as they are.
    assert sync_now()["cycle"]["ledger_uploaded"] == 0
    assert hq_books(rig, store_id)["confirmed"] == 1
    entries = nailmirror("credits", "ledger", "--json").json()
    assert given["grant_id"] in {e["grant_id"] for e in entries}
    assert [(e["status"], e["confirmed_amount"]) for e in entries if e["task_no"] == task_no] == [("CONFIRMED", 1)]


@pytest.mark.slow
def test_the_same_grant_event_delivered_twice_counts_once(rig: HqRig) -> None:
    store_id = enroll(rig)
    hq_command(rig, "credits", "grant", store_id, "2", "--reason", "opening")
    sync_now()
    assert credits_show()["balance"] == 2
    # The inbox fetched again from its start (a crash before the cursor's commit, a restored HQ): the event
    # arrives a second time and adds nothing.
    conn = open_database(database_path())
    try:
        with write_transaction(conn):
            conn.execute("UPDATE sync_state SET inbox_cursor = NULL")
    finally:
        conn.close()
    again = sync_now()
    assert again["cycle"]["inbox_events"] == 0
    assert credits_show()["balance"] == 2
    books = hq_books(rig, store_id)
    assert (books["granted"], books["grants_applied"], books["balance"]) == (2, 1, 2)


def test_a_page_carrying_one_grant_twice_applies_it_once_with_its_cursor(rig: HqRig) -> None:
    from nailmirror_desktop.app.services import open_repository

    enroll(rig)
    event = {"seq": 1, "type": "credits.grant", "at": "2026-12-01T00:00:00.000Z", "grant_id": "gr_0011",
             "amount": 3, "reason": "opening"}
    bad = {**event, "seq": 2, "grant_id": "gr_0012", "amount": True}  # a JSON true is not one credit
    page: InboxPage = {"nm": 1, "epoch": "e1", "has_more": False, "next": "e1.3",
                       "events": [event, bad, {**event, "seq": 3}]}  # type: ignore[list-item]
    repo = open_repository()
    assert drafts.apply_inbox_page(repo, page, credit_store_id="local") == 1
    assert drafts.apply_inbox_page(repo, page, credit_store_id="local") == 0
    assert credits_show()["balance"] == 3
    row = repo.conn.execute("SELECT inbox_cursor FROM sync_state").fetchone()
    assert row[0] == "e1.3"
    repo.conn.close()


@pytest.mark.slow
def test_an_entry_hq_refuses_is_parked_visibly_and_never_resent(rig: HqRig) -> None:
    proxy = FaultProxy(rig.server.port)
    try:
        store_id = enroll(rig, proxy.url)
        hq_command(rig, "credits", "grant", store_id, "2", "--reason", "opening")
        sync_now()
        # The kiosk's copy of the uploaded GRANT entry now differs from HQ's under the same id (a restored
        # disk image, a hand edit): HQ answers 409 ledger_entry_conflict.
        conn = sqlite3.connect(str(database_path()))
        with conn:
            conn.execute("UPDATE credit_entry SET uploaded_at = NULL, reason = 'edited' WHERE kind = 'GRANT'")
            entry_id = conn.execute("SELECT upload_id FROM credit_entry WHERE kind = 'GRANT'").fetchone()[0]
        conn.close()
        proxy.seen.clear()
        refused = nailmirror("sync", "now", "--json")
        # the rest synced: a warning naming the way out, not a failure
        assert refused.rc == 0 and refused.err.startswith("warning: 1 ledger entr(ies) refused by HQ and parked")
        assert "credits unpark" in refused.err and "Traceback" not in refused.err
        assert len(refused.err.strip().splitlines()) == 1
        status = nailmirror("sync", "status", "--json").json()
        assert status["parked_ledger_uploads"] == 1 and status["pending_ledger_uploads"] == 0
        assert "ledger_entry_conflict" in status["ledger_upload_error"]
        assert [p for p in proxy.paths() if entry_id in p] == [f"/v1/ledger/entries/{entry_id}"]

        proxy.seen.clear()
        again = nailmirror("sync", "now")
        assert again.rc == 0 and "parked" in again.err  # still says so
        assert not [p for p in proxy.paths() if "/v1/ledger/" in p]  # and sends nothing again
        conn = open_database(database_path())
        try:
            assert pending_uploads(conn) == []
        finally:
            conn.close()
        assert hq_books(rig, store_id)["grants_applied"] == 1  # HQ's copy is untouched
    finally:
        proxy.stop()


@pytest.mark.slow
def test_hq_unreachable_during_uploads_keeps_the_entries_for_the_next_cycle(rig: HqRig, openai: FakeOpenAI) -> None:
    from tests.support.sync_rig import Rule

    proxy = FaultProxy(rig.server.port)
    try:
        store_id = enroll(rig, proxy.url)
        hq_command(rig, "credits", "grant", store_id, "2", "--reason", "opening")
        proxy.rules.append(Rule("/v1/ledger/entries/", times=50, cut_after=0))  # the answer never arrives
        failed = nailmirror("sync", "now", "--timeout", "20")
        assert failed.rc == 1 and "Traceback" not in failed.err
        assert credits_show()["balance"] == 2  # the grant itself came in: the inbox step committed first
        assert nailmirror("sync", "status", "--json").json()["pending_ledger_uploads"] == 1
        proxy.rules.clear()
        assert sync_now()["pending_ledger_uploads"] == 0
        assert hq_books(rig, store_id)["grants_applied"] == 1
    finally:
        proxy.stop()


@pytest.mark.slow
def test_an_upload_whose_mark_was_lost_is_a_replay_hq_answers_200(rig: HqRig) -> None:
    proxy = FaultProxy(rig.server.port)
    try:
        store_id = enroll(rig, proxy.url)
        hq_command(rig, "credits", "grant", store_id, "2", "--reason", "opening")
        sync_now()
        # A crash between HQ's answer and the mark: the kiosk still counts the entry as not sent.
        conn = sqlite3.connect(str(database_path()))
        with conn:
            conn.execute("UPDATE credit_entry SET uploaded_at = NULL")
        conn.close()
        assert nailmirror("sync", "status", "--json").json()["pending_ledger_uploads"] == 1
        proxy.seen.clear()
        again = sync_now()
        assert again["cycle"]["ledger_uploaded"] == 1 and again["pending_ledger_uploads"] == 0
        assert again["parked_ledger_uploads"] == 0
        assert len([p for p in proxy.paths() if "/v1/ledger/entries/" in p]) == 1  # sent once, no loop
        books = hq_books(rig, store_id)
        assert (books["granted"], books["grants_applied"], books["balance"]) == (2, 1, 2)  # counted once at HQ
    finally:
        proxy.stop()


WORKER = ROOT / "tests" / "support" / "ledger_sync_proc.py"


def killed_sync(point: str) -> None:
    done = subprocess.run([sys.executable, str(WORKER), "--kill-at", point], env=dict(os.environ),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]


@pytest.mark.slow
def test_kill_inside_the_inbox_transaction_leaves_neither_the_grant_nor_the_cursor(rig: HqRig) -> None:
    store_id = enroll(rig)
    hq_command(rig, "credits", "grant", store_id, "2", "--reason", "opening")
    killed_sync("inbox_commit")
    assert credits_show()["balance"] is None  # the grant rolled back with its page
    assert nailmirror("sync", "status", "--json").json()["inbox_cursor"] is None
    sync_now()
    assert credits_show()["balance"] == 2  # applied once, on the next cycle
    assert_books_balance(database_path())
    assert hq_books(rig, store_id)["grants_applied"] == 1


@pytest.mark.slow
def test_kill_between_hq_storing_an_entry_and_the_mark_resends_it_once(rig: HqRig) -> None:
    store_id = enroll(rig)
    hq_command(rig, "credits", "grant", store_id, "2", "--reason", "opening")
    killed_sync("ledger_mark")
    assert credits_show()["balance"] == 2
    assert nailmirror("sync", "status", "--json").json()["pending_ledger_uploads"] == 1  # HQ has it; we don't know
    assert hq_books(rig, store_id)["grants_applied"] == 1
    again = sync_now()
    assert again["cycle"]["ledger_uploaded"] == 1 and again["pending_ledger_uploads"] == 0
    assert again["parked_ledger_uploads"] == 0  # the same body: a 200 replay, not a conflict
    books = hq_books(rig, store_id)
    assert (books["granted"], books["grants_applied"], books["balance"]) == (2, 1, 2)


def kiosk_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Point the kiosk CLI at another data directory: a second PC of the same store."""
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("NAILMIRROR_HOME", str(home))


@pytest.mark.slow
def test_two_kiosks_in_one_store_each_apply_only_the_grants_addressed_to_them(
        rig: HqRig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    front_home, back_home = tmp_path / "front", tmp_path / "back"
    kiosk_home(monkeypatch, front_home)
    store_id = enroll(rig)
    front = nailmirror("sync", "status", "--json").json()["kiosk_id"]
    code = hq_command(rig, "stores", "enroll-code", store_id)["enrollment_code"]
    kiosk_home(monkeypatch, back_home)
    assert nailmirror("sync", "enroll", code, "--hq", rig.url).rc == 0
    back = nailmirror("sync", "status", "--json").json()["kiosk_id"]
    assert front != back

    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_HQ_STARTER_CATALOG": "",
           "NAILMIRROR_HQ_HOME": str(rig.root)}
    env.pop("NAILMIRROR_HQ_DATABASE_URL", None)
    env.pop("NAILMIRROR_HQ_BLOBS", None)
    unnamed = subprocess.run([sys.executable, "-m", "nailmirror_hq", "credits", "grant", store_id, "5", "--reason",
                              "r"], env=env, capture_output=True, text=True, timeout=120)
    assert unnamed.returncode == 1 and len(unnamed.stderr.strip().splitlines()) == 1
    assert front in unnamed.stderr and back in unnamed.stderr and "--kiosk" in unnamed.stderr
    hq_command(rig, "credits", "grant", store_id, "5", "--reason", "front desk", "--kiosk", front)
    hq_command(rig, "credits", "grant", store_id, "3", "--reason", "nail bar", "--kiosk", back)

    for home in (front_home, back_home, front_home):  # the front desk syncs twice: still 5
        kiosk_home(monkeypatch, home)
        sync_now()
    kiosk_home(monkeypatch, front_home)
    assert credits_show()["balance"] == 5
    kiosk_home(monkeypatch, back_home)
    assert credits_show()["balance"] == 3
    books = hq_books(rig, store_id)
    assert (books["granted"], books["balance"], books["grants_applied"]) == (8, 8, 2)
    assert {k["kiosk_id"]: (k["granted"], k["balance"]) for k in books["kiosks"]} == {front: (5, 5), back: (3, 3)}


@pytest.mark.slow
def test_a_parked_entry_is_unparked_after_both_bodies_are_shown(rig: HqRig, tmp_path: Path) -> None:
    store_id = enroll(rig)
    hq_command(rig, "credits", "grant", store_id, "2", "--reason", "opening")
    sync_now()
    # This kiosk's copy of an uploaded entry now differs from HQ's under the same id (restored from an old disk
    # image, which settled the entry again): HQ answers 409 and the entry is parked.
    conn = sqlite3.connect(str(database_path()))
    with conn:
        conn.execute("UPDATE credit_entry SET uploaded_at = NULL, reason = 'opening (restored disk)' "
                     "WHERE kind = 'GRANT'")
        local_id, entry_id = conn.execute("SELECT id, upload_id FROM credit_entry WHERE kind = 'GRANT'").fetchone()
    conn.close()
    assert "parked" in nailmirror("sync", "now").err

    unknown = nailmirror("credits", "unpark", "999")
    assert unknown.rc == 1 and unknown.err.startswith("error: ENTRY_NOT_PARKED")
    shown = nailmirror("credits", "unpark", str(local_id), "--json")
    assert shown.rc == 0, shown.err
    both = shown.json()
    assert both["outcome"] == "conflict" and both["new_entry_id"] is None
    assert both["kiosk_body"]["reason"] == "opening (restored disk)" and both["hq_body"]["reason"] == "opening"
    assert nailmirror("sync", "status", "--json").json()["parked_ledger_uploads"] == 1  # nothing changed
    text = nailmirror("credits", "unpark", entry_id)
    assert text.rc == 0 and "HQ:" in text.out and "--yes" in text.out

    # An unpark cut after HQ stored the re-sent entry and before the kiosk recorded it: the next unpark sends
    # the same new id (derived from the old id and the body), a 200 replay, never a second entry.
    from nailmirror_desktop.adapters.sync.client import HttpHq
    from nailmirror_desktop.core.credits.upload import find_parked, unpark_id
    from nailmirror_desktop.core.sync import state

    conn = open_database(database_path())
    try:
        current = state.require(conn)
        parked = find_parked(conn, entry_id)
        assert parked is not None
        cut_id = unpark_id(entry_id, parked.body)
        HttpHq(current.hq_url, current.token, parts_dir=tmp_path / "parts", kiosk_id=current.kiosk_id
               ).put_ledger_entry(cut_id, {**parked.body, "replaces": entry_id})
    finally:
        conn.close()

    done = nailmirror("credits", "unpark", entry_id, "--yes", "--json")
    assert done.rc == 0, done.err
    resent = done.json()
    assert resent["outcome"] == "resent" and resent["new_entry_id"] == cut_id != entry_id
    status = nailmirror("sync", "status", "--json").json()
    assert status["parked_ledger_uploads"] == 0 and status["pending_ledger_uploads"] == 0
    clean = nailmirror("sync", "now")
    assert clean.rc == 0 and clean.err == ""
    books = hq_books(rig, store_id)
    assert (books["granted"], books["grants_applied"], books["balance"]) == (2, 1, 2)  # the old one not counted
    assert nailmirror("credits", "unpark", entry_id).rc == 1  # over: nothing parked any more


@pytest.mark.slow
def test_a_grant_a_restored_hq_lost_is_learned_back_from_the_kiosk_as_hq_s(
        rig: HqRig, openai: FakeOpenAI, tmp_path: Path) -> None:
    store_id = enroll(rig)
    hq_command(rig, "credits", "grant", store_id, "2", "--reason", "opening")
    sync_now()
    hq_command(rig, "backup", str(tmp_path / "backup"))
    later = hq_command(rig, "credits", "grant", store_id, "5", "--reason", "after the backup")
    sync_now()
    paid_generation(openai)
    sync_now()
    assert credits_show()["balance"] == 6
    before = hq_books(rig, store_id)
    assert (before["granted"], before["confirmed"], before["balance"]) == (7, 1, 6)

    hq_command(rig, "restore", str(tmp_path / "backup"))
    lost = hq_books(rig, store_id)
    assert (lost["granted"], lost["confirmed"], lost["balance"]) == (2, 0, 2)  # the backup's books
    again = sync_now()  # a new epoch: the kiosk offers its whole ledger again
    assert again["pending_ledger_uploads"] == 0 and again["parked_ledger_uploads"] == 0
    books = hq_books(rig, store_id)
    assert (books["granted"], books["granted_locally"], books["confirmed"], books["balance"]) == (7, 0, 1, 6)
    assert books["grants"] == 2 and books["grants_applied"] == 2
    assert credits_show()["balance"] == books["balance"]
    assert later["grant_id"] in {e["grant_id"] for e in nailmirror("credits", "ledger", "--json").json()}
    assert sync_now()["cycle"]["ledger_uploaded"] == 0  # once re-offered, not again


@pytest.mark.slow
def test_an_unsigned_grant_a_restored_hq_lost_is_parked_until_an_operator_accepts_it(
        rig: HqRig, tmp_path: Path) -> None:
    """A kiosk's word never adds to HQ's grants (issue 25 §1): a grant applied before HQ signed grants (so the
    kiosk holds no signature for it) and lost by HQ's restore comes back parked, counted nowhere, until an
    operator who finds it in HQ's own records accepts it."""
    store_id = enroll(rig)
    hq_command(rig, "backup", str(tmp_path / "backup"))
    lost = hq_command(rig, "credits", "grant", store_id, "5", "--reason", "before HQ signed grants")
    sync_now()
    conn = sqlite3.connect(str(database_path()))
    with conn:  # as a kiosk that applied it before HQ signed grants holds it
        conn.execute("UPDATE credit_entry SET grant_sig = NULL WHERE grant_id = ?", (lost["grant_id"],))
    conn.close()

    hq_command(rig, "restore", str(tmp_path / "backup"))
    again = sync_now()  # a new epoch: the kiosk offers its whole ledger again, the unsigned grant with it
    assert again["pending_ledger_uploads"] == 0 and again["parked_ledger_uploads"] == 0  # stored at HQ
    books = hq_books(rig, store_id)
    assert (books["granted"], books["granted_locally"], books["balance"]) == (0, 0, 0)
    assert (books["parked_grants"], books["parked_amount"]) == (1, 5)
    (parked,) = hq_command(rig, "credits", "parked")
    assert (parked["grant_id"], parked["amount"], parked["state"]) == (lost["grant_id"], 5, "PARKED")

    hq_command(rig, "credits", "accept", store_id, parked["entry_id"], "--reason", "in finance's records")
    books = hq_books(rig, store_id)
    assert (books["granted"], books["grants_applied"], books["parked_grants"], books["balance"]) == (5, 1, 0, 5)
    assert credits_show()["balance"] == books["balance"]
