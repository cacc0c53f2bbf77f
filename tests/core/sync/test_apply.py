"""core/sync's apply logic on a real kiosk database, fed by the real HQ app over loopback (HttpHq as the port)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nailmirror_desktop.adapters.sync.client import HttpHq
from nailmirror_desktop.app.services import open_repository, open_sync_engine
from nailmirror_desktop.core.catalog import StyleRepository, read_style_folder
from nailmirror_desktop.core.catalog.starter import default_catalog_folder
from nailmirror_desktop.core.sync import apply, cycle, drafts, state, tasks
from nailmirror_hq import catalog, db
from tests.support.hq_fixtures import png, sha, style_folder
from tests.support.sync_rig import HqRig


def enrolled_port(rig: HqRig, repo: StyleRepository, tmp_path: Path) -> HttpHq:
    _, code = rig.add_store()
    answer = HttpHq(rig.url, None, parts_dir=tmp_path / "parts").enroll(code, "k", "0.1.0")
    state.save_enrollment(repo.conn, rig.url, answer["store_id"], answer["kiosk_id"], answer["channel"],
                          answer["token"])
    return HttpHq(rig.url, answer["token"], parts_dir=tmp_path / "parts")


@pytest.fixture
def repo() -> Iterator[StyleRepository]:
    repository = open_repository(load_catalog=False)
    yield repository
    repository.conn.close()


def rows_for(repo: StyleRepository, uid: str) -> list[dict[str, object]]:
    return [dict(r) for r in repo.conn.execute("SELECT * FROM style WHERE client_uid = ? OR remote_id = ?",
                                               (uid, uid))]


def drain(repo: StyleRepository) -> None:
    """Queue and run the blob fetches (the engine's BLOB_FETCH tasks) until none is left."""
    with open_sync_engine() as engine:
        tasks.queue_work(engine, repo.conn, tasks.SyncServices(lambda c: repo, lambda s: None, engine.clock))  # type: ignore[arg-type,return-value]
        engine.run_until_idle(30)


def test_replaying_a_page_changes_nothing(rig: HqRig, repo: StyleRepository, tmp_path: Path) -> None:
    port = enrolled_port(rig, repo, tmp_path)
    cycle.run_cycle(repo, port, time.time())
    start = state.require(repo.conn).channel_cursor
    assert start is not None
    style_id = rig.publish_new()
    page = port.changes(start, 500)
    apply.apply_changes_page(repo, page)
    drain(repo)
    before = rows_for(repo, style_id)
    audit = repo.conn.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0]
    apply.apply_changes_page(repo, page)  # the same page again (a retry after a lost commit ack)
    assert rows_for(repo, style_id) == before
    assert repo.conn.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0] == audit
    assert before[0]["status"] == "PUBLISHED" and before[0]["is_previewable"] == 1


def test_an_update_stays_staged_until_complete_and_the_old_version_keeps_showing(
        rig: HqRig, repo: StyleRepository, tmp_path: Path) -> None:
    port = enrolled_port(rig, repo, tmp_path)
    style_id = rig.publish_new("旧版")
    cycle.run_cycle(repo, port, time.time())
    drain(repo)
    old = rows_for(repo, style_id)[0]
    assert old["is_previewable"] == 1
    # HQ edits it: a new nail texture (a blob the kiosk does not have) and a new name.
    with db.write(rig.hq.engine) as conn:
        row = catalog.get_style(conn, style_id)
        assert row is not None
        new_nail = png(salt=201)
        catalog.store_blob(rig.hq.blobs, new_nail, sha(new_nail))
        catalog.record_blob(conn, sha(new_nail), len(new_nail), "PNG", 8, 12)
        body = dict(row.body)
        body["name"] = {"zh": "新版", "en": ""}
        body["assets"] = [a if a["type"] != "NAIL_TEXTURE" or a["slot"] != "nail" else
                          {**a, "sha256": sha(new_nail), "size": len(new_nail)} for a in row.body["assets"]]
        catalog.replace_body(conn, style_id, body, "test")  # type: ignore[arg-type]
    cycle.run_cycle(repo, port, time.time())  # feed only: the new blob is queued, not fetched
    staged = rows_for(repo, style_id)[0]
    assert staged["name"] == "旧版" and staged["content_version"] == old["content_version"]
    assert staged["is_previewable"] == 1 and staged["status"] == "PUBLISHED"
    assert repo.conn.execute("SELECT COUNT(*) FROM sync_staged_style").fetchone()[0] == 1
    drain(repo)
    done = rows_for(repo, style_id)[0]
    assert done["name"] == "新版" and done["content_version"] == int(str(old["content_version"])) + 1
    textures = {a.slot: a.file_sha256 for a in repo.assets(int(str(done["id"])), asset_type="NAIL_TEXTURE")}
    assert textures["nail"] == sha(new_nail)
    assert repo.conn.execute("SELECT COUNT(*) FROM sync_staged_style").fetchone()[0] == 0


