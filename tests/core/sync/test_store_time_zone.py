"""The seam for HQ's store time zone (#22.7): recorded in the kiosk's sync state, read back only when known."""

from __future__ import annotations

import pytest

from nailmirror_desktop.app.services import open_repository
from nailmirror_desktop.core.sync import state


def test_the_store_time_zone_is_recorded_in_the_sync_state_of_an_enrolled_kiosk():
    repo = open_repository(load_catalog=False)
    try:
        assert state.store_time_zone(repo.conn) is None  # not enrolled
        state.save_enrollment(repo.conn, "https://hq.example", "s1", "k1", "main", "t" * 40)
        assert state.store_time_zone(repo.conn) is None  # HQ sent none (it sends none yet)
        state.save_store_time_zone(repo.conn, "Asia/Shanghai")
        assert state.store_time_zone(repo.conn) == "Asia/Shanghai"
        with pytest.raises(ValueError, match="not a time zone"):
            state.save_store_time_zone(repo.conn, "../../etc/passwd")
        repo.conn.execute("UPDATE sync_state SET store_time_zone = 'Mars/Olympus'")  # a hand-edited row
        assert state.store_time_zone(repo.conn) is None
        state.save_store_time_zone(repo.conn, None)
        assert state.store_time_zone(repo.conn) is None
    finally:
        repo.conn.close()
