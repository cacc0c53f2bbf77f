"""Customers' photos are deleted once they are older than the salon's setting; nothing else is touched."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from nailmirror_desktop.core.config import KioskConfig, load_config, save_config
from nailmirror_desktop.core.tryon.retention import DAY_S, purge_expired_photos

NOW = time.time()


def photo(folder: Path, name: str, age_s: float) -> Path:
    path = folder / name
    path.write_bytes(b"\x89PNG\r\n\x1a\n")
    os.utime(path, (NOW - age_s, NOW - age_s))
    return path


def test_only_photos_older_than_the_setting_are_deleted(tmp_path):
    old_before = photo(tmp_path, "20261101T100000Z_A01_before.png", 8 * DAY_S)
    old_after = photo(tmp_path, "20261101T100000Z_A01_after.png", 8 * DAY_S)
    recent = photo(tmp_path, "20261129T100000Z_A02_after.png", 6 * DAY_S)
    today = photo(tmp_path, "20261130T100000Z_A03_after.png", 60)

    deleted = purge_expired_photos(tmp_path, keep_days=7, now_s=NOW)

    assert sorted(deleted) == sorted([old_before, old_after])
    assert not old_before.exists() and not old_after.exists()
    assert recent.exists() and today.exists()
    assert purge_expired_photos(tmp_path, keep_days=7, now_s=NOW) == []  # nothing left to do
    assert purge_expired_photos(tmp_path, keep_days=1, now_s=NOW) == [recent]


def test_a_half_written_photo_goes_after_an_hour_whatever_the_setting(tmp_path):
    stale = photo(tmp_path, "20261130T080000Z_A01_after.part", 2 * 3600)
    being_written = photo(tmp_path, "20261130T095959Z_A02_after.part", 5)
    assert purge_expired_photos(tmp_path, keep_days=30, now_s=NOW) == [stale]
    assert being_written.exists()


def test_folders_links_and_a_missing_folder_are_left_alone(tmp_path):
    sub = tmp_path / "kept-by-staff"
    sub.mkdir()
    inside = photo(sub, "old.png", 100 * DAY_S)
    os.utime(sub, (NOW - 100 * DAY_S, NOW - 100 * DAY_S))
    target = photo(tmp_path.parent, f"{tmp_path.name}-target.png", 100 * DAY_S)
    link = tmp_path / "link.png"
    link.symlink_to(target)
    assert purge_expired_photos(tmp_path, keep_days=7, now_s=NOW) == []
    assert inside.exists() and link.is_symlink() and target.exists()
    assert purge_expired_photos(tmp_path / "never-made", keep_days=7, now_s=NOW) == []


def test_a_file_that_cannot_be_deleted_does_not_keep_the_others(tmp_path, monkeypatch):
    """On a Windows store PC a photo open in a viewer cannot be deleted. That cannot happen on Linux (and root
    may delete anything), so only os.remove's answer for that one file is stood in for."""
    in_use = photo(tmp_path, "a_after.png", 30 * DAY_S)
    other = photo(tmp_path, "b_after.png", 30 * DAY_S)
    real_remove = os.remove

    def remove(path):
        if Path(path) == in_use:
            raise PermissionError(13, "The process cannot access the file because it is being used")
        real_remove(path)

    monkeypatch.setattr(os, "remove", remove)
    assert purge_expired_photos(tmp_path, keep_days=7, now_s=NOW) == [other]
    assert in_use.exists() and not other.exists()


def test_keep_days_must_be_positive(tmp_path):
    with pytest.raises(ValueError):
        purge_expired_photos(tmp_path, keep_days=0, now_s=NOW)


def test_the_setting_is_clamped_and_survives_a_save(tmp_path):
    assert KioskConfig().snapshot_keep_days == 7
    assert KioskConfig().with_changes(snapshot_keep_days=0).snapshot_keep_days == 1
    assert KioskConfig().with_changes(snapshot_keep_days=10_000).snapshot_keep_days == 365
    path = tmp_path / "config.json"
    save_config(KioskConfig().with_changes(snapshot_keep_days=30), path)
    assert load_config(path).snapshot_keep_days == 30
