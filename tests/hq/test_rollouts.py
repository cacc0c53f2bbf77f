"""Staged publishing at the feed (issue #25 point 10), on SQLite, PostgreSQL and PostgreSQL + S3: which feed each
kiosk pages, what each sees of a held version, widening and rolling back, as the changes and snapshot routes
answer them; the canary poll's cost; the canary period's setting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from nailmirror_hq import catalog, db, feed, meta, rollout_actions, rollouts, style_folder
from nailmirror_hq.api.app import create_app
from nailmirror_hq.config import Settings, canary_period
from nailmirror_hq.service import HQ
from nailmirror_protocol import paths
from tests.support.hq_fixtures import new_kiosk
from tests.support.hq_fixtures import style_folder as make_folder


def new_version(hq: HQ, style_id: str, root: Path, name: str, salt: int) -> None:
    folder = style_folder.read(make_folder(root, name=name, salt=salt))
    for img in folder.images:
        catalog.store_blob(hq.blobs, img.data, img.sha256)
    with db.write(hq.engine) as conn:
        for img in folder.images:
            catalog.record_blob(conn, img.sha256, len(img.data), img.format, img.width, img.height)
        body = catalog.folder_body(folder, name_zh=name, name_en="", category_code=None, tags=[], prompt="")
        catalog.replace_body(conn, style_id, body, "test")


class Kiosk:
    """A kiosk's side of the wire, by hand: a snapshot, then pages from its cursor."""

    def __init__(self, client: TestClient, headers: dict[str, str]) -> None:
        self.client, self.headers = client, headers
        self.cursor = ""
        self.styles: dict[str, tuple[int, str]] = {}
        self.state: Any = None

    def snapshot(self) -> None:
        answer = self.client.get(paths.CATALOG_SNAPSHOT, headers=self.headers).json()
        self.cursor, self.state = answer["cursor"], answer["state"]
        self.styles = {s["id"]: (s["version"], s["style"]["name"]["zh"]) for s in answer["styles"]}

    def poll(self) -> list[dict[str, Any]]:
        """The style changes of one poll (applied); a 410 is returned as [{"reset": reason}] and not applied."""
        answer = self.client.get(f"{paths.CATALOG_CHANGES}?since={self.cursor}", headers=self.headers)
        if answer.status_code == 410:
            return [{"reset": answer.json()["details"]["reason"], "message": answer.json()["message"]}]
        assert answer.status_code == 200, answer.text
        page = answer.json()
        self.cursor, self.state = page["next"], page["state"]
        changes = [c for c in page["changes"] if c["type"] == "style"]
        for c in changes:
            if c["op"] == "upsert":
                self.styles[c["id"]] = (c["version"], c["style"]["name"]["zh"])
            else:
                self.styles.pop(c["id"], None)
        return changes


def test_held_widened_and_rolled_back_as_each_kiosk_pages_it(hq: HQ, client: TestClient, tmp_path: Path) -> None:
    canary_store, canary_headers = new_kiosk(hq, client, "SH-0012")
    _, other_headers = new_kiosk(hq, client, "BJ-0001")
    style = catalog.import_folder(hq.engine, hq.blobs, make_folder(tmp_path / "v1", name="一版", salt=1),
                                  actor="t", publish=True)
    canary, other = Kiosk(client, canary_headers), Kiosk(client, other_headers)
    canary.snapshot()
    other.snapshot()
    with db.write(hq.engine) as conn:
        rollouts.add_canary(conn, "all", canary_store, "t")
    reset = canary.poll()
    assert reset[0]["reset"] == "channel_changed" and "joined the canary set" in reset[0]["message"]
    canary.snapshot()
    assert canary.styles == other.styles == {style.id: (2, "一版")} and canary.state == other.state

    new_version(hq, style.id, tmp_path / "v2", "二版", salt=2)
    assert [(c["op"], c["version"]) for c in canary.poll()] == [("upsert", 3)]
    assert other.poll() == []  # nothing of the held version reaches the rest of the channel
    assert canary.styles[style.id] == (3, "二版") and other.styles[style.id] == (2, "一版")
    assert canary.state != other.state  # each feed's digest is its own live set's
    other.snapshot()
    assert other.styles[style.id] == (2, "一版")  # nor does its snapshot

    with db.write(hq.engine) as conn:
        (held,) = [r for r in rollouts.list_rollouts(conn, subject_id=style.id) if r.stage == rollouts.CANARY]
        rollout_actions.widen(conn, held.id, "t")
    assert [(c["op"], c["version"]) for c in other.poll()] == [("upsert", 3)]
    assert canary.poll() == []  # it had this version first: no change for it
    assert canary.styles == other.styles and canary.state == other.state

    with db.write(hq.engine) as conn:
        rollout_actions.rollback(conn, style.id, "t")
    for kiosk in (canary, other):
        assert [(c["op"], c["version"]) for c in kiosk.poll()] == [("upsert", 4)]
        assert kiosk.styles[style.id] == (4, "一版")
    with db.write(hq.engine) as conn:
        rollouts.remove_canary(conn, "all", canary_store, "t")
    reset = canary.poll()
    assert reset[0]["reset"] == "channel_changed" and "left the canary set" in reset[0]["message"]


