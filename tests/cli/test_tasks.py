"""`nailmirror tasks …` against a real database in the test's NAILMIRROR_HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from nailmirror_desktop.cli import main
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.tasks import EngineConfig, ErrorClass, TaskEngine, TaskError

LIST_KEYS = {"task_no", "task_type", "status", "priority", "attempt_count", "max_attempts", "next_retry_time",
             "last_error_code", "last_error_message", "biz_type", "biz_id", "provider_task_id", "created_at",
             "finished_at"}


@pytest.fixture
def seeded():
    """One SUCCESS, one DEAD (content rejected), one PENDING."""
    with TaskEngine(database_path(), config=EngineConfig()) as engine:
        engine.register_handler("GEN", lambda ctx: (_ for _ in ()).throw(
            TaskError("MODERATION_BLOCKED", "prompt rejected", ErrorClass.CONTENT_REJECTED))
            if ctx.payload.get("bad") else {"style_code": "S-1"})
        ok = engine.submit("GEN", {"prompt": "奶白"}, biz_type="style", biz_id="S-1")
        dead = engine.submit("GEN", {"bad": True})
        engine.run_due()
        waiting = engine.submit("SYNC", {}, priority=2)
    return {"ok": ok.task_no, "dead": dead.task_no, "waiting": waiting.task_no}


def run_cli(capsys, *args):
    code = main(["tasks", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_list_json_has_the_documented_fields(capsys, seeded):
    code, out, _ = run_cli(capsys, "list", "--json")
    assert code == 0
    rows = json.loads(out)
    assert {r["task_no"] for r in rows} == set(seeded.values())
    for row in rows:
        assert set(row) >= LIST_KEYS
        assert row["created_at"].endswith("Z")
    dead = next(r for r in rows if r["task_no"] == seeded["dead"])
    assert dead["status"] == "DEAD" and dead["last_error_code"] == "MODERATION_BLOCKED"
    assert dead["finished_at"].endswith("Z")


def test_list_filters_by_status_and_type(capsys, seeded):
    _, out, _ = run_cli(capsys, "list", "--status", "DEAD", "--json")
    assert [r["task_no"] for r in json.loads(out)] == [seeded["dead"]]
    _, out, _ = run_cli(capsys, "list", "--type", "SYNC", "--json")
    assert [r["task_no"] for r in json.loads(out)] == [seeded["waiting"]]
    _, out, _ = run_cli(capsys, "list", "--status", "SUCCESS", "--status", "PENDING", "--json")
    assert {r["task_no"] for r in json.loads(out)} == {seeded["ok"], seeded["waiting"]}
    code, out, _ = run_cli(capsys, "list")
    assert code == 0 and seeded["dead"] in out and "MODERATION_BLOCKED" in out


def test_show_includes_payload_result_and_history(capsys, seeded):
    code, out, _ = run_cli(capsys, "show", seeded["dead"], "--json")
    shown = json.loads(out)
    assert code == 0 and shown["payload"] == {"bad": True}
    assert shown["history"][0]["kind"] == "DEAD" and shown["history"][0]["error_message"] == "prompt rejected"
    _, out, _ = run_cli(capsys, "show", seeded["ok"], "--json")
    assert json.loads(out)["result"] == {"style_code": "S-1"}
    code, _, err = run_cli(capsys, "show", "T-nope")
    assert code == 1 and "TASK_NOT_FOUND" in err


def test_stats(capsys, seeded):
    code, out, _ = run_cli(capsys, "stats", "--json")
    stats = json.loads(out)
    assert code == 0 and stats["by_status"]["DEAD"] == 1 and stats["open_dead_letters"] == 1
    assert stats["by_type"]["SYNC"] == {"PENDING": 1}


def test_replay_ignore_cancel(capsys, seeded):
    code, out, _ = run_cli(capsys, "replay", seeded["dead"], "--json")
    assert code == 0 and json.loads(out)["status"] == "PENDING"
    code, _, err = run_cli(capsys, "replay", seeded["ok"])
    assert code == 1 and "NOT_A_DEAD_LETTER" in err
    code, out, _ = run_cli(capsys, "cancel", seeded["waiting"])
    assert code == 0 and "CANCELED" in out
    code, _, err = run_cli(capsys, "cancel", seeded["waiting"])
    assert code == 1 and "NOT_CANCELABLE" in err
    code, _, err = run_cli(capsys, "ignore", seeded["ok"])
    assert code == 1


def test_ignore_a_dead_letter_through_the_real_entry_point(seeded):
    env = {**os.environ}
    proc = subprocess.run([sys.executable, "-m", "nailmirror_desktop", "tasks", "ignore", seeded["dead"], "--json"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["dead_letter_state"] == "IGNORED"
    proc = subprocess.run([sys.executable, "-m", "nailmirror_desktop", "tasks", "list", "--status", "DEAD", "--json"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert json.loads(proc.stdout)[0]["dead_letter_state"] == "IGNORED"


def test_a_reader_that_leaves_early_is_not_an_internal_error(seeded):
    """`nailmirror tasks list --json | head`: the pipe closes before the list is written; exit 0, nothing on stderr
    (it was "internal error (BrokenPipeError)", exit 5)."""
    proc = subprocess.Popen([sys.executable, "-m", "nailmirror_desktop", "tasks", "list", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ})
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone long before the interpreter has started
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 0, err
    assert err == ""


def test_a_db_option_naming_garbage_or_a_folder_is_one_line_and_exit_4(capsys, tmp_path):
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"SQLite format 2\0" + os.urandom(4000))
    for path, reason in ((garbage, "NOT_A_DATABASE"), (tmp_path, "NOT_A_DATABASE")):
        code = main(["tasks", "--db", str(path), "list"])
        err = capsys.readouterr().err
        assert code == 4 and len(err.strip().splitlines()) == 1 and reason in err and "Traceback" not in err, err
