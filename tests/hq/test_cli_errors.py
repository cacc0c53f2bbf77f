"""`nailmirror-hq` beyond its commands: the schema is migrated only when it is behind, and an internal error is
one line on the terminal with its traceback in the error log (the kiosk CLI's rules)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nailmirror_hq import stores
from nailmirror_hq.cli import ERROR_LOG_NAME, main

ROOT = Path(__file__).resolve().parents[2]
LOADED = ("import sys; from nailmirror_hq.cli import main; code = main(sys.argv[1:]);"
          " print('alembic' in sys.modules, code)")


def test_a_command_on_a_current_database_does_not_load_the_migrations(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_HQ_STARTER_CATALOG": ""}
    env.pop("NAILMIRROR_HQ_DATABASE_URL", None)
    env.pop("NAILMIRROR_HQ_BLOBS", None)

    def list_stores() -> str:
        done = subprocess.run([sys.executable, "-c", LOADED, "--data", str(tmp_path / "hq"), "stores", "list"],
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()[-1]

    assert list_stores() == "True 0"  # a new database: migrated
    assert list_stores() == "False 0"  # current: alembic is never imported


def test_an_internal_error_is_one_line_and_its_traceback_goes_to_the_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("NAILMIRROR_HQ_STARTER_CATALOG", "")
    monkeypatch.delenv("NAILMIRROR_HQ_DATABASE_URL", raising=False)
    monkeypatch.delenv("NAILMIRROR_HQ_BLOBS", raising=False)

    def broken(*_args: object) -> list[object]:
        raise ZeroDivisionError("a bug in HQ")

    monkeypatch.setattr(stores, "list_stores", broken)
    data = tmp_path / "hq"
    assert main(["--data", str(data), "stores", "list"]) == 5
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "ZeroDivisionError" in err and str(data / ERROR_LOG_NAME) in err
    log = (data / ERROR_LOG_NAME).read_text(encoding="utf-8")
    assert "Traceback" in log and "a bug in HQ" in log
    assert (data / ERROR_LOG_NAME).stat().st_mode & 0o777 == 0o600
