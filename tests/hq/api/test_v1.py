"""Protocol v1 against the real app (in-process client), on SQLite and on PostgreSQL."""

from __future__ import annotations

import urllib.request

from fastapi.testclient import TestClient
from sqlalchemy import select

from nailmirror_hq import catalog, db, drafts, feed, meta, stores
from nailmirror_hq.schema import enroll_code, store_token
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import (
    add_store,
    draft_body,
    enroll,
    new_draft_id,
    new_kiosk,
    png,
    sha,
    style_folder,
    upload,
)


def _cursor(hq: HQ, seq: int = 0) -> str:
    with db.read(hq.engine) as conn:
        return f"{meta.epoch(conn)}.{seq}"


def _publish(hq: HQ, tmp_path, salt: int) -> catalog.StyleRow:
    return catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, salt=salt), actor="test", publish=True)


# --- enrollment and tokens -----------------------------------------------------------------------------------

def test_enrollment_code_is_single_use_and_only_hashes_are_kept(hq: HQ, client: TestClient) -> None:
    store_id, code = add_store(hq)
    answer = client.post("/v1/enroll", json={"nm": 1, "code": code.lower().replace("-", " ")})
    assert answer.status_code == 201
    body = answer.json()
    assert body["store_id"] == store_id and body["channel"] == "all" and body["token"].startswith("nmst_")
    assert body["kiosk_id"].startswith("k_") and body["nm"] == 1
    again = client.post("/v1/enroll", json={"nm": 1, "code": code})
    assert again.status_code == 400 and again.json()["error"] == "enroll_code_invalid"  # used: as if unknown
    assert client.post("/v1/enroll", json={"nm": 1, "code": "0000-0000"}).json() == again.json()
    with db.read(hq.engine) as conn:
        kept = [tuple(r) for r in conn.execute(select(store_token)).all()]
        codes = [tuple(r) for r in conn.execute(select(enroll_code)).all()]
    assert body["token"] not in repr(kept) and stores.sha256_text(body["token"]) in repr(kept)
    assert code not in repr(codes)


def test_revoked_kiosk_gets_401_token_revoked_everywhere(hq: HQ, client: TestClient) -> None:
    store_id, headers = new_kiosk(hq, client)
    assert client.get("/v1/hello", headers=headers).status_code == 200
    with db.write(hq.engine) as conn:
        stores.revoke(conn, store_id, "test")
    since = _cursor(hq)
    for method, path in [("GET", "/v1/hello"), ("GET", f"/v1/catalog/changes?since={since}"),
                         ("GET", "/v1/catalog/snapshot"), ("GET", "/v1/stores/me/inbox"),
                         ("GET", f"/v1/blobs/{'a' * 64}"), ("POST", "/v1/blobs:missing"),
                         ("PUT", f"/v1/drafts/{new_draft_id()}/revisions/1")]:
        answer = client.request(method, path, headers=headers, json={"nm": 1})
        assert answer.status_code == 401, path
        assert answer.json()["error"] == "token_revoked" and answer.json()["retryable"] is False
    unknown = client.get("/v1/hello", headers={"Authorization": "Bearer nmst_nope"})
    assert unknown.status_code == 401 and unknown.json()["error"] == "token_invalid"
    assert client.get("/v1/hello").json()["error"] == "token_missing"


def test_revoking_one_kiosk_leaves_the_other(hq: HQ, client: TestClient) -> None:
    store_id, code = add_store(hq)
    first = enroll(client, code)
    with db.write(hq.engine) as conn:
        code2 = stores.new_enroll_code(conn, store_id, "test")
    second = enroll(client, code2, "second PC")
    kiosk_id = client.get("/v1/hello", headers=first).json()["kiosk_id"]
    with db.write(hq.engine) as conn:
        assert stores.revoke(conn, store_id, "test", kiosk_id=kiosk_id) == 1
    assert client.get("/v1/hello", headers=first).status_code == 401
    assert client.get("/v1/hello", headers=second).status_code == 200


