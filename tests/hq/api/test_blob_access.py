"""A store's draft images are that store's (issue 25.5): a kiosk of another store gets the answer HQ gives for a
hash it does not have, until HQ publishes them; published styles' images serve to every kiosk. On SQLite and on
PostgreSQL (+ S3, where a served blob is a 307 to the bucket)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from nailmirror_hq import catalog, db, drafts
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import draft_body, new_draft_id, new_kiosk, png, sha, style_folder, upload

SERVED = (200, 307)


def _get(client: TestClient, headers: dict[str, str], sha256: str) -> tuple[int, dict[str, object]]:
    answer = client.get(f"/v1/blobs/{sha256}", headers=headers, follow_redirects=False)
    body = answer.json() if answer.status_code == 404 else {}
    return answer.status_code, body


def _as_unknown(client: TestClient, headers: dict[str, str], sha256: str) -> bool:
    """The answer for `sha256` is the one for a hash HQ never had (the hash itself aside)."""
    unknown = "f" * 64
    status, body = _get(client, headers, sha256)
    other_status, other_body = _get(client, headers, unknown)
    return (status, str(body).replace(sha256, unknown)) == (other_status, str(other_body)) and status == 404


def _submit(client: TestClient, headers: dict[str, str], salt: int, draft_id: str | None = None,
            rev: int = 1) -> tuple[str, str, str]:
    """A draft revision of this kiosk's store; (draft id, its NAIL_TEXTURE's hash, its AI_DRAFT's hash)."""
    draft_id = draft_id or new_draft_id()
    body = draft_body(client, headers, salt=salt)
    answer = client.put(f"/v1/drafts/{draft_id}/revisions/{rev}", headers=headers, json=body)
    assert answer.status_code == 201, answer.text
    by_type = {a["type"]: a["sha256"] for a in body["assets"]}
    return draft_id, by_type["NAIL_TEXTURE"], by_type["AI_DRAFT"]


def test_another_stores_pending_draft_images_are_404_like_an_unknown_hash(hq: HQ, client: TestClient,
                                                                          tmp_path: Path) -> None:
    _, store_a = new_kiosk(hq, client, "SH-0001")
    _, store_b = new_kiosk(hq, client, "SH-0002")
    _, nail, ai = _submit(client, store_b, salt=1)
    for sha256 in (nail, ai):
        assert _as_unknown(client, store_a, sha256)
        assert _get(client, store_b, sha256)[0] in SERVED  # its own store's kiosks still get them
    published = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, salt=5), actor="test",
                                      publish=True)
    for asset in published.body["assets"]:
        assert _get(client, store_a, asset["sha256"])[0] in SERVED
        assert _get(client, store_b, asset["sha256"])[0] in SERVED
    # A fresh process (nothing remembered) answers the same.
    with TestClient(create_app(hq)) as fresh:
        assert _as_unknown(fresh, store_a, ai) and _as_unknown(fresh, store_a, nail)
        assert _get(fresh, store_a, published.body["assets"][0]["sha256"])[0] in SERVED


def test_approval_publishes_the_style_images_but_never_the_ai_draft(hq: HQ, client: TestClient) -> None:
    _, store_a = new_kiosk(hq, client, "SH-0001")
    _, store_b = new_kiosk(hq, client, "SH-0002")
    draft_id, nail, ai = _submit(client, store_b, salt=2)
    rejected_id, rejected_nail, rejected_ai = _submit(client, store_b, salt=3)
    assert _as_unknown(client, store_a, nail)  # asked (and refused) before the approval: nothing remembered
    with db.write(hq.engine) as conn:
        drafts.approve(conn, draft_id, "hq:li.wang")
        drafts.reject(conn, rejected_id, "hq:li.wang", "颜色与品牌色不符")
    assert _get(client, store_a, nail)[0] in SERVED
    assert _as_unknown(client, store_a, ai)  # the raw AI image is never published
    assert _as_unknown(client, store_a, rejected_nail) and _as_unknown(client, store_a, rejected_ai)
    # A second revision replaces the style's images; the first version's stay fetchable (a kiosk catching up on
    # the feed may still ask for them).
    _, nail_2, _ = _submit(client, store_b, salt=6, draft_id=draft_id, rev=2)
    with db.write(hq.engine) as conn:
        drafts.approve(conn, draft_id, "hq:li.wang")
    with TestClient(create_app(hq)) as fresh:
        assert _get(fresh, store_a, nail_2)[0] in SERVED and _get(fresh, store_a, nail)[0] in SERVED
        assert _as_unknown(fresh, store_a, ai)


def test_a_published_image_in_a_draft_stays_public_and_shared_bytes_stay_each_stores(hq: HQ, client: TestClient,
                                                                                    tmp_path: Path) -> None:
    _, store_a = new_kiosk(hq, client, "SH-0001")
    _, store_b = new_kiosk(hq, client, "SH-0002")
    published = catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, salt=7), actor="test",
                                      publish=True)
    public = published.body["assets"][0]
    shared = png(20, 20, (1, 2, 3))
    upload(client, store_a, shared)
    upload(client, store_b, shared)
    for headers, salt in ((store_b, 8), (store_a, 9)):
        body = draft_body(client, headers, salt=salt)
        body["assets"] += [{"type": "COVER", "slot": "", "sha256": public["sha256"], "size": public["size"],
                            "format": public["format"], "width": public["width"], "height": public["height"]},
                           {"type": "TRY_ON_EXAMPLE", "slot": "", "sha256": sha(shared), "size": len(shared),
                            "format": "PNG", "width": 20, "height": 20}]
        assert client.put(f"/v1/drafts/{new_draft_id()}/revisions/1", headers=headers, json=body).status_code == 201
    with TestClient(create_app(hq)) as fresh:
        assert _get(fresh, store_a, public["sha256"])[0] in SERVED  # B's draft naming it does not make it B's
        assert _get(fresh, store_a, sha(shared))[0] in SERVED  # the same bytes in A's own draft: A has them
        _, _, only_b = _submit(fresh, store_b, salt=10)
        assert _as_unknown(fresh, store_a, only_b)
