"""`nailmirror-hq` as a chain's scripts use it: the JSON keys they rely on, one-line errors, backup/restore
(in-process through the console script's `main`: tests/support/hq_cli.py), and as real processes where the
process is the point: `serve` on a real port (with the token kept out of its log), the console entry point's
exit codes, two HQs starting at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq.api.app import create_app
from nailmirror_hq.config import load_settings
from nailmirror_hq.service import open_hq
from tests.support.hq_cli import run_hq, run_hq_json
from tests.support.hq_fixtures import draft_body, enroll, new_draft_id, style_folder
from tests.support.hq_servers import free_port, wait_port

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


def run(env: dict[str, str], *args: str, stdin: str = "", ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = run_hq(env, *args, stdin=stdin)
    if ok:
        assert done.returncode == 0, done.stderr
    return done


def run_process(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m nailmirror_hq ARGS` in a process of its own."""
    return subprocess.run([sys.executable, "-m", "nailmirror_hq", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def _client(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> TestClient:
    """The same HQ (same database) in-process, as a kiosk talks to it."""
    for key in ("NAILMIRROR_HQ_DATABASE_URL", "NAILMIRROR_HQ_STARTER_CATALOG", "NAILMIRROR_HQ_HOME"):
        monkeypatch.setenv(key, env[key]) if key in env else monkeypatch.delenv(key, raising=False)
    return TestClient(create_app(open_hq(load_settings())))


def test_chain_workflow_from_the_command_line(hq_env: dict[str, str], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    env = hq_env
    added = run_hq_json(env, "stores", "add", "SH-0012", "--channel", "cn-all")
    assert added["store_id"] == "st_SH-0012" and len(added["enrollment_code"]) == 19
    # --data and --json before or after the subcommand
    data = env.pop("NAILMIRROR_HQ_HOME")
    listed = json.loads(run(env, "--data", data, "--json", "stores", "list").stdout)
    assert [(s["store_id"], s["channel"], s["status"]) for s in listed] == [("st_SH-0012", "cn-all", "ACTIVE")]
    env["NAILMIRROR_HQ_HOME"] = data

    imported = run_hq_json(env, "styles", "import", str(style_folder(tmp_path)), "--publish")
    assert imported["status"] == "PUBLISHED" and imported["style_id"]

    client = _client(env, monkeypatch)
    headers = enroll(client, added["enrollment_code"])
    snapshot = client.get("/v1/catalog/snapshot", headers=headers).json()
    assert [s["id"] for s in snapshot["styles"]] == [imported["style_id"]]

    draft_id = new_draft_id()
    assert client.put(f"/v1/drafts/{draft_id}/revisions/1", headers=headers,
                      json=draft_body(client, headers)).status_code == 201
    drafts = run_hq_json(env, "drafts", "list", "--status", "PENDING_REVIEW")
    assert [{k: d[k] for k in ("draft_id", "status", "store_id", "name")} for d in drafts] == [
        {"draft_id": draft_id, "status": "PENDING_REVIEW", "store_id": "st_SH-0012", "name": "奶白贝壳猫眼"}]
    approved = run_hq_json(env, "drafts", "approve", draft_id)
    assert approved["status"] == "APPROVED" and approved["style_id"] == draft_id
    again = run(env, "drafts", "reject", draft_id, "--reason", "late", ok=False)
    assert again.returncode == 1 and "already_decided" in again.stderr and len(again.stderr.splitlines()) == 1
    changes = client.get("/v1/catalog/changes", params={"since": snapshot["cursor"]}, headers=headers).json()
    assert draft_id in [c["id"] for c in changes["changes"]]

    down = run_hq_json(env, "styles", "take-down", imported["style_code"])
    assert down["status"] == "WITHDRAWN"

    run(env, "stores", "revoke", "st_SH-0012")
    assert client.get("/v1/hello", headers=headers).json()["error"] == "token_revoked"
    code = run_hq_json(env, "stores", "enroll-code", "st_SH-0012")["enrollment_code"]
    assert client.get("/v1/hello", headers=enroll(client, code, "replacement PC")).status_code == 200


def test_reviewers_and_bad_input_get_one_line_errors(hq_env: dict[str, str], tmp_path: Path) -> None:
    env = hq_env
    assert run_hq_json(env, "reviewers", "add", "li.wang", "--password-stdin", stdin="correct horse battery\n") == {
        "name": "li.wang", "role": "content_reviewer"}  # no --role: the least that still reviews (issue 25.6)
    assert run_hq_json(env, "reviewers", "add", "wang.ops", "--password-stdin", "--role", "ops_admin",
                       "--display-name", "王丽", stdin="correct horse battery\n")["role"] == "ops_admin"
    assert run_hq_json(env, "reviewers", "set-role", "li.wang", "content_editor") == {
        "name": "li.wang", "role": "content_editor"}
    short = run(env, "reviewers", "add", "zhang", "--password-stdin", stdin="short\n", ok=False)
    dup = run(env, "reviewers", "add", "li.wang", "--password-stdin", stdin="another long one\n", ok=False)
    missing = run(env, "styles", "import", str(tmp_path / "nope"), ok=False)
    unknown = run(env, "drafts", "approve", new_draft_id(), ok=False)
    bad_role = run(env, "reviewers", "add", "zhang", "--password-stdin", "--role", "boss", stdin="long enough pw\n",
                   ok=False)
    nobody = run(env, "reviewers", "set-role", "nobody", "ops_admin", ok=False)
    for done in (short, dup, missing, unknown, bad_role, nobody):
        assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr
    assert "content_reviewer, content_editor, ops_admin" in bad_role.stderr
    run(env, "reviewers", "disable", "li.wang")
    listed = run_hq_json(env, "reviewers", "list")
    assert [(r["name"], r["role"], r["display_name"]) for r in listed] == [
        ("li.wang", "content_editor", None), ("wang.ops", "ops_admin", "王丽")]
    assert listed[0]["disabled_at"]
    assert "role=ops_admin" in run(env, "reviewers", "list").stdout
    assert run(env, "stores", "add", ok=False).returncode == 2  # argparse: bad command line


def test_restore_starts_a_new_epoch(hq_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = hq_env
    added = run_hq_json(env, "stores", "add", "SH-0012")
    first = run_hq_json(env, "styles", "import", str(style_folder(tmp_path, salt=1)), "--publish")
    client = _client(env, monkeypatch)
    headers = enroll(client, added["enrollment_code"])
    before = client.get("/v1/catalog/snapshot", headers=headers).json()
    manifest = run_hq_json(env, "backup", str(tmp_path / "backup"))
    assert manifest["blobs"] >= 3 and manifest["epoch"] == before["epoch"]
    run_hq_json(env, "styles", "import", str(style_folder(tmp_path, salt=2)), "--publish")  # lost by the restore
    restored = run_hq_json(env, "restore", str(tmp_path / "backup"))
    assert restored["epoch"] != before["epoch"] and restored["from_epoch"] == before["epoch"]
    stale = client.get("/v1/catalog/changes", params={"since": before["cursor"]}, headers=headers)
    assert stale.status_code == 410 and stale.json()["details"]["reason"] == "epoch_changed"
    after = client.get("/v1/catalog/snapshot", headers=headers).json()  # the token survived the restore
    assert [s["id"] for s in after["styles"]] == [first["style_id"]] and after["epoch"] == restored["epoch"]
    assert after["state"] == before["state"]
    assert run(env, "restore", str(tmp_path), ok=False).returncode == 1  # not a backup: refused, nothing lost
    assert run_hq_json(env, "styles", "list", "--status", "PUBLISHED")[0]["style_id"] == first["style_id"]


@pytest.mark.slow  # real processes
def test_serve_answers_on_its_port_and_never_logs_the_token(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_HQ_STARTER_CATALOG": ""}
    env.pop("NAILMIRROR_HQ_DATABASE_URL", None)
    data = str(tmp_path / "hq")
    added = run_process(env, "stores", "add", "SH-0012", "--data", data, "--json")  # the console entry point
    assert added.returncode == 0, added.stderr
    code = json.loads(added.stdout)["enrollment_code"]
    refused = run_process(env, "stores", "revoke", "st_NOPE", "--data", data)
    assert refused.returncode == 1 and len(refused.stderr.splitlines()) == 1 and "Traceback" not in refused.stderr
    port = free_port()
    log = open(tmp_path / "serve.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "nailmirror_hq", "serve", "--port", str(port), "--data", data],
                            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert wait_port(port, 60), (tmp_path / "serve.log").read_text()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
            assert json.loads(answer.read())["status"] == "ok"
        wrong = urllib.request.Request(f"http://127.0.0.1:{port}/v1/enroll", method="POST",
                                       data=json.dumps({"nm": 1, "code": "0000-0000"}).encode(),
                                       headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused_code:
            urllib.request.urlopen(wrong, timeout=10)
        assert refused_code.value.code == 400
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/enroll", method="POST",
                                         data=json.dumps({"nm": 1, "code": code}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            token = json.loads(answer.read())["token"]
        hello = urllib.request.Request(f"http://127.0.0.1:{port}/v1/hello",
                                       headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(hello, timeout=10) as answer:
            assert answer.status == 200
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
        log.close()
    text = (tmp_path / "serve.log").read_text()
    assert "GET /v1/hello" in text and token not in text and code not in text
    assert "enrollment refused: unknown code from 127.0.0.1" in text  # HQ's own log lines reach serve's output


@pytest.mark.slow  # real processes
def test_two_hq_processes_starting_together_load_the_starter_catalog_once(hq_env: dict[str, str]) -> None:
    env = {**hq_env}
    env.pop("NAILMIRROR_HQ_STARTER_CATALOG")  # the real starter catalog, as a new HQ loads it
    procs = [subprocess.Popen([sys.executable, "-m", "nailmirror_hq", "--json", "styles", "list"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [proc.communicate(timeout=300) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], [err for _, err in outputs]
    listed = run_hq_json(env, "styles", "list", "--status", "PUBLISHED")
    expected = len(json.loads((ROOT / "resources" / "starter_catalog" / "catalog.json").read_text())["styles"])
    assert len(listed) == expected and len({s["style_id"] for s in listed}) == expected


def test_styles_publish_to_chosen_channels_and_stores_move(hq_env: dict[str, str], tmp_path: Path) -> None:
    env = hq_env
    run_hq_json(env, "stores", "add", "N-1", "--channel", "north")
    run_hq_json(env, "stores", "add", "S-1", "--channel", "south")
    style_id = run_hq_json(env, "styles", "import", str(style_folder(tmp_path)))["style_id"]
    published = run_hq_json(env, "styles", "publish", style_id, "--channel", "north", "--channel", "north")
    assert published["status"] == "PUBLISHED" and published["channels"] == ["north"]
    assert not published["every_channel"]
    typo = run(env, "styles", "publish", style_id, "--channel", "nrth", ok=False)
    assert typo.returncode == 1 and "no channel nrth" in typo.stderr and len(typo.stderr.splitlines()) == 1
    both = run(env, "styles", "publish", style_id, "--channel", "north", "--every-channel", ok=False)
    assert both.returncode == 1 and len(both.stderr.splitlines()) == 1
    wide = run_hq_json(env, "styles", "publish", style_id, "--every-channel")
    assert wide["channels"] == [] and wide["every_channel"] and wide["version"] > published["version"]
    moved = run_hq_json(env, "stores", "move", "st_N-1", "--channel", "south")
    assert moved == {"store_id": "st_N-1", "channel": "south"}
    assert [s["channel"] for s in run_hq_json(env, "stores", "list")] == ["south", "south"]


def test_categories_add_list_rename(hq_env: dict[str, str]) -> None:
    env = hq_env
    added = run_hq_json(env, "categories", "add", "french", "--zh", "法式", "--en", "French", "--sort-order", "2")
    assert added == {"code": "french", "name_zh": "法式", "name_en": "French", "sort_order": 2, "version": 1}
    renamed = run_hq_json(env, "categories", "rename", "french", "--en", "French tips")
    assert renamed["version"] == 2 and renamed["name_zh"] == "法式" and renamed["name_en"] == "French tips"
    assert [c["name_en"] for c in run_hq_json(env, "categories", "list")] == ["French tips"]
    missing = run(env, "categories", "rename", "nope", "--zh", "无", ok=False)
    assert missing.returncode == 1 and len(missing.stderr.splitlines()) == 1
    run_hq_json(env, "tags", "add", "shell", "--zh", "贝壳")
    assert [t["code"] for t in run_hq_json(env, "tags", "list")] == ["shell"]


def test_maintain_runs_once_and_refuses_a_short_retention(hq_env: dict[str, str]) -> None:
    env = hq_env
    done = run_hq_json(env, "maintain")
    assert done == {"changes_dropped": {"all": 0}, "blobs_deleted": 0, "captures_expired": 0, "rollouts": {}}
    short = run(env, "maintain", "--retention-days", "0", ok=False)
    assert short.returncode == 1 and len(short.stderr.splitlines()) == 1