@pytest.mark.parametrize("inbox_first", [True, False])
def test_an_approved_draft_comes_back_once_whichever_of_inbox_and_feed_is_first(
        rig: HqRig, repo: StyleRepository, tmp_path: Path, inbox_first: bool) -> None:
    port = enrolled_port(rig, repo, tmp_path)
    cycle.run_cycle(repo, port, time.time())
    local = repo.create_style_with_content("我的款", "MANUAL",
                                           read_style_folder(style_folder(tmp_path / "mine", salt=5)).content,
                                           actor="staff")
    style, draft_id, rev = drafts.queue_submission(repo, local.style_code, actor="staff")
    body, blobs = drafts.revision_body(repo, style.id)
    receipt = tasks.push_revision(port, draft_id, rev, body, blobs)
    assert receipt["state"] == "PENDING_REVIEW"
    assert tasks.push_revision(port, draft_id, rev, body, blobs)["rev"] == rev  # a replay: HQ answers 200
    rig.approve(draft_id)
    cursor = state.require(repo.conn).channel_cursor
    assert cursor is not None
    if inbox_first:
        drafts.apply_inbox_page(repo, port.inbox(None))
        assert [r["status"] for r in rows_for(repo, draft_id)] == ["PUBLISHED"]
        apply.apply_changes_page(repo, port.changes(cursor, 500))
    else:
        apply.apply_changes_page(repo, port.changes(cursor, 500))
        drafts.apply_inbox_page(repo, port.inbox(None))
    rows = rows_for(repo, draft_id)
    assert len(rows) == 1
    assert rows[0]["status"] == "PUBLISHED" and rows[0]["owner"] == "HQ" and rows[0]["id"] == local.id
    assert rows[0]["style_code"] == local.style_code and rows[0]["remote_id"] == draft_id


def test_editing_an_hq_style_makes_a_local_draft(rig: HqRig, repo: StyleRepository, tmp_path: Path) -> None:
    port = enrolled_port(rig, repo, tmp_path)
    style_id = rig.publish_new("总部款")
    cycle.run_cycle(repo, port, time.time())
    drain(repo)
    hq_row = repo.get(int(str(rows_for(repo, style_id)[0]["id"])))
    edited = repo.edit_content(hq_row.style_code, read_style_folder(style_folder(tmp_path / "e", salt=9)).content,
                               actor="staff")
    assert edited.id != hq_row.id and edited.parent_style_id == hq_row.id and edited.status.value == "DRAFT"
    assert edited.owner == "LOCAL"
    unchanged = repo.get(hq_row.id)
    assert unchanged.status.value == "PUBLISHED" and unchanged.content_version == hq_row.content_version
    assert unchanged.owner == "HQ"


def test_staff_may_hide_an_hq_style_in_their_store(rig: HqRig, repo: StyleRepository, tmp_path: Path) -> None:
    port = enrolled_port(rig, repo, tmp_path)
    style_id = rig.publish_new()
    cycle.run_cycle(repo, port, time.time())
    drain(repo)
    record = repo.get(int(str(rows_for(repo, style_id)[0]["id"])))
    assert record.id in {s.id for s in repo.list_for_customers()}
    apply.set_hidden(repo, record.style_code, True, actor="staff")
    assert record.id not in {s.id for s in repo.list_for_customers()}
    apply.stage_style(repo, style_id, 99, catalog_body(rig, style_id))  # a newer HQ version keeps it hidden
    assert record.id not in {s.id for s in repo.list_for_customers()}
    apply.set_hidden(repo, record.style_code, False, actor="staff")
    assert record.id in {s.id for s in repo.list_for_customers()}


def catalog_body(rig: HqRig, style_id: str) -> dict[str, object]:
    with db.read(rig.hq.engine) as conn:
        row = catalog.get_style(conn, style_id)
    assert row is not None
    return dict(row.body)