def test_hello_declares_limits_and_the_credit_capabilities(hq: HQ, client: TestClient) -> None:
    store_id, headers = new_kiosk(hq, client)
    body = client.get("/v1/hello", headers=headers).json()
    assert body["store_id"] == store_id and body["protocols"] == [1] and body["limits"]["page_max"] == 500
    assert "credits.grant" in body["capabilities"]["inbox_events"]
    assert body["capabilities"]["ledger_upload"]["status"] == "available"  # tests/hq/test_credits.py uses it


def test_unknown_protocol_version_gets_426(hq: HQ, client: TestClient) -> None:
    _, headers = new_kiosk(hq, client)
    answer = client.get("/v1/hello", headers={**headers, "NM-Protocol": "2"})
    assert answer.status_code == 426 and answer.json()["error"] == "upgrade_required"
    old = client.get("/v1/hello", headers={**headers, "User-Agent": "nailmirror-kiosk/0.0.9 (Windows 10)"})
    assert old.status_code == 426 and old.json()["details"]["min"] == "0.1.0"
    current = client.get("/v1/hello", headers={**headers, "User-Agent": "nailmirror-kiosk/0.1.0 (Linux)"})
    assert current.status_code == 200


def test_healthz(client: TestClient) -> None:
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.json()["status"] == "ok"


# --- the feed --------------------------------------------------------------------------------------------------

def test_feed_pages_in_seq_order_with_state_on_the_last_page(hq: HQ, client: TestClient, tmp_path) -> None:
    _, headers = new_kiosk(hq, client)
    rows = [_publish(hq, tmp_path, salt) for salt in range(3)]
    assert client.get("/v1/catalog/changes", headers=headers).json()["error"] == "bad_cursor"
    since, seen, pages = _cursor(hq), [], 0
    while True:
        page = client.get("/v1/catalog/changes", params={"since": since, "limit": 2}, headers=headers)
        assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
        body = page.json()
        seen += body["changes"]
        since = body["next"]
        pages += 1
        if not body["has_more"]:
            break
        assert "state" not in body
    assert [c["seq"] for c in seen] == list(range(1, len(seen) + 1))
    styles = [c for c in seen if c["type"] == "style"]
    assert [c["id"] for c in styles] == [r.id for r in rows] and pages == (len(seen) + 1) // 2 + (len(seen) % 2 == 0)
    # categories and tags a style names come before it (none here), every upsert carries the full body
    assert all(c["style"]["assets"] and c["style"]["status"] == "PUBLISHED" for c in styles)
    assert body["state"]["count"] == 3
    empty = client.get("/v1/catalog/changes", params={"since": since}, headers=headers).json()
    assert empty["changes"] == [] and empty["next"] == since and empty["state"] == body["state"]


def test_take_down_is_a_tombstone_and_leaves_the_snapshot(hq: HQ, client: TestClient, tmp_path) -> None:
    _, headers = new_kiosk(hq, client)
    row = _publish(hq, tmp_path, 1)
    since = client.get("/v1/catalog/snapshot", headers=headers).json()["cursor"]
    with db.write(hq.engine) as conn:
        catalog.set_status(conn, row.id, "WITHDRAWN", "test")
    changes = client.get("/v1/catalog/changes", params={"since": since}, headers=headers).json()["changes"]
    assert [(c["op"], c["id"], c.get("reason")) for c in changes] == [("delete", row.id, "WITHDRAWN")]
    assert changes[0]["version"] > row.version + 0
    snapshot = client.get("/v1/catalog/snapshot", headers=headers).json()
    assert row.id not in [s["id"] for s in snapshot["styles"]] and snapshot["state"]["count"] == 0


