"""The live-quality watch's arithmetic and rows (core/model_releases/watch.py) on a real database: what a session
counts, which sessions are kept, and which measures send a release back (each threshold just inside and past)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.model_releases import watch
from nailmirror_desktop.core.model_releases.watch import SessionQuality, SessionTally, judge
from nailmirror_desktop.core.paths import database_path


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    connection = open_database(database_path())
    yield connection
    connection.close()


def quality(painted: float = 6.0, blink: float = 0.004, segment: float = 3.0, frames: int = 300) -> SessionQuality:
    return SessionQuality(frames, painted, blink, segment)


def test_a_session_counts_only_frames_with_a_hand_and_a_short_one_is_not_kept() -> None:
    tally = SessionTally(min_frames=3)
    tally.observe(hands=0, painted=0, blinks=0, chances=0, segment_ms=0.0)  # nobody at the mirror
    tally.observe(hands=2, painted=8, blinks=0, chances=0, segment_ms=6.0)
    tally.observe(hands=2, painted=6, blinks=2, chances=8, segment_ms=0.0)  # masks carried: no segmenter time
    assert tally.take() is None  # two frames with a hand: a passer-by
    for painted, blinks in ((10, 0), (8, 2), (9, 1)):
        tally.observe(hands=2, painted=painted, blinks=blinks, chances=10, segment_ms=7.0)
    tally.observe(hands=1, painted=0, blinks=0, chances=0, segment_ms=0.0)
    assert tally.take() == SessionQuality(4, 27 / 4, 3 / 30, 21 / 6)
    assert tally.frames() == 0  # a new session began


def test_a_release_is_watched_until_it_has_had_three_sessions() -> None:
    assert judge([quality()] * 20, [quality(painted=0.1)] * 2).outcome == "watching"


def test_as_good_a_model_passes_and_noise_around_the_median_does_not_send_it_back() -> None:
    baseline = [quality(painted=p, blink=b, segment=s)
                for p, b, s in zip([5.5, 6.0, 6.5] * 7, [0.002, 0.004, 0.006] * 7, [2.8, 3.0, 3.2] * 7, strict=False)]
    verdict = judge(baseline[:20], [quality(painted=5.2), quality(painted=6.4), quality(painted=5.8)])
    assert verdict.outcome == "passed" and "of 20 sessions" in verdict.detail


def test_fewer_painted_nails_than_85_percent_of_the_median_sends_it_back() -> None:
    baseline = [quality(painted=6.0)] * 20
    assert judge(baseline, [quality(painted=5.2)] * 3).outcome == "passed"  # 87 %
    verdict = judge(baseline, [quality(painted=5.0)] * 3)  # 83 %
    assert verdict.outcome == "regressed"
    assert verdict.detail == "painted nails per frame 5.00 vs median 6.00 of 20 sessions"


def test_blinks_past_twice_the_median_and_a_margin_send_it_back() -> None:
    baseline = [quality(blink=0.004)] * 20
    assert judge(baseline, [quality(blink=0.0125)] * 3).outcome == "passed"  # under 2 × 0.004 + 0.005
    verdict = judge(baseline, [quality(blink=0.014)] * 3)
    assert verdict.outcome == "regressed" and verdict.detail.startswith("blink rate 0.0140 vs median 0.0040")


def test_a_slower_segmenter_goes_back_only_past_the_budget_and_well_past_the_previous_one() -> None:
    assert judge([quality(segment=2.0)] * 20, [quality(segment=3.9)] * 3).outcome == "passed"  # within 4 ms
    assert judge([quality(segment=3.5)] * 20, [quality(segment=5.0)] * 3).outcome == "passed"  # a slow PC for both
    verdict = judge([quality(segment=3.0)] * 20, [quality(segment=5.0)] * 3)
    assert verdict.outcome == "regressed" and verdict.detail.startswith("segment ms per hand 5.00 vs median 3.00")


def test_a_thin_baseline_is_used_and_said_and_none_at_all_passes() -> None:
    verdict = judge([quality(painted=6.0)] * 3, [quality(painted=1.0)] * 3)
    assert verdict.outcome == "regressed"
    assert verdict.detail == "painted nails per frame 1.00 vs median 6.00 of 3 sessions (fewer than 5)"
    assert judge([], [quality(painted=1.0)] * 3).outcome == "passed"


def test_sessions_are_kept_per_version_newest_first_and_a_release_reads_its_first(conn: sqlite3.Connection) -> None:
    for i in range(25):
        watch.record_session(conn, "live", "bundled-1", None, quality(painted=float(i)))
    watch.record_session(conn, "live", "release-7", 7, quality(painted=1.0))
    watch.record_session(conn, "live", "release-7", 7, quality(painted=2.0))
    last = watch.last_sessions(conn, "live", "bundled-1")
    assert [s.quality.painted_per_frame for s in last] == [float(i) for i in range(24, 4, -1)]
    assert all(s.release is None for s in last)
    assert [s.quality.painted_per_frame for s in watch.release_sessions(conn, "live", 7)] == [1.0, 2.0]


def test_a_watch_row_is_one_per_slot(conn: sqlite3.Connection) -> None:
    assert watch.current_watch(conn, "live") is None
    watch.begin_watch(conn, watch.Watch("live", 7, "v7", None, "bundled-1", ""))
    watch.begin_watch(conn, watch.Watch("live", 8, "v8", 7, "v7", ""))
    current = watch.current_watch(conn, "live")
    assert current is not None and (current.release, current.previous_release, current.previous_version) == (8, 7, "v7")
    assert current.switched_at.endswith("Z")
    watch.end_watch(conn, "live")
    assert watch.current_watch(conn, "live") is None