@pytest.mark.parametrize("setup", ["sqlite", pytest.param("postgresql+s3", marks=pytest.mark.slow)])
def test_first_sync_takes_over_the_starter_catalog_without_duplicates(
        setup: str, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """On both HQ set-ups: HQ starts with the kiosk's starter catalog under the same ids; the first sync (a
    snapshot replace) wipes nothing and duplicates nothing, and HQ owns those rows afterwards."""
    urls: dict[str, str] = {}
    if setup == "postgresql+s3":
        cluster, s3 = request.getfixturevalue("pg_cluster"), request.getfixturevalue("seaweed")
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", s3.ACCESS_KEY)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", s3.SECRET_KEY)
        urls = {"database_url": cluster.new_database(), "blobs_url": s3.new_bucket_url()}
    hq = HqRig(tmp_path / "hq-starter", starter=default_catalog_folder(), **urls)
    try:
        repo = open_repository(load_catalog=True)
        before = {r["client_uid"]: r["style_code"] for r in repo.conn.execute("SELECT * FROM style")}
        port = enrolled_port(hq, repo, tmp_path)
        report = cycle.run_cycle(repo, port, time.time())
        assert report.snapshot
        after = [dict(r) for r in repo.conn.execute("SELECT * FROM style")]
        assert len(after) == len(before)  # no second copy of any starter style
        assert {r["client_uid"]: r["style_code"] for r in after} == before  # same ids, same codes
        assert all(r["owner"] == "HQ" and r["deleted"] == 0 for r in after)
        assert all(r["is_previewable"] == 1 for r in after)
        assert state.status_report(repo.conn)["pending_downloads"] == 0  # the files were already here
        # HQ owns them now, under the same ids: its edit updates the kiosk's row, its take-down removes it.
        edited, taken_down = sorted(before)[:2]
        body = catalog_body(hq, edited)
        body["name"] = {"zh": "总部改名", "en": "Renamed at HQ"}
        with db.write(hq.hq.engine) as conn:
            catalog.replace_body(conn, edited, body, "test")  # type: ignore[arg-type]
        hq.set_status(taken_down, "WITHDRAWN")
        cycle.run_cycle(repo, port, time.time())
        row = rows_for(repo, edited)
        assert len(row) == 1 and row[0]["name"] == "总部改名" and row[0]["style_code"] == before[edited]
        shown = {record.client_uid for record in repo.list_for_customers()}
        assert edited in shown and taken_down not in shown
        repo.conn.close()
    finally:
        hq.stop()


def test_a_take_down_applies_while_the_styles_blobs_are_still_downloading(
        rig: HqRig, repo: StyleRepository, tmp_path: Path) -> None:
    port = enrolled_port(rig, repo, tmp_path)
    style_id = rig.publish_new()
    cycle.run_cycle(repo, port, time.time())  # staged, its blobs queued, none fetched yet
    assert repo.conn.execute("SELECT COUNT(*) FROM sync_staged_style").fetchone()[0] == 1
    rig.set_status(style_id, "WITHDRAWN")
    cycle.run_cycle(repo, port, time.time())
    assert repo.conn.execute("SELECT COUNT(*) FROM sync_staged_style").fetchone()[0] == 0
    drain(repo)  # the blobs still arrive; nothing shows
    assert not [r for r in rows_for(repo, style_id) if r["deleted"] == 0]


def test_more_than_three_resets_an_hour_stop_the_loop(rig: HqRig, repo: StyleRepository, tmp_path: Path) -> None:
    from nailmirror_desktop.core.sync.errors import Fault, SyncError

    port = enrolled_port(rig, repo, tmp_path)
    now = time.time()
    cycle.run_cycle(repo, port, now)
    for step in range(3):
        rig.new_epoch()
        assert cycle.run_cycle(repo, port, now + step).snapshot
    rig.new_epoch()
    with pytest.raises(SyncError) as caught:
        cycle.run_cycle(repo, port, now + 10)
    assert caught.value.fault is Fault.RESET_LOOP
    assert cycle.run_cycle(repo, port, now + 3700).snapshot  # an hour later it resyncs again


def test_the_stores_price_of_an_hq_style_survives_a_new_version_a_status_change_and_a_snapshot(
        rig: HqRig, repo: StyleRepository, tmp_path: Path) -> None:
    """Issue 13: a store sets its own prices; HQ's feed (an edit, off shelf and back, a new epoch's snapshot)
    never writes or clears the column."""
    port = enrolled_port(rig, repo, tmp_path)
    style_id = rig.publish_new("定价款")
    cycle.run_cycle(repo, port, time.time())
    drain(repo)
    local = rows_for(repo, style_id)[0]
    assert local["owner"] == "HQ"
    repo.set_price(int(str(local["id"])), 16800, actor="staff")
    with db.write(rig.hq.engine) as conn:
        row = catalog.get_style(conn, style_id)
        assert row is not None
        body = dict(row.body)
        body["name"] = {"zh": "定价款二版", "en": "Priced v2"}
        catalog.replace_body(conn, style_id, body, "test")  # type: ignore[arg-type]
    cycle.run_cycle(repo, port, time.time())
    drain(repo)
    after_edit = rows_for(repo, style_id)[0]
    assert after_edit["name"] == "定价款二版" and after_edit["price_minor"] == 16800
    rig.set_status(style_id, "OFF_SHELF")
    cycle.run_cycle(repo, port, time.time())
    assert rows_for(repo, style_id)[0]["status"] == "OFF_SHELF"
    rig.set_status(style_id, "PUBLISHED")
    cycle.run_cycle(repo, port, time.time())
    drain(repo)
    assert rows_for(repo, style_id)[0]["price_minor"] == 16800
    rig.new_epoch()  # the next cycle takes the whole snapshot (a replace over HQ's rows)
    cycle.run_cycle(repo, port, time.time())
    drain(repo)
    final = rows_for(repo, style_id)[0]
    assert final["status"] == "PUBLISHED" and final["deleted"] == 0 and final["price_minor"] == 16800


