"""`nailmirror sync …` against the real HQ app on a loopback socket: the issue's "Done when" on SQLite and on
PostgreSQL + S3, with an imported draft and with a generated one (HQ's side through its own CLI process)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.hq_fixtures import Ticks, style_folder
from tests.support.sync_rig import HqRig, enroll, local_styles, nailmirror


@pytest.fixture(params=["sqlite", pytest.param("postgresql+s3", marks=pytest.mark.slow)])
def any_rig(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HqRig]:
    """The Done-when runs against both HQ set-ups: one machine, and PostgreSQL + S3 (blobs by 307 to S3)."""
    if request.param == "sqlite":
        hq = HqRig(tmp_path / "hq")
    else:
        cluster, s3 = request.getfixturevalue("pg_cluster"), request.getfixturevalue("seaweed")
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3.ACCESS_KEY)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3.SECRET_KEY)
        hq = HqRig(tmp_path / "hq", database_url=cluster.new_database(), blobs_url=s3.new_bucket_url())
    yield hq
    hq.stop()


def test_status_before_enrolling_says_not_enrolled_and_now_refuses() -> None:
    status = nailmirror("sync", "status", "--json")
    assert status.rc == 0
    assert status.json()["state"] == "NOT_ENROLLED"
    assert set(status.json()) >= {"state", "last_success_at", "offline_since", "cursor", "pending_uploads",
                                  "pending_downloads", "last_error"}
    now = nailmirror("sync", "now")
    assert now.rc == 1 and "not enrolled" in now.err and "Traceback" not in now.err


def test_sync_now_json_prints_one_shape_whatever_the_outcome(rig: HqRig) -> None:
    """A script reads `sync now --json` on failure too (issue 25 §16): the same object with ok false and the
    error's code and message on stdout, the one-line reason on stderr, exit 1."""
    early = nailmirror("sync", "now", "--json")
    assert early.rc == 1 and len(early.err.strip().splitlines()) == 1 and "not enrolled" in early.err
    assert early.json()["ok"] is False and early.json()["error"]["code"] == "not_enrolled"
    assert early.json()["state"] == "NOT_ENROLLED"
    store_id = enroll(rig)
    synced = nailmirror("sync", "now", "--json")
    assert synced.rc == 0, synced.err
    assert synced.json()["ok"] is True and synced.json()["error"] is None and synced.json()["state"] == "OK"
    rig.revoke(store_id)
    failed = nailmirror("sync", "now", "--json")
    assert failed.rc == 1 and "REVOKED" in failed.err and len(failed.err.strip().splitlines()) == 1
    answer = failed.json()
    assert answer["ok"] is False and answer["state"] == "REVOKED"
    assert answer["error"]["code"] == "cannot_sync" and "revoked" in answer["error"]["message"].lower()
    assert set(answer) >= set(synced.json())  # the success's keys, every one


def test_enroll_refuses_plain_http_to_another_host_and_a_bad_code(rig: HqRig) -> None:
    refused = nailmirror("sync", "enroll", "ABCD-EFGH", "--hq", "http://hq.example.com")
    assert refused.rc == 1 and "https_required" in refused.err
    bad = nailmirror("sync", "enroll", "NOPE-NOPE", "--hq", rig.url)
    assert bad.rc == 1 and len(bad.err.strip().splitlines()) == 1
    assert bad.err.startswith("error: cannot enroll: enroll_code_invalid: this enrollment code is unknown, used or "
                              "expired; ask HQ for a new one")
    assert nailmirror("sync", "status", "--json").json()["state"] == "NOT_ENROLLED"


