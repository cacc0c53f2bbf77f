"""`nailmirror export …` on a real kiosk database whose rows the task engine, the credit ledger and the style
commands wrote, read back from the CSV and JSON the salon's accountant gets."""

from __future__ import annotations

import csv
import io
import json
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from nailmirror_desktop.cli import main
from nailmirror_desktop.core.clock import ManualClock, to_ms
from nailmirror_desktop.core.credits import ledger
from nailmirror_desktop.core.credits.policy import DEFAULT_STORE_ID
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.tasks import TaskEngine
from tests.support.style_fixtures import make_style_folder

JANUARY = datetime(2026, 1, 10, 8, 30, tzinfo=UTC).timestamp()
MARCH = datetime(2026, 3, 2, 12, 0, 0, 250000, tzinfo=UTC).timestamp()


def export(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["export", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def tasks() -> list[str]:
    """Two tasks, one made in January and done, one made in March and still waiting; their task numbers."""
    clock = ManualClock(JANUARY)
    with TaskEngine(database_path(), clock=clock) as engine:
        engine.register_handler("STYLE_GENERATION", lambda ctx: {"images": 1})
        done = engine.submit("STYLE_GENERATION", {"prompt": "客人的描述"}, provider="openai", request_source="cli")
        engine.run_due()
        clock.advance(MARCH - JANUARY)
        waiting = engine.submit("STYLE_GENERATION", {"prompt": "另一位"}, request_source="cli",
                                scheduled_time=MARCH + 3600)
        return [done.task_no, waiting.task_no]


@pytest.fixture
def books(tasks: list[str]) -> list[str]:
    """The ledger: an opening grant in January, a paid generation (2 images asked, 1 delivered) in March."""
    conn = open_database(database_path())
    try:
        ledger.apply_grant(conn, DEFAULT_STORE_ID, "g-open", 10, "开业赠送", to_ms(JANUARY))
        ledger.apply_grant(conn, DEFAULT_STORE_ID, "g-odd", 1, "=HYPERLINK(\"http://x\")", to_ms(JANUARY) + 1)
        charge = ledger.Charge(task_no=tasks[0], provider="openai", model="gpt-image-1", unit_price=2,
                               variations=2, session_id=None, request_source="cli", daily_cap=0, session_cap=0,
                               day_start_ms=to_ms(MARCH) - 3_600_000, day_end_ms=to_ms(MARCH) + 3_600_000)
        ledger.pre_deduct(conn, DEFAULT_STORE_ID, charge, to_ms(MARCH))
        ledger.settle(conn, tasks[0], 1, "one image delivered", to_ms(MARCH) + 5000)
    finally:
        conn.close()
    return tasks


def test_the_ledger_as_csv_has_every_entry_with_utc_times_in_a_stable_order(capsys, books):
    code, out, err = export(capsys, "ledger", "--csv")
    assert (code, err) == (0, "")
    header = out.splitlines()[0].split(",")
    assert header[:8] == ["id", "account_id", "kind", "status", "amount", "confirmed_amount", "funded", "grant_id"]
    assert header[-4:] == ["upload_id", "uploaded_at", "upload_error", "grant_sig"]  # migrations add at the end
    rows = csv_rows(out)
    assert [(r["kind"], r["status"], r["amount"], r["confirmed_amount"]) for r in rows] == [
        ("GRANT", "CONFIRMED", "10", "0"), ("GRANT", "CONFIRMED", "1", "0"), ("CHARGE", "CONFIRMED", "4", "2")]
    opening, odd, charge = rows
    assert opening["reason"] == "开业赠送" and opening["created_at"] == "2026-01-10T08:30:00.000Z"
    assert odd["reason"] == "'=HYPERLINK(\"http://x\")"  # a spreadsheet shows it, never runs it
    assert charge["biz_id"] == books[0] and charge["model"] == "gpt-image-1"
    assert (charge["created_at"], charge["settled_at"]) == ("2026-03-02T12:00:00.250Z", "2026-03-02T12:00:05.250Z")
    assert charge["note"] == "one image delivered" and charge["grant_id"] == "" and charge["uploaded_at"] == ""


def test_the_ledger_as_json_keeps_values_as_stored_and_since_cuts_by_creation(capsys, books):
    code, out, _ = export(capsys, "ledger", "--json")
    assert code == 0
    entries = json.loads(out)
    assert [e["amount"] for e in entries] == [10, 1, 4]
    assert entries[1]["reason"] == "=HYPERLINK(\"http://x\")" and entries[2]["grant_id"] is None
    assert list(entries[0])[:3] == ["id", "account_id", "kind"]
    code, out, _ = export(capsys, "ledger", "--json", "--since", "2026-02-01")
    assert [e["kind"] for e in json.loads(out)] == ["CHARGE"]
    code, out, _ = export(capsys, "ledger", "--json", "--since", "2026-03-02T20:00:00+08:00")  # 12:00 UTC
    assert [e["created_at"] for e in json.loads(out)] == ["2026-03-02T12:00:00.250Z"]
    assert json.loads(export(capsys, "ledger", "--json", "--since", "2027-01-01")[1]) == []


def test_tasks_are_led_by_their_number_and_leave_the_customers_prompt_out(capsys, tasks):
    code, out, _ = export(capsys, "tasks", "--json")
    assert code == 0
    done, waiting = json.loads(out)
    assert list(done)[:3] == ["task_no", "id", "task_type"]
    assert [done["task_no"], waiting["task_no"]] == tasks
    assert "request_payload" not in done and "result_payload" not in done and "客人" not in out
    assert (done["status"], done["provider"], done["created_at"]) == ("SUCCESS", "openai", "2026-01-10T08:30:00.000Z")
    assert done["finished_at"].endswith("Z") and waiting["finished_at"] is None
    assert waiting["scheduled_time"] == "2026-03-02T13:00:00.250Z"
    rows = csv_rows(export(capsys, "tasks", "--csv", "--since", "2026-03-01")[1])
    assert [(r["task_no"], r["status"], r["finished_at"]) for r in rows] == [(tasks[1], "PENDING", "")]


def test_the_audit_log_lists_each_review_step(capsys, tmp_path):
    assert main(["styles", "import", str(make_style_folder(tmp_path / "shell"))]) == 0
    style_code = capsys.readouterr().out.strip()
    assert main(["styles", "submit", style_code]) == 0
    code, out, _ = export(capsys, "audit", "--csv")
    assert code == 0
    rows = csv_rows(out)
    assert list(rows[0])[:4] == ["id", "entity_type", "entity_id", "action"]
    assert {r["actor"] for r in rows[:-2]} == {"starter_catalog"}  # the first start imported the shipped catalog
    assert [(r["action"], r["to_status"]) for r in rows[-2:]] == [("CREATE", "DRAFT"), ("SUBMIT", "PENDING_REVIEW")]
    assert [int(r["id"]) for r in rows] == sorted(int(r["id"]) for r in rows)
    assert all(datetime.fromisoformat(r["created_at"]).tzinfo is UTC for r in rows)
    today = datetime.now(UTC).date()
    assert len(json.loads(export(capsys, "audit", "--json", "--since", today.isoformat())[1])) == len(rows)
    assert json.loads(export(capsys, "audit", "--json", "--since", f"{today.year + 1}-01-01")[1]) == []


def test_out_writes_an_owner_only_file_excel_reads_as_utf8(capsys, books, tmp_path):
    target = tmp_path / "ledger.csv"
    code, out, err = export(capsys, "ledger", "--csv", "--out", str(target))
    assert (code, out, err.strip()) == (0, "", f"wrote 3 ledger row(s) to {target}")
    data = target.read_bytes()
    assert data.startswith(b"\xef\xbb\xbfid,account_id,")
    assert csv_rows(data.decode("utf-8-sig"))[0]["reason"] == "开业赠送"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    json_target = tmp_path / "tasks.json"
    assert export(capsys, "tasks", "--json", "--out", str(json_target))[0] == 0
    assert len(json.loads(json_target.read_text(encoding="utf-8"))) == 2
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_an_empty_database_exports_headers_and_an_empty_array(capsys):
    code, out, _ = export(capsys, "audit", "--csv")
    assert (code, out.strip()) == (0, "id,entity_type,entity_id,action,from_status,to_status,reason,actor,"
                                      "detail_json,created_at")
    assert export(capsys, "tasks", "--json")[1] == "[]\n"


def test_errors_are_one_line_with_the_usual_exit_statuses(capsys, tmp_path):
    code, out, err = export(capsys, "ledger", "--csv", "--since", "last tuesday")
    assert (code, out) == (2, "") and err.count("\n") == 1 and "SINCE_INVALID" in err
    code, _, err = export(capsys, "ledger", "--json", "--out", str(tmp_path / "missing" / "x.json"))
    assert code == 1 and err.count("\n") == 1 and err.startswith("error: OUT_UNWRITABLE")
    (tmp_path / "garbage.db").write_bytes(b"this is not a database" * 100)
    code, _, err = export(capsys, "tasks", "--csv", "--db", str(tmp_path / "garbage.db"))
    assert code == 4 and err.count("\n") == 1 and "NOT_A_DATABASE" in err
    for argv in (["ledger"], ["ledger", "--csv", "--json"], ["payroll", "--csv"]):
        with pytest.raises(SystemExit) as exit_:
            main(["export", *argv])
        assert exit_.value.code == 2
    assert not Path(database_path()).with_name("missing").exists()