def test_cursor_resets_answer_410_with_the_reason(hq: HQ, client: TestClient, tmp_path) -> None:
    _, headers = new_kiosk(hq, client)
    for salt in range(3):
        _publish(hq, tmp_path, salt)

    def reason(since: str) -> str:
        answer = client.get("/v1/catalog/changes", params={"since": since}, headers=headers)
        assert answer.status_code == 410, answer.text
        assert answer.json()["error"] == "cursor_expired"
        assert answer.json()["details"]["snapshot"] == "/v1/catalog/snapshot"
        return str(answer.json()["details"]["reason"])

    assert reason("eOLDEPOCH.1") == "epoch_changed"
    assert reason(_cursor(hq, 999)) == "ahead_of_server"
    with db.write(hq.engine) as conn:
        dropped = feed.compact(conn, "all", 3)
    assert reason(_cursor(hq, 1)) == "compacted"
    ok = client.get("/v1/catalog/changes", params={"since": _cursor(hq, 3)}, headers=headers)
    assert ok.status_code == 200 and dropped >= 0
    assert client.get("/v1/catalog/changes", params={"since": "garbage"}, headers=headers).status_code == 400


def test_snapshot_has_a_strong_etag_and_answers_304(hq: HQ, client: TestClient, tmp_path) -> None:
    _, headers = new_kiosk(hq, client)
    _publish(hq, tmp_path, 1)
    first = client.get("/v1/catalog/snapshot", headers=headers)
    etag = first.headers["etag"]
    assert etag == f'"{first.json()["cursor"]}"' and not etag.startswith("W/")
    assert client.get("/v1/catalog/snapshot", headers={**headers, "If-None-Match": etag}).status_code == 304
    _publish(hq, tmp_path, 2)
    changed = client.get("/v1/catalog/snapshot", headers={**headers, "If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["etag"] != etag
    body = changed.json()
    feed_state = client.get("/v1/catalog/changes", params={"since": body["cursor"]}, headers=headers).json()
    assert feed_state["state"] == body["state"] and len(body["styles"]) == 2


# --- blobs -----------------------------------------------------------------------------------------------------

def test_blob_upload_is_verified_by_hash(hq: HQ, client: TestClient) -> None:
    _, headers = new_kiosk(hq, client)
    data = png(salt=9)
    missing = client.post("/v1/blobs:missing", headers=headers, json={"nm": 1, "sha256": [sha(data)]})
    assert missing.json()["missing"] == [sha(data)]
    wrong = client.put(f"/v1/blobs/{'0' * 64}", content=data, headers=headers)
    assert wrong.status_code == 400 and wrong.json()["details"]["computed"] == sha(data)
    assert client.put(f"/v1/blobs/{sha(b'text')}", content=b"text", headers=headers).status_code == 415
    assert client.put(f"/v1/blobs/{sha(data)}", content=data, headers=headers).status_code == 201
    again = client.put(f"/v1/blobs/{sha(data)}", content=data, headers=headers)
    assert again.status_code == 200 and again.json() == {"nm": 1, "sha256": sha(data), "size": len(data)}
    after = client.post("/v1/blobs:missing", headers=headers, json={"nm": 1, "sha256": [sha(data)]})
    assert after.json()["missing"] == []
    got = client.get(f"/v1/blobs/{sha(data)}", headers=headers, follow_redirects=False)
    if got.status_code == 307:  # the S3 store: the bytes come from a presigned URL, without the token
        assert "Authorization" not in got.headers.get("location", "")
        with urllib.request.urlopen(got.headers["location"], timeout=10) as direct:
            assert direct.read() == data
    else:
        assert got.content == data and got.headers["etag"] == f'"{sha(data)}"'
        assert "immutable" in got.headers["cache-control"]
    assert client.get(f"/v1/blobs/{'b' * 64}", headers=headers).status_code == 404


# --- drafts, review and the inbox --------------------------------------------------------------------------------

def test_draft_revision_put_is_idempotent_and_immutable(hq: HQ, client: TestClient) -> None:
    store_id, headers = new_kiosk(hq, client)
    draft_id = new_draft_id()
    path = f"/v1/drafts/{draft_id}/revisions/1"
    lone = png(salt=77)
    early = {"nm": 1, "source": "AI", "name": {"zh": "x", "en": ""},
             "assets": [{"type": "NAIL_TEXTURE", "slot": "nail", "sha256": sha(lone), "size": len(lone),
                         "format": "PNG", "width": 8, "height": 12}]}
    answer = client.put(path, headers=headers, json=early)
    assert answer.status_code == 422 and answer.json()["details"]["missing"] == [sha(lone)]
    body = draft_body(client, headers)
    created = client.put(path, headers=headers, json=body)
    assert created.status_code == 201 and created.json()["state"] == "PENDING_REVIEW"
    replay = client.put(path, headers=headers, json=dict(reversed(list(body.items()))))
    assert replay.status_code == 200 and replay.json() == created.json()
    conflict = client.put(path, headers=headers, json={**body, "prompt": "changed"})
    assert conflict.status_code == 409 and conflict.json()["error"] == "revision_conflict"
    _, other = new_kiosk(hq, client, "BJ-0001")
    foreign = client.put(path, headers=other, json=body)
    assert foreign.status_code == 403 and foreign.json()["error"] == "not_your_draft"
    bad = client.put("/v1/drafts/not-a-uuid/revisions/1", headers=headers, json=body)
    assert bad.status_code == 400 and bad.json()["error"] == "invalid_draft"
    with db.read(hq.engine) as conn:
        listed = drafts.list_drafts(conn, "PENDING_REVIEW")
    assert [(d["draft_id"], d["store_id"], d["name"], d["status"]) for d in listed] == [
        (draft_id, store_id, "奶白贝壳猫眼", "PENDING_REVIEW")]


def test_approve_publishes_under_the_draft_id_and_tells_the_store(hq: HQ, client: TestClient) -> None:
    store_id, headers = new_kiosk(hq, client)
    _, other = new_kiosk(hq, client, "BJ-0001")
    draft_id = new_draft_id()
    body = draft_body(client, headers, style_code="FRE-7K2Q0M")
    assert client.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=body).status_code == 201
    since = client.get("/v1/catalog/snapshot", headers=other).json()["cursor"]
    with db.write(hq.engine) as conn:
        drafts.approve(conn, draft_id, "hq:li.wang")
    with db.write(hq.engine) as conn:
        try:
            drafts.reject(conn, draft_id, "hq:zhang", "too late")
            raise AssertionError("a second decision must be refused")
        except Exception as exc:  # HQError 409 already_decided
            assert getattr(exc, "code", None) == "already_decided" and getattr(exc, "status", None) == 409
    changes = client.get("/v1/catalog/changes", params={"since": since}, headers=other).json()["changes"]
    upserts = [c for c in changes if c["type"] == "style"]
    assert [c["id"] for c in upserts] == [draft_id]
    published = upserts[0]["style"]
    assert published["style_code"] == "FRE-7K2Q0M" and published["status"] == "PUBLISHED"
    assert published["origin"] == {"store_id": store_id, "draft_id": draft_id, "rev": 1}
    assert {a["type"] for a in published["assets"]} == {"NAIL_TEXTURE"}  # the raw AI image stays at HQ
    types = [c["type"] for c in changes]
    assert types.index("category") < types.index("style") and types.index("tag") < types.index("style")
    events = client.get("/v1/stores/me/inbox", headers=headers).json()
    assert [(e["type"], e.get("decision")) for e in events["events"]] == [
        ("draft.received", None), ("draft.decision", "APPROVED")]
    decision = events["events"][1]
    assert decision["published_style_id"] == draft_id and decision["reviewer"] == "hq:li.wang"
    assert decision["reviewer_name"] == "li.wang"  # no account of that name: the name in the actor (issue 25.13)
    assert client.get("/v1/stores/me/inbox", headers=other).json()["events"] == []
    later = client.get("/v1/stores/me/inbox", params={"since": events["next"]}, headers=headers).json()
    assert later["events"] == [] and later["next"] == events["next"]


def test_reject_needs_a_reason_and_reaches_the_inbox(hq: HQ, client: TestClient) -> None:
    _, headers = new_kiosk(hq, client)
    draft_id = new_draft_id()
    client.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=draft_body(client, headers))
    with db.write(hq.engine) as conn:
        drafts.reject(conn, draft_id, "hq:li.wang", "颜色与品牌色不符")
    last = client.get("/v1/stores/me/inbox", headers=headers).json()["events"][-1]
    assert (last["decision"], last["reason"], last["rev"]) == ("REJECTED", "颜色与品牌色不符", 1)
    resubmit = client.put(f"/v1/drafts/{draft_id}/revisions/2", headers=headers,
                          json=draft_body(client, headers, salt=2))
    assert resubmit.status_code == 201
    stale = client.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers,
                       json=draft_body(client, headers, salt=3))
    assert stale.status_code == 409