def test_a_throttled_enroll_says_when_to_try_again_in_one_line(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    rig = HqRig(tmp_path / "hq", ticks=Ticks())  # HQ's throttle clock stands still: the lock cannot run out
    hq_log = logging.getLogger("nailmirror_hq")  # HQ serves from this process: its log is not the kiosk's output
    monkeypatch.setattr(hq_log, "propagate", False)
    monkeypatch.setattr(hq_log, "handlers", [logging.NullHandler()])
    try:
        _, code = rig.add_store()
        for _ in range(11):  # ten free misses from one address, the eleventh locks it for a second
            assert "enroll_code_invalid" in nailmirror("sync", "enroll", "NOPE-NOPE", "--hq", rig.url).err
        held = nailmirror("sync", "enroll", code, "--hq", rig.url)
        assert held.rc == 1 and len(held.err.strip().splitlines()) == 1
        assert held.err.startswith("error: cannot enroll: too_many_attempts: too many wrong enrollment codes from "
                                   "this address; try again in 1 s")
        assert nailmirror("sync", "status", "--json").json()["state"] == "NOT_ENROLLED"
    finally:
        rig.stop()


@pytest.mark.slow
def test_done_when_publish_submit_approve_take_down_revoke(any_rig: HqRig, tmp_path: Path) -> None:
    rig = any_rig
    store_id = enroll(rig)
    starter_before = {s["client_uid"] for s in local_styles()}  # the kiosk's starter catalog (HQ has none here)
    assert starter_before

    # Publish at HQ → sync now → the style is in the kiosk's list as source CATALOG, previewable.
    published = rig.publish_new("樱花法式")
    now = nailmirror("sync", "now", "--json")
    assert now.rc == 0, now.err
    assert now.json()["state"] == "OK" and now.json()["pending_downloads"] == 0
    mine = [s for s in local_styles("--customer") if s["client_uid"] == published]
    assert len(mine) == 1 and mine[0]["source"] == "CATALOG" and mine[0]["owner"] == "HQ"
    assert mine[0]["name"] == "樱花法式" and mine[0]["is_previewable"]
    # The first sync (a snapshot replace) kept every starter row HQ never owned.
    assert starter_before <= {s["client_uid"] for s in local_styles()}

    # A kiosk draft → styles submit → sync now → it is in HQ's drafts list.
    imported = nailmirror("styles", "import", str(style_folder(tmp_path / "local", name="奶白猫眼", salt=99)))
    assert imported.rc == 0, imported.err
    code = imported.out.strip()
    submitted = nailmirror("styles", "submit", code)
    assert submitted.rc == 0 and "queued for HQ" in submitted.out
    assert nailmirror("sync", "status", "--json").json()["pending_uploads"] == 1
    assert nailmirror("sync", "now").rc == 0
    draft_id = next(s["client_uid"] for s in local_styles() if s["style_code"] == code)
    at_hq = [d for d in rig.drafts() if d["draft_id"] == draft_id]
    assert len(at_hq) == 1 and at_hq[0]["store_id"] == store_id and at_hq[0]["name"] == "奶白猫眼"
    assert nailmirror("sync", "status", "--json").json()["pending_uploads"] == 0
    # Once enrolled, approval happens at HQ, not here.
    refused = nailmirror("styles", "approve", code)
    assert refused.rc == 1 and "DECIDED_AT_HQ" in refused.err

    # Approve at HQ → sync now → the kiosk's style is PUBLISHED, once, with the same code.
    rig.approve(draft_id)
    assert nailmirror("sync", "now").rc == 0
    rows = [s for s in local_styles() if s["client_uid"] == draft_id]
    assert len(rows) == 1
    assert rows[0]["status"] == "PUBLISHED" and rows[0]["style_code"] == code and rows[0]["owner"] == "HQ"
    assert sum(1 for s in local_styles("--customer") if s["client_uid"] == draft_id) == 1

    # Take-down at HQ → sync now → gone from the customer catalog.
    rig.set_status(published, "WITHDRAWN")
    assert nailmirror("sync", "now").rc == 0
    assert published not in {s["client_uid"] for s in local_styles("--customer")}

    # Revoke → sync now fails with a clear reason; the kiosk keeps its catalog.
    before = {s["client_uid"] for s in local_styles("--customer")}
    rig.revoke(store_id)
    failed = nailmirror("sync", "now")
    assert failed.rc == 1 and "REVOKED" in failed.err and "revoked" in failed.err.lower()
    assert len(failed.err.strip().splitlines()) == 1 and "Traceback" not in failed.err
    assert {s["client_uid"] for s in local_styles("--customer")} == before
    status = nailmirror("sync", "status", "--json").json()
    assert status["state"] == "REVOKED" and "revoked" in status["last_error"]
    token = _token()
    assert token not in nailmirror("sync", "status").out + failed.err + nailmirror("sync", "status", "--json").out


@pytest.mark.slow
def test_done_when_with_a_generated_draft(any_rig: HqRig) -> None:
    """The Done-when's draft leg with a draft the kiosk generated (the offline generator, no key): generate →
    styles submit → sync now → in HQ's `drafts list` (the real `nailmirror-hq` process) → `drafts approve` →
    sync now → the kiosk's style is PUBLISHED, once, under its code."""
    rig = any_rig
    store_id = enroll(rig)
    generated = nailmirror("generate", "奶白色底胶、贝壳碎片、无名指跳色", "--provider", "offline", "--wait", "--json")
    assert generated.rc == 0, generated.err
    assert generated.json()["status"] == "SUCCESS"
    code = generated.json()["result"]["style_code"]
    mine = [s for s in local_styles() if s["style_code"] == code]
    assert len(mine) == 1 and mine[0]["source"] == "AI" and mine[0]["owner"] == "LOCAL"
    draft_id = mine[0]["client_uid"]

    submitted = nailmirror("styles", "submit", code)
    assert submitted.rc == 0 and "queued for HQ" in submitted.out, submitted.err
    synced = nailmirror("sync", "now", "--json")
    assert synced.rc == 0, synced.err
    assert synced.json()["pending_uploads"] == 0
    listed = [d for d in rig.cli("drafts", "list") if d["draft_id"] == draft_id]
    assert len(listed) == 1 and listed[0]["status"] == "PENDING_REVIEW" and listed[0]["store_id"] == store_id
    assert listed[0]["name"] == mine[0]["name"]

    rig.cli("drafts", "approve", draft_id)
    assert nailmirror("sync", "now").rc == 0
    rows = [s for s in local_styles() if s["client_uid"] == draft_id]
    assert len(rows) == 1
    assert rows[0]["status"] == "PUBLISHED" and rows[0]["style_code"] == code and rows[0]["owner"] == "HQ"
    assert rows[0]["source"] == "AI"  # provenance kept
    assert sum(1 for s in local_styles("--customer") if s["client_uid"] == draft_id) == 1
    assert nailmirror("sync", "now").rc == 0  # and it stays once
    assert sum(1 for s in local_styles() if s["client_uid"] == draft_id) == 1


def _token() -> str:
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path

    conn = open_database(database_path())
    try:
        token: str = conn.execute("SELECT token FROM sync_state").fetchone()[0]
    finally:
        conn.close()
    assert len(token) >= 20
    return token


def _submitted_draft(rig: HqRig, tmp_path: Path, salt: int = 41) -> tuple[str, str]:
    imported = nailmirror("styles", "import", str(style_folder(tmp_path / f"d{salt}", name="雾霾蓝", salt=salt)))
    assert imported.rc == 0, imported.err
    code = imported.out.strip()
    assert nailmirror("styles", "submit", code).rc == 0
    assert nailmirror("sync", "now").rc == 0
    return code, next(s["client_uid"] for s in local_styles() if s["style_code"] == code)


@pytest.mark.slow
def test_reject_comes_back_with_its_reason_and_a_revision_goes_up_as_rev_2(rig: HqRig, tmp_path: Path) -> None:
    enroll(rig)
    code, draft_id = _submitted_draft(rig, tmp_path)
    rig.reject(draft_id, "颜色太暗")
    assert nailmirror("sync", "now").rc == 0
    shown = nailmirror("styles", "show", code, "--json").json()
    assert shown["style"]["status"] == "REJECTED"
    assert any(e["action"] == "REJECT" and e["reason"] == "颜色太暗" and e["actor"].startswith("hq:")
               for e in shown["audit"])
    assert nailmirror("styles", "revise", code).rc == 0
    assert nailmirror("styles", "submit", code).rc == 0
    assert nailmirror("sync", "now").rc == 0
    latest = next(d for d in rig.drafts() if d["draft_id"] == draft_id)
    assert latest["rev"] == 2 and latest["status"] == "PENDING_REVIEW"


@pytest.mark.slow
def test_a_revision_replayed_with_another_body_is_a_dead_letter_not_a_retry(rig: HqRig, tmp_path: Path) -> None:
    """A kiosk restored from an old disk image sends rev 1 again, with other content: HQ says 409."""
    enroll(rig)
    code, draft_id = _submitted_draft(rig, tmp_path)
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path

    conn = open_database(database_path())
    with conn:
        conn.execute("UPDATE style SET name = '另一个名字' WHERE client_uid = ?", (draft_id,))
        conn.execute("UPDATE sync_draft_upload SET state = 'QUEUED' WHERE draft_id = ?", (draft_id,))
    conn.close()
    failed = nailmirror("sync", "now")
    assert failed.rc == 1 and "revision_conflict" in failed.err
    dead = nailmirror("tasks", "list", "--status", "DEAD", "--type", "DRAFT_PUSH", "--json").json()
    assert len(dead) == 1 and dead[0]["attempt_count"] == 1
    assert next(d for d in rig.drafts() if d["draft_id"] == draft_id)["name"] == "雾霾蓝"  # HQ kept rev 1
    assert nailmirror("styles", "show", code, "--json").json()["style"]["status"] == "PENDING_REVIEW"