def _submitted(rig: HqRig, repo: StyleRepository, tmp_path: Path) -> tuple[HttpHq, int, str]:
    port = enrolled_port(rig, repo, tmp_path)
    cycle.run_cycle(repo, port, time.time())
    local = repo.create_style_with_content("我的款", "MANUAL",
                                           read_style_folder(style_folder(tmp_path / "mine", salt=6)).content,
                                           actor="staff")
    style, draft_id, rev = drafts.queue_submission(repo, local.style_code, actor="staff")
    body, blobs = drafts.revision_body(repo, style.id)
    tasks.push_revision(port, draft_id, rev, body, blobs)
    return port, local.id, draft_id


def test_the_kiosks_audit_names_the_hq_person_who_approved_its_draft(
        rig: HqRig, repo: StyleRepository, tmp_path: Path) -> None:
    """Issue #25 point 13: HQ's inbox carries the approver's display name (reviewer_name); the kiosk's audit row
    for the decision is "hq:王丽", so staff read "HQ reviewer 王丽", with HQ's own actor kept in the detail."""
    from nailmirror_hq import drafts as hq_drafts
    from nailmirror_hq import reviewers

    port, style_id, draft_id = _submitted(rig, repo, tmp_path)
    with db.write(rig.hq.engine) as conn:
        reviewers.add(conn, "li.wang", "correct horse battery", "test", display_name="王丽")
        hq_drafts.approve(conn, draft_id, "hq:li.wang")
    page = port.inbox(None)
    decision = next(e for e in page["events"] if e["type"] == "draft.decision")
    assert decision.get("reviewer_name") == "王丽" and decision.get("reviewer") == "hq:li.wang"
    drafts.apply_inbox_page(repo, page)
    row = repo.audit_trail(style_id)[-1]
    assert (row.action, row.actor) == ("APPROVE", "hq:王丽") and '"hq_reviewer": "hq:li.wang"' in row.detail_json


@pytest.mark.parametrize(("event", "actor"), [
    ({"reviewer": "hq:li.wang"}, "hq:li.wang"),  # an HQ before #25: no reviewer_name, its actor without "hq:"
    ({"reviewer": "cli:root"}, "hq:root"),
    ({"reviewer": "reviewer-a"}, "hq:reviewer-a"),
    ({}, "hq:reviewer"),
    ({"reviewer": "hq:li.wang", "reviewer_name": "王丽"}, "hq:王丽"),
])
def test_an_old_hqs_decision_still_names_the_account(event: dict[str, str], actor: str) -> None:
    assert drafts.decided_by({"seq": 1, "type": "draft.decision", "at": "", **event}) == actor  # type: ignore[typeddict-item]


def test_a_kiosk_reading_an_inbox_skips_fields_it_does_not_know() -> None:
    """What lets a kiosk from before #25 read a new HQ's reviewer_name: an unknown field of a known event is
    skipped (and noted), the event kept; and today's reader keeps reviewer_name and refuses a wrong one."""
    from nailmirror_protocol import wire
    from nailmirror_protocol.cursor import format_cursor

    base = {"nm": 1, "epoch": "e" * 16, "has_more": False, "next": format_cursor("e" * 16, 1),
            "events": [{"seq": 1, "type": "draft.decision", "at": "2026-12-04T13:03:00.000Z",
                        "draft_id": "0f3c5d1e-2b4a-4c6d-8e9f-0a1b2c3d4e5f", "rev": 1, "decision": "APPROVED",
                        "published_style_id": None, "reviewer": "hq:li.wang", "reviewer_name": "王丽",
                        "reviewer_title": "店长"}]}
    reading = wire.Reading()
    event = wire.read_inbox_page(base, reading)["events"][0]
    assert event.get("reviewer_name") == "王丽" and "reviewer_title" not in event
    assert any("reviewer_title" in note for note in reading.skipped)
    base["events"][0]["reviewer_name"] = 42  # type: ignore[index]
    with pytest.raises(wire.WireError):
        wire.read_inbox_page(base)
