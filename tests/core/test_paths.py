"""The data directory is owner-only under a usual umask (022): made 0700 with everything in it 0600 (the database
with its -wal and -shm, config.json, snapshots), an older build's directory is brought there at start, and a
folder the user made (NAILMIRROR_HOME at their own folder or home) keeps its mode."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from nailmirror_desktop.core import paths
from nailmirror_desktop.core.config import KioskConfig, save_config
from nailmirror_desktop.core.db import open_database


@pytest.fixture(autouse=True)
def usual_umask():
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _use_kiosk(home: Path) -> None:
    """What a kiosk does with its data directory: the database written to, config saved, a snapshot taken."""
    from nailmirror_desktop.ui.tryon.snapshot import save_snapshot

    conn = open_database(paths.database_path())
    conn.execute("CREATE TABLE IF NOT EXISTS probe (x)")
    conn.execute("INSERT INTO probe VALUES (1)")
    save_config(KioskConfig())
    save_snapshot(np.zeros((4, 4, 3), np.uint8), np.zeros((4, 4, 3), np.uint8), "FR-ABCDEF")
    assert mode(home / "nailmirror.db-wal") == 0o600 and mode(home / "nailmirror.db-shm") == 0o600
    conn.close()


def _every_entry(root: Path) -> list[Path]:
    return [root, *root.rglob("*")]


@pytest.mark.qt  # the kiosk's snapshot writer lives in ui/tryon/snapshot.py
def test_a_new_data_directory_and_everything_in_it_is_owner_only(tmp_path, monkeypatch):
    home = tmp_path / "made-by-the-kiosk" / "home"
    monkeypatch.setenv(paths.HOME_ENV, str(home))
    assert paths.data_dir() == home
    _use_kiosk(home)
    wrong = {str(p.relative_to(tmp_path)): oct(mode(p)) for p in _every_entry(home)
             if mode(p) != (paths.PRIVATE_DIR_MODE if p.is_dir() else paths.PRIVATE_FILE_MODE)}
    assert wrong == {}
    assert (home / paths.OWNED_MARKER).is_file()
    assert mode(tmp_path / "made-by-the-kiosk") == 0o700  # a parent the kiosk made is its own too


def test_an_older_builds_default_data_directory_is_made_private_at_start(tmp_path, monkeypatch):
    monkeypatch.delenv(paths.HOME_ENV)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    old = tmp_path / "share" / "nailmirror"
    (old / "snapshots").mkdir(parents=True)
    (old / "assets" / "ab").mkdir(parents=True)
    for file in (old / "nailmirror.db", old / "nailmirror.db-wal", old / "snapshots" / "x_after.png",
                 old / "assets" / "ab" / "abcd.png"):
        file.write_bytes(b"")
    for path in _every_entry(old):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    assert paths.data_dir() == old
    wrong = {str(p.relative_to(tmp_path)): oct(mode(p)) for p in _every_entry(old)
             if mode(p) != (0o700 if p.is_dir() else 0o600)}
    assert wrong == {}
    assert mode(tmp_path / "share") == 0o755  # not the kiosk's


@pytest.mark.qt  # the kiosk's snapshot writer lives in ui/tryon/snapshot.py
def test_a_folder_the_user_made_keeps_its_mode_and_their_files(tmp_path, monkeypatch):
    users = tmp_path / "users-folder"
    users.mkdir(mode=0o755)
    (users / "notes.txt").write_text("mine")
    (users / "photos").mkdir()
    (users / "photos" / "holiday.jpg").write_bytes(b"")
    monkeypatch.setenv(paths.HOME_ENV, str(users))
    _use_kiosk(users)
    assert mode(users) == 0o755 and mode(users / "notes.txt") == 0o644
    assert mode(users / "photos") == 0o755 and mode(users / "photos" / "holiday.jpg") == 0o644
    for own in ("nailmirror.db", "config.json"):
        assert mode(users / own) == 0o600, own
    assert mode(users / "snapshots") == 0o700
    assert {mode(p) for p in (users / "snapshots").glob("*.png")} == {0o600}


def test_an_existing_database_file_is_made_private_before_sqlite_opens_it(tmp_path):
    db = tmp_path / "old.db"
    open_database(db).close()
    for path in tmp_path.glob("old.db*"):
        os.chmod(path, 0o644)
    conn = open_database(db)
    conn.execute("CREATE TABLE t (x)")
    assert {p.name: mode(p) for p in tmp_path.glob("old.db*")} == {
        "old.db": 0o600, "old.db-wal": 0o600, "old.db-shm": 0o600}
    conn.close()


def test_config_is_owner_only_even_over_a_leftover_temporary_file(tmp_path):
    path = tmp_path / "config.json"
    leftover = tmp_path / "config.json.tmp"
    leftover.write_text("{}")
    os.chmod(leftover, 0o644)
    save_config(KioskConfig(), path)
    assert mode(path) == 0o600


class _MadeMeanwhile(type(Path())):  # type: ignore[misc]
    """A folder another thread makes between the first look (is_dir: not yet) and the second (exists: now)."""

    looks = 0

    def is_dir(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        _MadeMeanwhile.looks += 1
        if _MadeMeanwhile.looks == 1:
            os.mkdir(self)  # the other thread wins the race right after this look
            return False
        return super().is_dir(*args, **kwargs)


def test_a_folder_made_by_another_thread_between_the_looks_is_not_taken_for_a_file(tmp_path):
    # two workers creating one AI style once failed here: "data directory unusable ... move that file away"
    folder = _MadeMeanwhile(tmp_path / "styles")
    assert paths.private_dir(folder) == folder and Path(folder).is_dir()
    in_the_way = tmp_path / "a_file"
    in_the_way.write_text("x")
    with pytest.raises(paths.DataDirUnusable):  # a file in the way is still refused
        paths.private_dir(in_the_way)
