"""The snapshots staff see in the gallery: real files in the data directory, listed newest first, deleted for
good (both images and a render's partial), and a render finishing after a deletion does not bring one back."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import numpy as np
import pytest

from nailmirror_desktop.core.tasks import TaskError
from nailmirror_desktop.core.tryon.snapshots import delete_all_snapshots, delete_snapshot, list_snapshots


def _pair(folder, stamp, code, sides=("before", "after")):
    folder.mkdir(parents=True, exist_ok=True)
    for side in sides:
        (folder / f"{stamp}_{code}_{side}.png").write_bytes(b"\x89PNG fake")
    return f"{stamp}_{code}"


def test_listing_pairs_files_newest_first_and_ignores_other_names(tmp_path):
    folder = tmp_path / "snapshots"
    old = _pair(folder, "20261130T081500000000Z", "FES-M1MWQS")
    new = _pair(folder, "20261201T093000123456Z", "none")
    half = _pair(folder, "20261201T000000000000Z", "ABC-1", sides=("before",))
    (folder / ".nailmirror-owned").write_bytes(b"")
    (folder / "20261201T093000123456Z_none_after.T0000001.part").write_bytes(b"partial")
    (folder / "holiday.png").write_bytes(b"x")
    os.symlink(folder / "holiday.png", folder / "20261202T000000000000Z_LINK-1_after.png")
    entries = list_snapshots(folder)
    assert [e.stem for e in entries] == [new, half, old]
    assert entries[0].style_code == "" and entries[2].style_code == "FES-M1MWQS"
    assert entries[0].taken_at == datetime(2026, 12, 1, 9, 30, 0, 123456, tzinfo=UTC)
    assert entries[1].after is None and entries[1].shown.name.endswith("_before.png")
    assert list_snapshots(tmp_path / "missing") == []


def test_deleting_one_removes_both_images_and_the_render_partial_only(tmp_path):
    folder = tmp_path / "snapshots"
    keep = _pair(folder, "20261130T081500000000Z", "FES-M1MWQS")
    gone = _pair(folder, "20261201T093000123456Z", "FES-M1MWQS")
    (folder / f"{gone}_after.T0000009.part").write_bytes(b"partial")
    deleted = delete_snapshot(folder, gone)
    assert sorted(p.name for p in deleted) == sorted([f"{gone}_after.T0000009.part", f"{gone}_after.png",
                                                      f"{gone}_before.png"])
    assert [e.stem for e in list_snapshots(folder)] == [keep]
    assert delete_snapshot(folder, gone) == []  # already gone is fine
    for bad in ("../x", "20261201T093000123456Z_FES/../../etc", "", "*"):
        with pytest.raises(ValueError):
            delete_snapshot(folder, bad)


def test_deleting_all_leaves_other_files(tmp_path):
    folder = tmp_path / "snapshots"
    for i in range(5):
        _pair(folder, f"2026120{i + 1}T000000000000Z", "S-1")
    (folder / "20261209T000000000000Z_S-1_after.T1.part").write_bytes(b"p")  # a partial with no pair yet
    (folder / ".nailmirror-owned").write_bytes(b"")
    assert len(delete_all_snapshots(folder)) == 11
    assert sorted(os.listdir(folder)) == [".nailmirror-owned"]


def test_a_render_finishing_after_the_snapshot_was_deleted_does_not_bring_it_back(tmp_path):
    from nailmirror_desktop.app.effect_preview import _write_png

    folder = tmp_path / "snapshots"
    stem = _pair(folder, "20261201T093000123456Z", "FES-M1MWQS")
    after = folder / f"{stem}_after.png"
    image = np.zeros((8, 8, 3), np.uint8)
    _write_png(after, image, "T0000001")  # still there: replaced by the render
    assert after.read_bytes().startswith(b"\x89PNG\r\n")
    delete_snapshot(folder, stem)
    with pytest.raises(TaskError) as caught:
        _write_png(after, image, "T0000002")
    assert caught.value.code == "SNAPSHOT_DELETED"
    assert os.listdir(folder) == []  # neither the after nor the partial
