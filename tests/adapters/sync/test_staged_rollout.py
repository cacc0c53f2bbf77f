"""Staged publishing (issue #25 point 10), with real kiosks syncing from the real HQ on loopback, on both HQ
set-ups: a publish reaches the channel's canary stores first; widening (an operator, or the clock after a period
with no failure reported) brings it to the rest; a roll-back makes the previous version current everywhere; the
rollout report counts the kiosks that show it. Two kiosks, each with its own data directory."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from nailmirror_hq import catalog, db, rollout_actions, rollout_report, rollouts, style_folder
from nailmirror_hq.errors import HQError
from tests.support.hq_fixtures import style_folder as make_folder
from tests.support.sync_fixtures import rig_on
from tests.support.sync_rig import FaultProxy, HqRig, Rule, answer, enroll, local_styles, nailmirror

pytestmark = pytest.mark.slow  # two kiosks' sync cycles and HQ's CLI as a process: seconds each


@pytest.fixture(params=["sqlite", pytest.param("postgresql+s3", marks=pytest.mark.slow)])
def any_rig(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HqRig]:
    hq = rig_on(request.param, request, tmp_path, monkeypatch)
    yield hq
    hq.stop()


class Kiosks:
    """Kiosks of their own stores, each with its own data directory (NAILMIRROR_HOME switched per call)."""

    def __init__(self, rig: HqRig, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rig, self.root, self.monkeypatch = rig, root, monkeypatch
        self.stores: dict[str, str] = {}

    def use(self, name: str) -> None:
        home = self.root / f"kiosk-{name}"
        home.mkdir(exist_ok=True)
        self.monkeypatch.setenv("NAILMIRROR_HOME", str(home))

    def enroll(self, name: str, url: str | None = None) -> str:
        self.use(name)
        self.stores[name] = enroll(self.rig, url)
        return self.stores[name]

    def sync(self, name: str, ok: bool = True) -> None:
        self.use(name)
        run = nailmirror("sync", "now")
        assert (run.rc == 0) is ok, run.err

    def shown(self, name: str, style_id: str) -> str | None:
        """The name a customer sees for the style on this kiosk (None: not shown)."""
        self.use(name)
        found = [s for s in local_styles("--customer") if s["client_uid"] == style_id]
        return str(found[0]["name"]) if found else None


def new_version(rig: HqRig, style_id: str, name: str, salt: int) -> None:
    """HQ edits a published style: new images and a new name (what approving a store's revision also does)."""
    folder = style_folder.read(make_folder(rig.root / "edits", name=name, salt=salt))
    for img in folder.images:
        catalog.store_blob(rig.hq.blobs, img.data, img.sha256)
    with db.write(rig.hq.engine) as conn:
        for img in folder.images:
            catalog.record_blob(conn, img.sha256, len(img.data), img.format, img.width, img.height)
        body = catalog.folder_body(folder, name_zh=name, name_en="", category_code=None, tags=[], prompt="")
        catalog.replace_body(conn, style_id, body, "test")


def latest(rig: HqRig, style_id: str) -> rollout_report.RolloutReport:
    with db.read(rig.hq.engine) as conn:
        return rollout_report.report(conn, rollouts.list_rollouts(conn, subject_id=style_id)[0])


def canary(rig: HqRig, store_id: str, add: bool = True) -> Any:
    return rig.cli("channels", "canary", "all", "--add" if add else "--remove", store_id)


@pytest.fixture
def kiosks(any_rig: HqRig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Kiosks:
    return Kiosks(any_rig, tmp_path, monkeypatch)


def test_canary_first_then_widen_then_roll_back_on_both_setups(any_rig: HqRig, kiosks: Kiosks) -> None:
    rig = any_rig
    style_id = rig.publish_new("樱花一版")
    canary_store = kiosks.enroll("canary")
    kiosks.enroll("other")
    assert canary(rig, canary_store) == {"channel": "all", "canary_stores": [canary_store], "count": 1}
    for name in ("canary", "other"):
        kiosks.sync(name)
        assert kiosks.shown(name, style_id) == "樱花一版"

    new_version(rig, style_id, "樱花二版", salt=90)
    for name in ("canary", "other"):
        kiosks.sync(name)
    assert kiosks.shown("canary", style_id) == "樱花二版"
    assert kiosks.shown("other", style_id) == "樱花一版"  # the rest of the channel keeps the published version
    staged = latest(rig, style_id)
    assert staged.rollout.stage == "CANARY" and staged.rollout.held == ("all",)
    assert (staged.in_scope, staged.showing, staged.failing) == (1, 1, 0)  # the canary kiosk, past the change

    widened = rig.cli("rollouts", "widen", str(staged.rollout.id))
    assert widened["stage"] == "WIDENED" and widened["kiosks_in_scope"] == 2 and widened["kiosks_showing"] == 1
    for name in ("canary", "other"):
        kiosks.sync(name)
        assert kiosks.shown(name, style_id) == "樱花二版"
    shown = rig.cli("rollouts", "show", str(staged.rollout.id))
    assert (shown["kiosks_in_scope"], shown["kiosks_showing"], shown["kiosks_pending"]) == (2, 2, 0)
    assert {k["state"] for k in shown["kiosks"]} == {"showing"}

    with db.read(rig.hq.engine) as conn:
        code = catalog.get_style(conn, style_id).style_code  # type: ignore[union-attr]
    back = rig.cli("styles", "rollback", code)
    assert back["rolled_back_rollout"] == staged.rollout.id and back["restored_version"] == 2
    for name in ("canary", "other"):
        kiosks.sync(name)
        assert kiosks.shown(name, style_id) == "樱花一版"  # v1's content, as a newer version everywhere
    assert latest(rig, style_id).rollout.stage == "ROLLED_BACK"


def test_a_new_style_in_canary_is_nowhere_else_and_leaving_the_set_takes_it_away(
        any_rig: HqRig, kiosks: Kiosks) -> None:
    rig = any_rig
    canary_store = kiosks.enroll("canary")
    kiosks.enroll("other")
    canary(rig, canary_store)
    style_id = rig.publish_new("新款")
    for name in ("canary", "other"):
        kiosks.sync(name)
    assert kiosks.shown("canary", style_id) == "新款" and kiosks.shown("other", style_id) is None
    # Out of the set: its kiosk's next poll is a 410 and a snapshot of the channel's own feed, which lacks it.
    assert canary(rig, canary_store, add=False)["canary_stores"] == []
    kiosks.sync("canary")
    assert kiosks.shown("canary", style_id) is None
    with db.read(rig.hq.engine) as conn:
        rollout_id = rollouts.list_rollouts(conn, subject_id=style_id)[0].id
    rig.cli("rollouts", "widen", str(rollout_id))
    for name in ("canary", "other"):
        kiosks.sync(name)
        assert kiosks.shown(name, style_id) == "新款"


def test_the_clock_widens_a_quiet_canary_but_not_one_with_a_failed_download(
        rig: HqRig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kiosks = Kiosks(rig, tmp_path, monkeypatch)
    proxy = FaultProxy(rig.server.port)
    try:
        style_id = rig.publish_new("一版")
        canary_store = kiosks.enroll("canary", proxy.url)
        kiosks.enroll("other")
        canary(rig, canary_store)
        kiosks.sync("canary")
        kiosks.sync("other")
        new_version(rig, style_id, "二版", salt=91)
        nail = next(a["sha256"] for a in rig.style_assets(style_id) if a["type"] == "NAIL_TEXTURE")
        gone = answer(404, "Not Found", {"Content-Type": "application/json"},
                      b'{"nm":1,"error":{"code":"not_found","message":"no such blob"}}')
        proxy.rules.append(Rule(f"/v1/blobs/{nail}", times=100, answer=gone))
        kiosks.sync("canary", ok=False)  # the new version's blob fails: the old version keeps showing
        kiosks.sync("canary", ok=False)  # this cycle's report tells HQ
        assert kiosks.shown("canary", style_id) == "一版"
        report = latest(rig, style_id)
        assert (report.failing, report.showing) == (1, 0)

        period = timedelta(hours=24)
        assert rollout_actions.auto_widen(rig.hq.engine, period) == {}  # not yet due
        later = datetime.now(UTC) + period + timedelta(minutes=1)
        assert rollout_actions.auto_widen(rig.hq.engine, period, now=later) == {
            report.rollout.id: "held: 1 kiosk(s) failing"}
        kiosks.sync("other")
        assert kiosks.shown("other", style_id) == "一版"

        proxy.rules.clear()  # HQ's store answers again
        kiosks.sync("canary")
        kiosks.sync("canary")  # and the report says so
        assert kiosks.shown("canary", style_id) == "二版" and latest(rig, style_id).failing == 0
        assert rollout_actions.auto_widen(rig.hq.engine, period, now=later) == {report.rollout.id: "widened"}
        kiosks.sync("other")
        assert kiosks.shown("other", style_id) == "二版"
        assert latest(rig, style_id).rollout.widened_by == rollout_actions.AUTO_ACTOR
    finally:
        proxy.stop()


def test_a_channel_without_canary_stores_publishes_to_everyone_and_refusals_say_why(
        rig: HqRig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kiosks = Kiosks(rig, tmp_path, monkeypatch)
    store_id = kiosks.enroll("one")
    style_id = rig.publish_new("直接")
    kiosks.sync("one")
    assert kiosks.shown("one", style_id) == "直接"
    first = latest(rig, style_id)
    assert first.rollout.stage == "WIDENED" and first.rollout.held == ()
    with db.write(rig.hq.engine) as conn, pytest.raises(HQError, match="only one in canary widens"):
        rollout_actions.widen(conn, first.rollout.id, "test")
    with db.write(rig.hq.engine) as conn, pytest.raises(HQError, match="no earlier published version"):
        rollout_actions.rollback(conn, style_id, "test")
    with db.write(rig.hq.engine) as conn:
        catalog.ensure_channel(conn, "vip")
    with db.write(rig.hq.engine) as conn, pytest.raises(HQError, match="is on channel all, not vip"):
        rollouts.add_canary(conn, "vip", store_id, "test")
