"""HQ's capture routes and domain (nailmirror_hq/captures.py) on SQLite, PostgreSQL and PostgreSQL + S3: a
capture is kept only with a consent record; a replay is 200, another image under its code 409; a kiosk token
reads nothing back; a withdrawal is kept and answers the next upload 410; every read is audited; retention
deletes what is older than the chain's age; the CLI lists, shows and withdraws."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from nailmirror_hq import captures, db, maintenance
from nailmirror_hq.errors import HQError
from nailmirror_hq.schema import audit_log, capture, capture_dataset, capture_withdrawal
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import new_kiosk, png

ROOT = Path(__file__).resolve().parents[3]
CODE = "K7QH3MPX"


def _body(image: bytes, code: str = CODE, **changes: Any) -> dict[str, Any]:
    body = {"nm": 1, "code": code, "image_png_b64": base64.b64encode(image).decode(),
            "image_sha256": hashlib.sha256(image).hexdigest(), "taken_at": "2026-12-04T10:00:00.000Z",
            "consent": {"by": "customer", "at": "2026-12-04T10:00:00.000Z", "text_version": "v1"},
            "model_version": "nail_segmenter-2ae635817291", "facts": {"hands": [], "faces_blurred": 0}}
    body.update(changes)
    return body


def test_a_consented_capture_is_kept_apart_and_no_kiosk_token_reads_it(hq: HQ, client: TestClient) -> None:
    store_id, headers = new_kiosk(hq, client)
    image = png(40, 30, salt=7)
    put = client.put(f"/v1/captures/{CODE[:4]}-{CODE[4:]}", json=_body(image), headers=headers)
    assert put.status_code == 201 and put.json() == {"nm": 1, "code": CODE, "held": True}
    assert client.put(f"/v1/captures/{CODE}", json=_body(image), headers=headers).status_code == 200  # a replay
    other = client.put(f"/v1/captures/{CODE}", json=_body(png(40, 30, salt=8)), headers=headers)
    assert other.status_code == 409 and other.json()["error"] == "capture_conflict"
    sha256 = hashlib.sha256(image).hexdigest()
    assert hq.require_captures().has(sha256) and not hq.blobs.has(sha256)  # apart from the style blobs
    for path in (f"/v1/blobs/{sha256}", f"/v1/captures/{CODE}", f"/v1/captures/{CODE}/image"):
        assert client.get(path, headers=headers).status_code in (404, 405), path
    with db.read(hq.engine) as conn:
        row = conn.execute(select(capture)).one()
    assert (row.store_id, row.consent_by, row.width, row.height) == (store_id, "customer", 40, 30)


@pytest.mark.parametrize("change", [
    {"consent": None}, {"consent": {"by": "nobody", "at": "t", "text_version": "v"}},
    {"consent": {"by": "customer", "at": "t", "text_version": ""}}, {"model_version": ""},
    {"image_png_b64": "***"}, {"image_sha256": "0" * 64}, {"facts": "x"}, {"code": "23456789"},
])
def test_a_capture_without_consent_or_malformed_is_refused_in_one_line(hq_sqlite: HQ, change: dict[str, Any]) -> None:
    hq = hq_sqlite  # the checks are the same on every backend
    from nailmirror_hq.api.app import create_app

    client = TestClient(create_app(hq))
    _, headers = new_kiosk(hq, client)
    answer = client.put(f"/v1/captures/{CODE}", json=_body(png(), **change), headers=headers)
    assert answer.status_code == 400 and "\n" not in answer.json()["message"], answer.json()
    with db.read(hq.engine) as conn:
        assert conn.execute(select(capture)).first() is None
    assert client.put("/v1/captures/not-a-code", json=_body(png()), headers=headers).status_code == 400


def test_a_withdrawal_deletes_everywhere_hq_keeps_it_and_refuses_the_code_after(hq: HQ,
                                                                              client: TestClient) -> None:
    _, headers = new_kiosk(hq, client)
    image = png(salt=3)
    client.put(f"/v1/captures/{CODE}", json=_body(image), headers=headers)
    with db.write(hq.engine) as conn:
        captures.add_to_dataset(conn, "train-2026-12", CODE)
    answer = client.post(f"/v1/captures/{CODE.lower()}/withdraw", headers=headers)
    assert answer.status_code == 200 and answer.json() == {"nm": 1, "code": CODE, "withdrawn": True}
    with db.read(hq.engine) as conn:
        assert conn.execute(select(capture)).first() is None
        assert conn.execute(select(capture_dataset)).first() is None
        kept = conn.execute(select(capture_withdrawal)).one()
    assert (kept.held, json.loads(kept.datasets)) == (1, ["train-2026-12"])
    assert not hq.require_captures().has(hashlib.sha256(image).hexdigest())
    late = client.put(f"/v1/captures/{CODE}", json=_body(image), headers=headers)  # a copy still on its way
    assert late.status_code == 410 and late.json()["error"] == "capture_withdrawn"
    assert client.post(f"/v1/captures/{CODE}/withdraw", headers=headers).status_code == 200  # again: same answer
    assert client.post("/v1/captures/23456789/withdraw").status_code == 401  # a kiosk's token, always


def test_every_read_goes_through_the_permission_and_is_audited(hq: HQ, client: TestClient) -> None:
    _, headers = new_kiosk(hq, client)
    client.put(f"/v1/captures/{CODE}", json=_body(png(salt=4)), headers=headers)
    with pytest.raises(HQError) as refused:
        captures.list_captures(hq.engine, None)
    assert refused.value.status == 403
    reader = captures.Operator("labeller-li")
    assert [r.code for r in captures.list_captures(hq.engine, reader)] == [CODE]
    assert captures.show(hq.engine, reader, CODE).facts == {"hands": [], "faces_blurred": 0}
    assert captures.read_image(hq.engine, hq.require_captures(), reader, CODE).startswith(b"\x89PNG")
    assert captures.counts(hq.engine, reader)[0]["captures"] == 1
    with db.read(hq.engine) as conn:
        reads = [(r.actor, r.action) for r in conn.execute(select(audit_log).where(
            audit_log.c.entity_type == "capture").order_by(audit_log.c.id)).all() if r.actor == "labeller-li"]
    assert reads == [("labeller-li", a) for a in ("CAPTURE_LIST", "CAPTURE_SHOW", "CAPTURE_IMAGE",
                                                   "CAPTURE_COUNTS")]


def test_retention_deletes_captures_past_the_chains_age_used_or_not(hq: HQ, client: TestClient) -> None:
    _, headers = new_kiosk(hq, client)
    old, young = png(salt=5), png(salt=6)
    client.put(f"/v1/captures/{CODE}", json=_body(old), headers=headers)
    client.put("/v1/captures/23456789", json=_body(young, code="23456789"), headers=headers)
    with db.write(hq.engine) as conn:
        captures.add_to_dataset(conn, "train-1", CODE)  # used by a training: deleted all the same
        conn.execute(update(capture).where(capture.c.code == CODE).values(received_at="2020-01-01T00:00:00.000Z"))
    result = maintenance.run(hq.engine, hq.blobs, capture_store=hq.require_captures(),
                             capture_retention=timedelta(days=180))
    assert result.captures_expired == [CODE]
    assert [r.code for r in captures.list_captures(hq.engine, captures.Operator("t"))] == ["23456789"]
    assert not hq.require_captures().has(hashlib.sha256(old).hexdigest())
    assert hq.require_captures().has(hashlib.sha256(young).hexdigest())


@pytest.mark.slow
def test_the_cli_lists_shows_and_withdraws(hq_sqlite: HQ, tmp_path: Path) -> None:
    hq = hq_sqlite
    from nailmirror_hq.api.app import create_app

    with TestClient(create_app(hq)) as client:
        _, headers = new_kiosk(hq, client)
        client.put(f"/v1/captures/{CODE}", json=_body(png(salt=9)), headers=headers)

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        env = {"PYTHONPATH": str(ROOT), "NAILMIRROR_HQ_STARTER_CATALOG": "", "PATH": "/usr/bin:/bin"}
        return subprocess.run([sys.executable, "-m", "nailmirror_hq", "--data", str(hq.settings.data_dir), *argv],
                              env=env, capture_output=True, text=True, timeout=120)

    listed = cli("captures", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert rows[0]["code"] == "K7QH-3MPX" and rows[-1]["captures"] == 1
    image = tmp_path / "out.png"
    shown = cli("captures", "show", "k7qh-3mpx", "--image", str(image), "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["consent_by"] == "customer"
    assert image.read_bytes().startswith(b"\x89PNG") and image.stat().st_mode & 0o077 == 0
    gone = cli("captures", "withdraw", "K7QH-3MPX", "--json")
    assert gone.returncode == 0 and json.loads(gone.stdout)["held"] is True
    missing = cli("captures", "show", "K7QH-3MPX")
    assert missing.returncode == 1 and len(missing.stderr.strip().splitlines()) == 1
    bad = cli("captures", "withdraw", "nope")
    assert bad.returncode == 1 and "not a capture code" in bad.stderr and "Traceback" not in bad.stderr