def test_an_expired_enrollment_code_is_refused(hq: HQ, client: TestClient) -> None:
    _, code = add_store(hq)
    with db.write(hq.engine) as conn:
        conn.execute(enroll_code.update().values(expires_at="2000-01-01T00:00:00.000Z"))
    answer = client.post("/v1/enroll", json={"nm": 1, "code": code})
    assert answer.status_code == 400 and answer.json()["error"] == "enroll_code_invalid"
    assert "unknown, used or expired" in answer.json()["message"]


def test_oversized_blobs_and_over_quota_drafts_are_refused(hq: HQ, client: TestClient) -> None:
    _, headers = new_kiosk(hq, client)
    big = b"\x89PNG" + bytes(8 * 1024 * 1024)
    assert client.put(f"/v1/blobs/{sha(big)}", content=big, headers=headers).status_code == 413
    body = draft_body(client, headers)
    for _ in range(drafts.DRAFTS_PER_DAY):
        assert client.put(f"/v1/drafts/{new_draft_id()}/revisions/1", headers=headers, json=body).status_code == 201
    over = client.put(f"/v1/drafts/{new_draft_id()}/revisions/1", headers=headers, json=body)
    assert over.status_code == 429 and over.json()["error"] == "submission_quota_exceeded"
    assert int(over.headers["retry-after"]) > 0 and over.json()["retryable"] is True