def test_a_held_version_replaced_in_canary_keeps_the_channels_version_as_previous(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    """Two versions in a row while in canary: the second's previous is what the rest of the channel shows (the
    first publish), so rolling it back never brings a version only canary stores saw to everyone."""
    canary_store, _ = new_kiosk(hq, client, "SH-0012")
    style = catalog.import_folder(hq.engine, hq.blobs, make_folder(tmp_path / "v1", name="一版", salt=1),
                                  actor="t", publish=True)
    with db.write(hq.engine) as conn:
        rollouts.add_canary(conn, "all", canary_store, "t")
    new_version(hq, style.id, tmp_path / "v2", "二版", salt=2)
    new_version(hq, style.id, tmp_path / "v3", "三版", salt=3)
    with db.read(hq.engine) as conn:
        newest, replaced = rollouts.list_rollouts(conn, subject_id=style.id)[:2]
        assert feed.live_version(conn, "all", "style", style.id) == 2
    assert (replaced.stage, newest.stage, newest.previous_version) == ("SUPERSEDED", "CANARY", 2)
    with db.write(hq.engine) as conn:
        row, undone = rollout_actions.rollback(conn, style.id, "t")
    assert undone.id == newest.id and row.body["name"]["zh"] == "一版"


def test_a_channel_made_during_a_canary_gets_the_channels_version_then_the_widened_one(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    canary_store, _ = new_kiosk(hq, client, "SH-0012")
    style = catalog.import_folder(hq.engine, hq.blobs, make_folder(tmp_path / "v1", name="一版", salt=1),
                                  actor="t", publish=True)
    with db.write(hq.engine) as conn:
        rollouts.add_canary(conn, "all", canary_store, "t")
    new_version(hq, style.id, tmp_path / "v2", "二版", salt=2)
    _, north_headers = new_kiosk(hq, client, "N-1", channel="north")  # a new channel, while v3 is in canary
    north = Kiosk(client, north_headers)
    north.snapshot()
    assert north.styles == {style.id: (2, "一版")}
    with db.write(hq.engine) as conn:
        rollout_actions.widen(conn, rollouts.list_rollouts(conn, subject_id=style.id)[0].id, "t")
    assert [(c["op"], c["version"]) for c in north.poll()] == [("upsert", 3)]


def test_taking_down_a_style_held_in_canary_takes_it_off_the_canary_kiosks(
        hq: HQ, client: TestClient, tmp_path: Path) -> None:
    canary_store, canary_headers = new_kiosk(hq, client, "SH-0012")
    with db.write(hq.engine) as conn:
        rollouts.add_canary(conn, "all", canary_store, "t")
    canary = Kiosk(client, canary_headers)
    canary.snapshot()
    style = catalog.import_folder(hq.engine, hq.blobs, make_folder(tmp_path / "v1", name="新款", salt=1),
                                  actor="t", publish=True)
    assert [c["op"] for c in canary.poll()] == ["upsert"]
    with db.write(hq.engine) as conn:
        catalog.set_status(conn, style.id, "WITHDRAWN", "t")
        assert rollouts.list_rollouts(conn, subject_id=style.id)[0].stage == rollouts.SUPERSEDED
    assert [c["op"] for c in canary.poll()] == ["delete"] and canary.styles == {}


def test_a_canary_kiosks_poll_costs_what_anothers_does(hq_sqlite: HQ) -> None:
    """The poll stays one range scan on (channel, seq) whichever feed it reads, with as many statements."""
    from sqlalchemy import event

    hq = hq_sqlite
    client = TestClient(create_app(hq))
    canary_store, canary_headers = new_kiosk(hq, client, "SH-0012")
    _, other_headers = new_kiosk(hq, client, "BJ-0001")
    with db.write(hq.engine) as conn:
        rollouts.add_canary(conn, "all", canary_store, "t")
        for i in range(50):
            feed.append(conn, "all", "tag", "upsert", f"t{i}", 1, {"code": f"t{i}"})
    counts = {}
    for name, headers, code in (("canary", canary_headers, "~all"), ("other", other_headers, "all")):
        client.get(paths.CATALOG_SNAPSHOT, headers=headers)
        with db.read(hq.engine) as conn:
            cursor = f"{meta.epoch(conn)}.{feed.head(conn, code).head_seq}"  # type: ignore[union-attr]
        client.get(f"{paths.CATALOG_CHANGES}?since={cursor}", headers=headers)  # the digest is cached from here
        seen: list[tuple[str, object]] = []

        def record(_conn: object, _cursor: object, statement: str, parameters: object, *_: object) -> None:
            if statement.lstrip().upper().startswith("SELECT"):
                seen.append((statement, parameters))  # noqa: B023 (used before the next loop turn)

        event.listen(hq.engine, "before_cursor_execute", record)
        try:
            answer = client.get(f"{paths.CATALOG_CHANGES}?since={cursor}", headers=headers)
        finally:
            event.remove(hq.engine, "before_cursor_execute", record)
        assert answer.status_code == 200 and answer.json()["changes"] == []
        counts[name] = len(seen)
        with hq.engine.connect() as conn:
            for statement, parameters in seen:
                plan = " | ".join(str(row[-1]) for row in conn.exec_driver_sql(
                    f"EXPLAIN QUERY PLAN {statement}", parameters).all())  # type: ignore[arg-type]
                assert "SCAN" not in plan and "SEARCH" in plan, (statement, plan)
    assert counts["canary"] == counts["other"]


def test_the_canary_period_comes_from_the_config_file(tmp_path: Path) -> None:
    settings = Settings(tmp_path, "sqlite://", tmp_path.as_uri(), None)
    assert canary_period(settings).total_seconds() == 24 * 3600  # no file: the default
    settings.config_path.write_text("[rollouts]\ncanary_hours = 2.5\n", encoding="utf-8")
    assert canary_period(settings).total_seconds() == 9000
    settings.config_path.write_text("[rollouts]\ncanary_hours = 0\n", encoding="utf-8")
    with pytest.raises(ValueError, match="canary_hours must be a positive number"):
        canary_period(settings)



def test_the_maintenance_scheduler_widens_what_is_due(hq_sqlite: HQ, tmp_path: Path) -> None:
    """`serve`'s scheduler runs the auto-widen on its first tick (a canary period of zero: due at once)."""
    import threading
    import time
    from datetime import timedelta

    from nailmirror_hq import maintenance

    hq = hq_sqlite
    client = TestClient(create_app(hq))
    canary_store, _ = new_kiosk(hq, client, "SH-0012")
    style = catalog.import_folder(hq.engine, hq.blobs, make_folder(tmp_path / "v1", name="一版", salt=1),
                                  actor="t", publish=True)
    with db.write(hq.engine) as conn:
        rollouts.add_canary(conn, "all", canary_store, "t")
    new_version(hq, style.id, tmp_path / "v2", "二版", salt=2)
    scheduler = maintenance.Scheduler(hq.engine, hq.blobs, tick=timedelta(hours=1),
                                      canary_period=timedelta(0)).start()
    waited = threading.Event()
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with db.read(hq.engine) as conn:
                if rollouts.list_rollouts(conn, subject_id=style.id)[0].stage == rollouts.WIDENED:
                    break
            waited.wait(0.05)
    finally:
        scheduler.stop()
    with db.read(hq.engine) as conn:
        widened = rollouts.list_rollouts(conn, subject_id=style.id)[0]
        assert widened.stage == rollouts.WIDENED and widened.widened_by == rollout_actions.AUTO_ACTOR
        assert feed.live_version(conn, "all", "style", style.id) == 3
    assert scheduler.last_error is None
