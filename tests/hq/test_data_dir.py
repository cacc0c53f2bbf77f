"""HQ's data directory (issue 25.4): bound to the backend it belongs to, so a start that forgot the scale-out
variables is refused in one line instead of starting a second, empty HQ."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nailmirror_hq import data_dir, db, stores
from nailmirror_hq.config import Settings
from nailmirror_hq.service import HQ, open_hq
from tests.hq.conftest import make_hq
from tests.support.hq_cli import run_hq

ROOT = Path(__file__).resolve().parents[2]


def _env(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NAILMIRROR_HQ_")}
    return {**env, "NAILMIRROR_HQ_HOME": str(data), "NAILMIRROR_HQ_STARTER_CATALOG": "", **extra}


def _sqlite_files(data: Path) -> list[Path]:
    return [p for p in data.iterdir() if p.name.startswith("hq.sqlite3")]


def test_a_directory_from_before_the_record_is_stamped_at_its_first_start_which_says_so(tmp_path: Path) -> None:
    data = tmp_path / "hq"
    assert run_hq(_env(data), "stores", "list").stderr == ""  # a new directory is stamped quietly
    (data / data_dir.BACKEND_RECORD).unlink()  # as an older build left it
    first = run_hq(_env(data), "stores", "list")
    assert first.returncode == 0 and first.stderr.strip() == (
        f"nailmirror-hq: recorded in {data / data_dir.BACKEND_RECORD}: this data directory belongs to an HQ on "
        "sqlite + file (database sqlite, blobs file); a start with other backends will be refused")
    record = json.loads((data / data_dir.BACKEND_RECORD).read_text())
    assert (record["database"], record["blobs"]) == ("sqlite", "file")
    again = run_hq(_env(data), "stores", "list")
    assert again.returncode == 0 and again.stderr == ""


@pytest.mark.slow
def test_forgetting_the_scale_out_variables_is_refused_in_one_line(hq_s3: HQ) -> None:
    """The issue's case: an HQ on PostgreSQL + S3, then a command without its variables."""
    data = hq_s3.settings.data_dir
    with db.write(hq_s3.engine) as conn:
        stores.add_store(conn, "SH-0012", "all", "test")
    scale_out = _env(data, NAILMIRROR_HQ_DATABASE_URL=hq_s3.settings.database_url,
                     NAILMIRROR_HQ_BLOBS=hq_s3.settings.blobs_url,
                     AWS_ACCESS_KEY_ID=os.environ["AWS_ACCESS_KEY_ID"],
                     AWS_SECRET_ACCESS_KEY=os.environ["AWS_SECRET_ACCESS_KEY"])
    listed = run_hq(scale_out, "--json", "stores", "list")
    assert listed.returncode == 0 and [s["store_id"] for s in json.loads(listed.stdout)] == ["st_SH-0012"]
    forgot = run_hq(_env(data), "--json", "stores", "list")
    assert forgot.returncode == 4 and forgot.stdout == "" and len(forgot.stderr.strip().splitlines()) == 1
    assert forgot.stderr.strip() == (
        f"nailmirror-hq: data directory {data} belongs to an HQ on postgresql + s3, but this start would open "
        "sqlite + file: set NAILMIRROR_HQ_DATABASE_URL (its postgresql URL) and set NAILMIRROR_HQ_BLOBS (its s3 "
        f"URL), or use another --data (moving that HQ to sqlite + file on purpose: delete "
        f"{data / data_dir.BACKEND_RECORD})")
    assert not _sqlite_files(data) and not (data / "blobs").exists()  # no second HQ was started


def test_the_real_command_refuses_another_backend_before_connecting_to_it(tmp_path: Path) -> None:
    """`python -m nailmirror_hq` on a SQLite HQ's directory with scale-out variables that lead nowhere: the
    refusal comes before any connection (else it would be "database unusable")."""
    data = tmp_path / "hq"
    make_hq(data).close()
    env = _env(data, PYTHONPATH=str(ROOT), NAILMIRROR_HQ_DATABASE_URL="postgresql+psycopg://hq@127.0.0.1:1/hq",
               NAILMIRROR_HQ_BLOBS="s3://nm-assets?endpoint=http://127.0.0.1:1&region=us-east-1")
    done = subprocess.run([sys.executable, "-m", "nailmirror_hq", "stores", "list"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 4 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        f"nailmirror-hq: data directory {data} belongs to an HQ on sqlite + file, but this start would open "
        "postgresql + s3: unset NAILMIRROR_HQ_DATABASE_URL and unset NAILMIRROR_HQ_BLOBS, or use another --data "
        f"(moving that HQ to postgresql + s3 on purpose: delete {data / data_dir.BACKEND_RECORD})")


def test_one_part_changed_names_only_its_variable_and_a_damaged_record_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "hq"
    make_hq(data).close()
    other = Settings(data, f"sqlite:///{data / 'hq.sqlite3'}", "s3://nm-assets?endpoint=http://127.0.0.1:1", None)
    with pytest.raises(data_dir.WrongBackend) as caught:
        open_hq(other)
    assert "would open sqlite + s3: unset NAILMIRROR_HQ_BLOBS, or use another --data" in str(caught.value)
    (data / data_dir.BACKEND_RECORD).write_text("{not json")
    done = run_hq(_env(data), "stores", "list")
    assert done.returncode == 4 and len(done.stderr.strip().splitlines()) == 1
    assert "is not HQ's backend record: restore it, or delete it to record this start's backend" in done.stderr