def test_hqs_real_answers_classify_as_the_protocol_says(hq: HQ, client: TestClient) -> None:
    from nailmirror_protocol.checks import Action, classify, parse_body

    store_id, headers = new_kiosk(hq, client)

    def verdict(answer):  # type: ignore[no-untyped-def]
        return classify(answer.status_code, parse_body(answer.content, answer.headers["content-type"])).action

    assert parse_body(client.get("/v1/hello", headers=headers).content)["store_id"] == store_id
    assert verdict(client.get("/v1/catalog/changes", params={"since": "eOLD.1"}, headers=headers)) is Action.RESET
    lone = png(salt=55)
    early = {"nm": 1, "source": "AI", "name": {"zh": "x", "en": ""},
             "assets": [{"type": "NAIL_TEXTURE", "slot": "nail", "sha256": sha(lone), "size": len(lone),
                         "format": "PNG", "width": 8, "height": 12}]}
    draft_id = new_draft_id()
    assert verdict(client.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=early)) is Action.UPLOAD
    upload(client, headers, lone)
    assert client.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json=early).status_code == 201
    conflict = client.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers, json={**early, "prompt": "y"})
    assert verdict(conflict) is Action.GIVE_UP
    with db.write(hq.engine) as conn:
        stores.revoke(conn, store_id, "test")
    assert verdict(client.get("/v1/hello", headers=headers)) is Action.STOP
