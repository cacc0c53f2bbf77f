"""Token rotation: a kiosk gets a new token, the old one keeps working for the grace period and no longer;
revocation covers both; HQ keeps only hashes. SQLite and PostgreSQL."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from nailmirror_hq import clock, db, stores
from nailmirror_hq.schema import retired_token, store_token
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import new_kiosk


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "NM-Protocol": "1"}


def _hello(client: TestClient, headers: dict[str, str]) -> tuple[int, str | None]:
    answer = client.get("/v1/hello", headers=headers)
    return answer.status_code, answer.json().get("error")


def test_a_rotated_token_replaces_the_old_one_after_the_grace_period(hq: HQ, client: TestClient) -> None:
    _, old = new_kiosk(hq, client)
    old_token = old["Authorization"][7:]
    answer = client.post("/v1/auth/rotate", headers=old)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    new = _bearer(body["token"])
    assert body["token"].startswith("nmst_") and body["token"] != old_token
    assert body["old_valid_until"] > clock.now_text(stores.ROTATION_GRACE * 0.99)
    assert _hello(client, new) == (200, None) and _hello(client, old) == (200, None)  # within the grace
    with db.read(hq.engine) as conn:
        kept = repr(conn.execute(select(store_token)).all()) + repr(conn.execute(select(retired_token)).all())
    assert old_token not in kept and body["token"] not in kept and stores.sha256_text(body["token"]) in kept

    with db.write(hq.engine) as conn:  # the grace period ends
        conn.execute(update(retired_token).values(valid_until=clock.now_text(-stores.ROTATION_GRACE)))
    assert _hello(client, old) == (401, "token_invalid")
    assert _hello(client, new) == (200, None)


def test_a_rotation_whose_answer_was_lost_can_be_done_again_with_the_old_token(hq: HQ, client: TestClient) -> None:
    _, old = new_kiosk(hq, client)
    lost = client.post("/v1/auth/rotate", headers=old).json()["token"]  # the kiosk never stored this one
    again = client.post("/v1/auth/rotate", headers=old)
    assert again.status_code == 200
    for token in (lost, again.json()["token"]):
        assert _hello(client, _bearer(token)) == (200, None)
    assert _hello(client, old) == (200, None)


def test_revoking_a_kiosk_revokes_its_old_and_new_tokens(hq: HQ, client: TestClient) -> None:
    store_id, old = new_kiosk(hq, client)
    new = _bearer(client.post("/v1/auth/rotate", headers=old).json()["token"])
    with db.write(hq.engine) as conn:
        stores.revoke(conn, store_id, "test")
    assert _hello(client, old) == (401, "token_revoked") and _hello(client, new) == (401, "token_revoked")
    assert client.post("/v1/auth/rotate", headers=new).status_code == 401
    assert client.post("/v1/auth/rotate", headers=_bearer("nmst_nothing")).json()["error"] == "token_invalid"
