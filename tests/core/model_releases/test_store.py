"""The kiosk's model-release table (core/model_releases/store.py) on a real database: an offer of a slot this
kiosk runs waits for its download, one it does not run is only recorded, a resync keeps what a release reached,
one release is active a slot, a rolled-back release never waits again, a withdrawal leaves the bundled model."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.model_releases import store
from nailmirror_desktop.core.model_version import bundled_full_frame_version, bundled_model_version
from nailmirror_desktop.core.paths import database_path


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    connection = open_database(database_path())
    yield connection
    connection.close()


def _manifest(slot: str = "live", sha: str = "ab" * 32) -> dict[str, Any]:
    return {"name": "nail_segmenter", "version": f"nail_segmenter-{sha[:12]}", "slot": slot, "sha256": sha,
            "size": 1000, "inputs": [{"name": "roi", "shape": [-1, 3, 64, 64], "dtype": "float32"}],
            "outputs": [{"name": "logits", "shape": [-1, 1, 64, 64], "dtype": "float32"}],
            "gate_report_id": "gate-1", "created_at": "2026-12-05T02:00:00.000Z"}


def test_an_offer_waits_for_its_download_and_a_slot_not_run_is_only_recorded(conn: sqlite3.Connection) -> None:
    store.record_offered(conn, "live", 3, _manifest())
    store.record_offered(conn, "full_frame", 4, _manifest("full_frame", "cd" * 32))
    live = store.get(conn, "live", 3)
    assert live is not None and live.state == "downloading" and live.path is None
    assert live.version == "nail_segmenter-abababababab" and live.manifest == _manifest()
    assert [r.slot for r in store.downloading(conn)] == ["live"]
    full = store.get(conn, "full_frame", 4)
    assert full is not None and full.state == "bundled" and full.detail == store.NOT_RUN
    assert store.waiting(conn, "live") is None and store.active(conn, "live") is None


def test_a_resync_of_the_same_bytes_keeps_the_state_and_other_bytes_start_over(conn: sqlite3.Connection) -> None:
    store.record_offered(conn, "live", 3, _manifest())
    store.mark_verified(conn, "live", 3, "/data/models/ab.onnx")
    store.record_offered(conn, "live", 3, _manifest())
    kept = store.get(conn, "live", 3)
    assert kept is not None and kept.state == "verified" and kept.path == "/data/models/ab.onnx"
    store.record_offered(conn, "live", 3, _manifest(sha="ef" * 32))
    again = store.get(conn, "live", 3)
    assert again is not None and again.state == "downloading" and again.path is None


def test_one_release_is_active_a_slot_and_the_one_before_goes_back_to_verified(conn: sqlite3.Connection) -> None:
    for release, sha in ((3, "ab" * 32), (5, "cd" * 32)):
        store.record_offered(conn, "live", release, _manifest(sha=sha))
        store.mark_verified(conn, "live", release, f"/m/{sha}.onnx")
    waiting = store.waiting(conn, "live")
    assert waiting is not None and waiting.release == 5
    store.mark_active(conn, "live", 3)
    store.mark_active(conn, "live", 5)
    assert [(r.release, r.state) for r in store.rows(conn, "live")] == [(5, "active"), (3, "verified")]
    assert store.waiting(conn, "live") is None  # 3 is older than the active one
    with pytest.raises(sqlite3.IntegrityError):  # the schema keeps one active a slot
        conn.execute("UPDATE model_release SET state = 'active' WHERE release = 3")


def test_a_rolled_back_release_never_waits_again_and_the_report_says_why(conn: sqlite3.Connection) -> None:
    store.record_offered(conn, "live", 3, _manifest())
    store.mark_verified(conn, "live", 3, "/m/ab.onnx")
    store.mark_active(conn, "live", 3)
    store.mark_rolled_back(conn, "live", 3, "painted nails per frame 7.1 < 8.6\n(median of 20)")
    assert store.active(conn, "live") is None and store.waiting(conn, "live") is None
    store.record_offered(conn, "live", 3, _manifest())  # a resync does not revive it
    report = store.slot_reports(conn)
    assert set(report) == {"live"}
    assert report["live"]["state"] == "rolled_back" and report["live"]["release"] == 3
    assert report["live"]["detail"] == "painted nails per frame 7.1 < 8.6 (median of 20)"
    assert report["live"]["version"] == bundled_model_version()


def test_the_report_names_the_running_version_and_the_newest_releases_state(conn: sqlite3.Connection) -> None:
    assert store.slot_reports(conn) == {}
    store.record_offered(conn, "live", 3, _manifest())
    store.mark_verified(conn, "live", 3, "/m/ab.onnx")
    store.mark_active(conn, "live", 3)
    store.record_offered(conn, "live", 5, _manifest(sha="cd" * 32))
    store.mark_refused(conn, "live", 5, "sha256 of the download is not the manifest's")
    store.record_offered(conn, "full_frame", 6, _manifest("full_frame", "ef" * 32))
    report = store.slot_reports(conn)
    assert report["live"]["version"] == "nail_segmenter-abababababab"
    assert (report["live"]["state"], report["live"]["release"]) == ("refused", 5)
    assert report["full_frame"] == {"version": bundled_full_frame_version(), "state": "bundled",
                                    "detail": store.NOT_RUN, "at": report["full_frame"]["at"], "release": 6}


def test_a_withdrawal_leaves_the_bundled_model(conn: sqlite3.Connection) -> None:
    store.record_offered(conn, "live", 3, _manifest())
    store.mark_verified(conn, "live", 3, "/m/ab.onnx")
    store.mark_active(conn, "live", 3)
    store.record_offered(conn, "still", 4, _manifest("still", "cd" * 32))
    assert store.referenced_paths(conn) == {"/m/ab.onnx"}
    store.withdraw_slot(conn, "live")
    assert store.active(conn, "live") is None and store.rows(conn, "live") == []
    assert store.referenced_paths(conn) == set() and [r.slot for r in store.rows(conn)] == ["still"]


def test_a_newer_offer_supersedes_an_older_download_but_keeps_what_the_switch_needs(conn: sqlite3.Connection) -> None:
    store.record_offered(conn, "live", 2, _manifest(sha="12" * 32))
    store.mark_verified(conn, "live", 2, "/m/12.onnx")
    store.record_offered(conn, "live", 3, _manifest())
    store.record_offered(conn, "live", 4, _manifest(sha="cd" * 32))
    store.mark_refused(conn, "live", 4, "signature does not verify")
    store.record_offered(conn, "live", 5, _manifest(sha="ef" * 32))
    assert [(r.release, r.state) for r in store.rows(conn, "live")] == [(5, "downloading"), (2, "verified")]


def test_only_model_files_no_release_names_are_collected(conn: sqlite3.Connection) -> None:
    from nailmirror_desktop.core.model_releases import download

    folder = download.models_dir()
    for name in ("ab" * 32, "cd" * 32, "ef" * 32):
        (folder / f"{name}.onnx").write_bytes(b"x")
    store.record_offered(conn, "live", 3, _manifest())  # downloading: its file may be renamed in any moment
    store.record_offered(conn, "still", 4, _manifest("still", "cd" * 32))
    store.mark_verified(conn, "still", 4, str(folder / f"{'cd' * 32}.onnx"))
    assert download.collect_unreferenced(conn) == 1
    assert sorted(p.stem for p in folder.glob("*.onnx")) == ["ab" * 32, "cd" * 32]


def test_the_model_version_named_is_the_slots_active_release_else_the_bundled_one(conn: sqlite3.Connection) -> None:
    from nailmirror_desktop.core.model_version import model_version

    store.record_offered(conn, "still", 3, _manifest("still"))
    store.mark_verified(conn, "still", 3, "/m/ab.onnx")
    assert model_version(conn, "still") == bundled_model_version("still")  # verified is not running yet
    store.mark_active(conn, "still", 3)
    assert model_version(conn, "still") == "nail_segmenter-abababababab"
    assert model_version(conn) == model_version() == bundled_model_version()  # the live slot runs the bundled one


def test_the_same_bytes_re_signed_under_a_new_number_keep_what_this_kiosk_learnt(conn: sqlite3.Connection) -> None:
    """HQ re-signs its live releases after a key rotation, each under a new number with the same manifest."""
    store.record_offered(conn, "live", 3, _manifest())
    store.mark_verified(conn, "live", 3, "/m/ab.onnx")
    store.mark_active(conn, "live", 3)
    store.record_offered(conn, "live", 6, _manifest())
    again = store.get(conn, "live", 6)
    assert again is not None and again.state == "verified" and again.path == "/m/ab.onnx"  # nothing to fetch
    assert store.waiting(conn, "live") is None  # the same file: no switch
    report = store.slot_reports(conn)["live"]
    assert (report["state"], report["release"], report["version"]) == ("active", 6, "nail_segmenter-abababababab")
    store.record_offered(conn, "live", 7, _manifest(sha="cd" * 32))
    store.mark_verified(conn, "live", 7, "/m/cd.onnx")
    store.mark_active(conn, "live", 7)
    store.mark_rolled_back(conn, "live", 7, "blink 0.31 > 0.12")
    store.mark_active(conn, "live", 3)
    store.record_offered(conn, "live", 9, _manifest(sha="cd" * 32))  # the regressed bytes, re-signed
    back = store.get(conn, "live", 9)
    assert back is not None and back.state == "rolled_back" and back.detail == "blink 0.31 > 0.12"
    assert store.waiting(conn, "live") is None
