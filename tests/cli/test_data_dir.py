"""Every CLI command on a data directory it cannot use: one line naming the problem and the fix, exit status 4
(cli.EXIT_DATA_DIR_UNUSABLE), never a traceback. Real files, real SQLite; a read-only directory is a read-only
bind mount (root ignores chmod), a full disk is RLIMIT_FSIZE in a child process (SIGXFSZ ignored, so writes fail
with EFBIG as they fail with ENOSPC on a full disk)."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from nailmirror_desktop.cli import EXIT_DATA_DIR_UNUSABLE, EXIT_INTERNAL_ERROR, main, run_guarded
from nailmirror_desktop.core.db import discover_migrations, open_database
from nailmirror_desktop.core.paths import DATABASE_NAME
from tests.support.style_fixtures import make_style_folder

ROOT = Path(__file__).resolve().parents[2]


def _commands(tmp_path: Path) -> list[list[str]]:
    folder = make_style_folder(tmp_path / "to-import")
    photo = tmp_path / "photo.png"
    photo.write_bytes(b"not used")
    return [["tasks", "list"], ["tasks", "stats"], ["styles", "list"], ["styles", "categories"],
            ["styles", "import", str(folder)], ["styles", "show", "FR-ABCDEF"], ["generate", "红色 亮片"],
            ["tryon", "--image", str(photo), "--style", "FR-ABCDEF", "--out", str(tmp_path / "out.png")]]


def _assert_one_line(code: int, err: str, reason: str) -> None:
    assert code == EXIT_DATA_DIR_UNUSABLE, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("error: data directory unusable: ") and reason in lines[0] and "fix: " in lines[0]


def _run_all(capsys, tmp_path, reason):
    for argv in _commands(tmp_path):
        code = main(argv)
        _, err = capsys.readouterr()
        _assert_one_line(code, err, reason)


def _real_database(home: Path) -> Path:
    open_database(home / DATABASE_NAME).close()
    return home / DATABASE_NAME


def test_a_file_where_the_data_directory_should_be(capsys, tmp_path, monkeypatch):
    not_a_folder = tmp_path / "home-file"
    not_a_folder.write_text("x")
    monkeypatch.setenv("NAILMIRROR_HOME", str(not_a_folder))
    _run_all(capsys, tmp_path, "NOT_A_DIRECTORY")


def test_a_garbage_database(capsys, tmp_path, nailmirror_home):
    (nailmirror_home / DATABASE_NAME).write_bytes(os.urandom(8192))
    _run_all(capsys, tmp_path, "NOT_A_DATABASE")


def test_a_truncated_database(capsys, tmp_path, nailmirror_home):
    path = _real_database(nailmirror_home)
    with open(path, "r+b") as handle:
        handle.truncate(path.stat().st_size // 2)
    _run_all(capsys, tmp_path, "DATABASE_CORRUPT")


def test_a_database_from_a_newer_build(capsys, tmp_path, nailmirror_home):
    path = _real_database(nailmirror_home)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {discover_migrations()[-1].version + 1}")
    conn.close()
    _run_all(capsys, tmp_path, "NEWER_SCHEMA")


def test_a_read_only_data_directory(capsys, tmp_path, nailmirror_home):
    _real_database(nailmirror_home)
    mounted = tmp_path / "read-only-home"
    mounted.mkdir()
    if os.geteuid() != 0:
        os.chmod(nailmirror_home, 0o500)
        mounted = nailmirror_home
        reason = "NO_PERMISSION"
    else:
        ok = subprocess.run(["mount", "--bind", str(nailmirror_home), str(mounted)], capture_output=True)
        if ok.returncode != 0:
            pytest.skip(f"cannot bind-mount here: {ok.stderr.decode(errors='replace').strip()}")
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mounted)], check=True)
        reason = "READ_ONLY"
    os.environ["NAILMIRROR_HOME"] = str(mounted)  # the autouse fixture restores it
    try:
        _run_all(capsys, tmp_path, reason)
    finally:
        if mounted != nailmirror_home:
            subprocess.run(["umount", str(mounted)], check=True)
        else:
            os.chmod(nailmirror_home, 0o700)


def _with_file_size_limit(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.parametrize("argv", [["styles", "list"], ["generate", "红色 亮片"]], ids=["styles-list", "generate"])
def test_a_full_disk(tmp_path, nailmirror_home, argv):
    _real_database(nailmirror_home)
    for side in nailmirror_home.glob(f"{DATABASE_NAME}-*"):
        side.unlink()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_HOME": str(nailmirror_home)}
    done = subprocess.run([sys.executable, "-m", "nailmirror_desktop", *argv], env=env, capture_output=True,
                          text=True, preexec_fn=_with_file_size_limit(4096), timeout=120)
    _assert_one_line(done.returncode, done.stderr, "DISK_FULL")


def test_an_internal_error_of_a_command_goes_to_the_rotating_log_with_its_traceback(capsys, nailmirror_home):
    """#22.8: every command's uncaught exception goes to data_dir()/logs/cli.log (rotated, owner-only) with its
    traceback; the terminal gets one line naming that file."""
    from nailmirror_desktop.app.kiosk_logging import command_logging

    def broken_handler(args):
        raise KeyError("a bug")

    with command_logging(native=False):
        code = run_guarded(broken_handler, None)
    _, err = capsys.readouterr()
    assert code == EXIT_INTERNAL_ERROR
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "KeyError" in err
    log = nailmirror_home / "logs" / "cli.log"
    assert str(log) in err and "Traceback" in log.read_text() and "a bug" in log.read_text()
    assert log.stat().st_mode & 0o077 == 0
    assert not (nailmirror_home / "nailmirror-cli-errors.log").exists()


def test_any_other_error_is_one_line_and_its_traceback_goes_to_the_log(capsys, nailmirror_home):
    def broken_handler(args):
        raise KeyError("a bug")

    code = run_guarded(broken_handler, None)
    _, err = capsys.readouterr()
    assert code == EXIT_INTERNAL_ERROR
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "KeyError" in err
    log = nailmirror_home / "nailmirror-cli-errors.log"
    assert str(log) in err and "Traceback" in log.read_text() and "a bug" in log.read_text()
    assert log.stat().st_mode & 0o077 == 0
