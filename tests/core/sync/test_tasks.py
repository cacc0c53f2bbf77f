"""The running kiosk's poll timer (core/sync/tasks.py) on a real engine and database, against the real HQ behind
a fault-injecting proxy: it polls every poll_interval_s, survives the network going away, and stops for good
when HQ revokes the kiosk."""

from __future__ import annotations

import pytest

from nailmirror_desktop.app.services import register_credits, register_sync
from nailmirror_desktop.core.clock import ManualClock
from nailmirror_desktop.core.paths import database_path
from nailmirror_desktop.core.sync.tasks import SYNC_CYCLE
from nailmirror_desktop.core.tasks import TaskEngine
from tests.support.sync_rig import FaultProxy, HqRig, enroll, local_styles


def cycles(engine: TaskEngine, status: str) -> list[object]:
    return engine.list_tasks(status, SYNC_CYCLE)


@pytest.mark.slow
def test_the_poll_timer_keeps_polling_offline_and_stops_when_revoked(rig: HqRig) -> None:
    proxy = FaultProxy(rig.server.port)
    try:
        store_id = enroll(rig, proxy.url)
        local_styles()  # the starter catalog, as on a kiosk's first start
        clock = ManualClock()
        with TaskEngine(database_path(), clock=clock) as engine:
            register_credits(engine)
            register_sync(engine, periodic=True)
            style_id = rig.publish_new()
            assert engine.run_due() >= 1
            assert style_id in {s["client_uid"] for s in local_styles("--customer")}
            assert len(cycles(engine, "PENDING")) == 1  # the next poll, in poll_interval_s
            assert engine.run_due() == 0  # not due yet

            proxy.down = True
            clock.advance(301)
            engine.run_due()
            assert len(cycles(engine, "PENDING")) == 1 and not cycles(engine, "DEAD")  # offline: polls again later

            proxy.down = False
            rig.revoke(store_id)
            clock.advance(301)
            engine.run_due()
            assert not cycles(engine, "PENDING") and len(cycles(engine, "DEAD")) == 1  # revoked: the timer stops
            seen = len(proxy.seen)
            clock.advance(3600)
            engine.run_due()
            assert len(proxy.seen) == seen
    finally:
        proxy.stop()


@pytest.mark.slow
def test_more_missing_blobs_than_the_engine_backlog_takes_are_queued_by_later_cycles(rig: HqRig) -> None:
    from nailmirror_desktop.core.sync import state
    from nailmirror_desktop.core.sync.tasks import submit_cycle
    from nailmirror_desktop.core.tasks import EngineConfig

    enroll(rig)
    published = [rig.publish_new(f"款{i}") for i in range(3)]  # 3 blobs each: 9 to fetch
    with TaskEngine(database_path(), config=EngineConfig(pending_limit_per_source=4)) as engine:
        register_credits(engine)
        register_sync(engine)
        rounds = 0
        while rounds < 10:
            submit_cycle(engine, spread=False)
            engine.run_until_idle(30)
            rounds += 1
            assert not engine.list_tasks("DEAD") and not engine.list_tasks("FAILED")
            if not state.status_report(engine.connection())["pending_downloads"]:
                break
        assert rounds >= 3  # at most 3 fetches fit beside the cycle each round
    assert set(published) <= {s["client_uid"] for s in local_styles("--customer")}
