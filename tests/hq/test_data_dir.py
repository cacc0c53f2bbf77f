"""HQ's data directory (issue 25.4 and 25.5): owner-only at creation and after a start on an older, world-readable
one (by chmod on the path: HQ never opens its SQLite file itself), and bound to the backend it belongs to, so a
start that forgot the scale-out variables is refused in one line instead of starting a second, empty HQ."""

from __future__ import annotations

import builtins
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nailmirror_hq import data_dir, db, stores
from nailmirror_hq.config import Settings
from nailmirror_hq.service import HQ, open_hq
from tests.hq.conftest import make_hq
from tests.support.hq_cli import run_hq

ROOT = Path(__file__).resolve().parents[2]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask, under which HQ's files used to come out 0644 and its folders 0755."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def _env(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NAILMIRROR_HQ_")}
    return {**env, "NAILMIRROR_HQ_HOME": str(data), "NAILMIRROR_HQ_STARTER_CATALOG": "", **extra}


def _sqlite_files(data: Path) -> list[Path]:
    return [p for p in data.iterdir() if p.name.startswith("hq.sqlite3")]


def test_a_new_data_directory_is_owner_only(tmp_path: Path, umask_022: None) -> None:
    hq = make_hq(tmp_path / "hq")
    try:
        with db.write(hq.engine) as conn:
            stores.add_store(conn, "SH-0012", "all", "test")
        data = tmp_path / "hq"
        assert _mode(data) == 0o700 and _mode(data / "blobs") == 0o700
        files = _sqlite_files(data)
        assert data / "hq.sqlite3" in files and data / "hq.sqlite3-wal" in files
        assert {p.name: _mode(p) for p in files} == {p.name: 0o600 for p in files}
        assert _mode(data / data_dir.BACKEND_RECORD) == 0o600
    finally:
        hq.close()


def test_a_start_on_an_older_world_readable_directory_makes_it_private_by_path(
        tmp_path: Path, umask_022: None, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "hq"
    make_hq(data).close()
    (data / data_dir.BACKEND_RECORD).unlink()  # as an older build left it: no record, 0755 and 0644
    for path in (data, data / "blobs"):
        path.chmod(0o755)
    for path in _sqlite_files(data):
        path.chmod(0o644)
    opened: list[str] = []
    real_open, real_os_open = builtins.open, os.open

    def spy_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    def spy_os_open(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(str(path))
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(os, "open", spy_os_open)
    done = run_hq(_env(data), "stores", "list")
    monkeypatch.undo()
    assert done.returncode == 0, done.stderr
    assert _mode(data) == 0o700 and _mode(data / "blobs") == 0o700
    assert all(_mode(p) == 0o600 for p in _sqlite_files(data)) and _sqlite_files(data)
    assert not [p for p in opened if "hq.sqlite3" in p]  # SQLite opens it; HQ's own code never does


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
    assert _mode(data) == 0o700 and _mode(data / data_dir.BACKEND_RECORD) == 0o600  # private on this backend too
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
