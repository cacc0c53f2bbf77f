"""`nailmirror-hq kiosks list|rename|revoke|replace|ask` (issue #25 §8): a chain's scripts see the fleet page's
data and actions as JSON, and bad input gets one line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq.api.app import create_app
from nailmirror_hq.config import load_settings
from nailmirror_hq.service import open_hq
from tests.support.hq_cli import run_hq, run_hq_json
from tests.support.hq_fixtures import enroll

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def hq_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_HQ_STARTER_CATALOG": ""}
    env.pop("NAILMIRROR_HQ_DATABASE_URL", None)
    env.pop("NAILMIRROR_HQ_BLOBS", None)
    if request.param == "postgresql":
        env["NAILMIRROR_HQ_DATABASE_URL"] = request.getfixturevalue("pg_cluster").new_database()
    env["NAILMIRROR_HQ_HOME"] = str(tmp_path / "hq")
    return env


@pytest.mark.slow
def test_kiosks_from_the_command_line(hq_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    env = hq_env
    code = run_hq_json(env, "stores", "add", "SH-0012")["enrollment_code"]
    for key in ("NAILMIRROR_HQ_DATABASE_URL", "NAILMIRROR_HQ_STARTER_CATALOG", "NAILMIRROR_HQ_HOME"):
        monkeypatch.setenv(key, env[key]) if key in env else monkeypatch.delenv(key, raising=False)
    with TestClient(create_app(open_hq(load_settings()))) as client:
        headers = enroll(client, code, "front desk")
        (listed,) = run_hq_json(env, "kiosks", "list")
        assert listed["name"] == "front desk" and listed["store_id"] == "st_SH-0012"
        assert listed["problems"] == ["not_seen"] and listed["requests"] == []
        assert run_hq_json(env, "kiosks", "list", "--filter", "failed_downloads") == []
        asked = run_hq_json(env, "kiosks", "ask", "front desk", "retry_downloads")
        assert client.get("/v1/hello", headers=headers).json()["fleet_requests"] == [
            {"id": asked["request_id"], "kind": "retry_downloads"}]
        renamed = run_hq_json(env, "kiosks", "rename", listed["kiosk_id"], "  Window   seat ")
        assert renamed == {"kiosk_id": listed["kiosk_id"], "name": "Window seat"}
        replaced = run_hq_json(env, "kiosks", "replace", "Window seat", "--code")
        assert replaced["replaces_kiosk_id"] == listed["kiosk_id"] and replaced["enrollment_code"]
        new = enroll(client, replaced["enrollment_code"], "new PC")
        assert client.get("/v1/hello", headers=headers).json()["error"] == "token_revoked"
        revoked = run_hq_json(env, "kiosks", "revoke", "new PC")
        assert revoked["revoked"] is True and client.get("/v1/hello", headers=new).status_code == 401
    for args, words in [(("kiosks", "revoke", "nobody"), "no such kiosk nobody"),
                        (("kiosks", "rename", "new PC", ""), "1 to 60 printable characters"),
                        (("kiosks", "ask", "new PC", "resync"), "is revoked")]:
        done = run_hq(env, *args)
        assert done.returncode == 1 and words in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    assert run_hq(env, "kiosks", "ask", "new PC", "format_disk").returncode == 2  # not a request HQ can make
