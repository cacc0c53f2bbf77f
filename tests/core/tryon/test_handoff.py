"""The staff hand-off requests: numbers per store day, done, purge with the photo copies (issue #22 §3)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import pytest

from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.tryon.handoff import HandoffRequests, copy_photo, handoff_dir, request_number, store_day

ZONE = "Asia/Shanghai"


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 12, 4, 2, 0, tzinfo=UTC))  # 10:00 in Shanghai


@pytest.fixture
def requests(nailmirror_home, clock):
    conn = open_database(database_path())
    yield HandoffRequests(conn, clock)
    conn.close()


def ask(requests: HandoffRequests, photo: str | None = None, code: str = "NM-001"):
    return requests.create(style_code=code, style_name="酒红猫眼", style_name_en="Burgundy cat-eye",
                           price_minor=12800, currency="CNY", photo=photo, zone=ZONE)


def test_numbers_count_per_store_day_and_carry_the_style(requests, clock):
    first, second = ask(requests), ask(requests, code="NM-002")
    assert (first.number, second.number) == ("A001", "A002")
    assert (first.style_name, first.price_minor, first.currency, first.day) == ("酒红猫眼", 12800, "CNY", "2026-12-04")
    assert first.created_at == clock.now and first.done_at is None
    clock.now += timedelta(hours=14)  # 00:00 the next day in Shanghai, 16:00 UTC the same day
    assert ask(requests).number == "A001"


def test_request_number_runs_past_a_letter():
    assert [request_number(n) for n in (1, 12, 999, 1000, 1998)] == ["A001", "A012", "A999", "B001", "B999"]
    with pytest.raises(ValueError):
        request_number(0)


def test_store_day_is_the_stores_calendar_day():
    assert store_day(datetime(2026, 12, 4, 15, 59, tzinfo=UTC), ZONE) == "2026-12-04"
    assert store_day(datetime(2026, 12, 4, 16, 0, tzinfo=UTC), ZONE) == "2026-12-05"


def test_open_lists_todays_undone_and_done_is_once(requests):
    first, second = ask(requests), ask(requests)
    assert [r.number for r in requests.open_requests(ZONE)] == ["A001", "A002"]
    assert requests.mark_done(first.id)
    assert not requests.mark_done(first.id)
    assert [r.number for r in requests.open_requests(ZONE)] == [second.number]


def test_a_number_is_never_given_twice_in_a_day_even_after_a_purge(requests):
    first = ask(requests)
    requests.mark_done(first.id)
    assert requests.purge(ZONE) == ["A001"]
    assert ask(requests).number == "A002"


def test_purge_deletes_done_and_older_requests_with_their_photos(requests, clock, tmp_path):
    snapshot = tmp_path / "after.png"
    snapshot.write_bytes(b"\x89PNG fake but a file")
    done, yesterday_kept_open = ask(requests, copy_photo(snapshot)), ask(requests, copy_photo(snapshot))
    assert oct(os.stat(handoff_dir() / done.photo).st_mode & 0o777) == "0o600"
    requests.mark_done(done.id)
    clock.now += timedelta(minutes=5)
    today = ask(requests, copy_photo(snapshot))
    assert sorted(requests.purge(ZONE)) == [done.number]
    assert not (handoff_dir() / done.photo).exists()
    assert (handoff_dir() / yesterday_kept_open.photo).exists()
    clock.now += timedelta(days=1)
    assert sorted(requests.purge(ZONE)) == [yesterday_kept_open.number, today.number]
    assert list(handoff_dir().glob("*.png")) == []
    assert requests.open_requests(ZONE) == []


def test_an_old_copy_no_row_names_is_purged(requests, clock, tmp_path):
    snapshot = tmp_path / "after.png"
    snapshot.write_bytes(b"png")
    orphan = handoff_dir() / copy_photo(snapshot)
    fresh = handoff_dir() / copy_photo(snapshot)
    hour_ago = clock.now.timestamp() - 3_700
    os.utime(orphan, (hour_ago, hour_ago))
    os.utime(fresh, (clock.now.timestamp(), clock.now.timestamp()))
    requests.purge(ZONE)
    assert not orphan.exists() and fresh.exists()  # a copy whose row is being written now stays


def test_a_request_needs_a_style(requests):
    with pytest.raises(ValueError, match="HANDOFF_NO_STYLE"):
        ask(requests, code="")
