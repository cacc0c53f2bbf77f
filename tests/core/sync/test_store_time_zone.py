"""HQ's store time zone (#22.7, #25.11): recorded in the kiosk's sync state, read back only when known, and
adopted from HQ's hello at every sync."""

from __future__ import annotations

import json

import httpx
import pytest

from nailmirror_desktop.app.services import open_repository
from nailmirror_desktop.core.sync import state
from nailmirror_protocol import paths, wire
from tests.support.sync_rig import FaultProxy, HqRig, Rule, answer, enroll, nailmirror


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


# --- HQ's zone over the wire (#25.11): the real HQ on loopback, the kiosk's own `nailmirror sync now` ---------------

def _kiosk_zone() -> str | None:
    repo = open_repository(load_catalog=False)
    try:
        return state.store_time_zone(repo.conn)
    finally:
        repo.conn.close()


@pytest.mark.slow
def test_a_kiosk_adopts_the_zone_hq_set_for_its_store_at_each_sync(rig: HqRig) -> None:
    from nailmirror_desktop.core.config import load_config, save_config
    from nailmirror_hq import db, stores

    save_config(load_config().with_changes(store_time_zone="Europe/Paris"))  # staff's own choice before enrolling
    store_id = enroll(rig)
    assert nailmirror("sync", "now").rc == 0
    assert _kiosk_zone() == "Asia/Shanghai" == load_config().store_time_zone  # HQ's default for a store
    with db.write(rig.hq.engine) as conn:
        stores.set_time_zone(conn, store_id, "Asia/Urumqi", "test")
    assert _kiosk_zone() == "Asia/Shanghai"  # not before the next sync
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err
    assert _kiosk_zone() == "Asia/Urumqi" == load_config().store_time_zone


@pytest.mark.slow
def test_an_hq_older_than_the_field_leaves_the_kiosk_s_zone_to_staff(rig: HqRig, proxy: FaultProxy) -> None:
    """Old HQ ↔ new kiosk: a hello without store_time_zone (HQ's real answer with the field taken out) records
    nothing, so staff settings stay editable. New HQ ↔ old kiosk: an unknown field is skipped by any reader."""
    from nailmirror_desktop.core.config import load_config, save_config

    save_config(load_config().with_changes(store_time_zone="Europe/Paris"))
    enroll(rig, proxy.url)
    token = _token()
    real = httpx.get(rig.url + paths.HELLO, headers={"Authorization": f"Bearer {token}"}).json()
    assert real["store_time_zone"] == "Asia/Shanghai"
    old = {k: v for k, v in real.items() if k != "store_time_zone"}
    body = json.dumps(old).encode()
    proxy.rules.append(Rule(paths.HELLO, times=10, answer=answer(200, "OK", {"Content-Type": "application/json"},
                                                                 body)))
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err
    assert _kiosk_zone() is None and load_config().store_time_zone == "Europe/Paris"
    reading = wire.Reading()
    assert "store_time_zone" not in wire.read_hello(old, reading)
    assert wire.read_hello(real)["store_time_zone"] == "Asia/Shanghai"


def test_a_kiosk_older_than_the_field_reads_the_new_hello_and_skips_it() -> None:
    """New HQ ↔ old kiosk: the reader of the release before the field (git's main branch at the time, kept here
    as tests/core/sync/data/wire_before_time_zone.py) takes a hello carrying store_time_zone and names it skipped."""
    import importlib.util
    import sys
    from pathlib import Path

    old_path = Path(__file__).parent / "data" / "wire_before_time_zone.py"
    spec = importlib.util.spec_from_file_location("wire_before_time_zone", old_path)
    assert spec is not None and spec.loader is not None
    old_wire = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = old_wire  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(old_wire)
    finally:
        del sys.modules[spec.name]
    hello = {"nm": 1, "epoch": "e" * 16, "store_id": "st_A", "kiosk_id": "k_1", "channel": "all",
             "poll_interval_s": 300, "store_time_zone": "Asia/Urumqi"}
    reading = old_wire.Reading()
    read = old_wire.read_hello(hello, reading)
    assert read["epoch"] == "e" * 16 and "store_time_zone" not in read
    assert any("store_time_zone" in name for name in reading.skipped)


def test_a_zone_name_that_could_be_a_path_refuses_the_hello() -> None:
    hello = {"nm": 1, "epoch": "e" * 16, "store_time_zone": "../../etc/passwd"}
    with pytest.raises(wire.WireError, match="store_time_zone"):
        wire.read_hello(hello)


def _token() -> str:
    repo = open_repository(load_catalog=False)
    try:
        current = state.load(repo.conn)
        assert current is not None
        return current.token
    finally:
        repo.conn.close()
