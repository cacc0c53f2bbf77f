"""The failure table (shared/reference/catalog_sync.md §7) through a fault-injecting proxy in front of the real
HQ app on loopback; the kiosk runs its own `nailmirror sync now`."""

from __future__ import annotations

import hashlib
import json
import os
import struct
import zlib
from pathlib import Path

import pytest

from nailmirror_desktop.adapters.sync.client import HttpHq
from nailmirror_desktop.core.sync.errors import Fault, SyncError
from nailmirror_hq import catalog
from tests.support.sync_rig import FaultProxy, HqRig, Rule, answer, enroll, local_styles, nailmirror


def noisy_png(width: int = 300, height: int = 300, seed: int = 1) -> bytes:
    """A real PNG that does not compress (random pixels): big enough to cut mid-body."""
    rows = b"".join(b"\x00" + os.urandom(width * 3) for _ in range(height)) if seed else b""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 0)) + chunk(b"IEND", b""))


def publish_big(rig: HqRig, root: Path) -> tuple[str, str, int]:
    """A published style whose nail texture is ~270 KB; (style id, that blob's sha256, its size)."""
    folder = root / "big"
    folder.mkdir(parents=True)
    nail = noisy_png()
    (folder / "nail.png").write_bytes(nail)
    (folder / "preview.png").write_bytes(noisy_png(40, 30))
    (folder / "style.json").write_text(json.dumps({"name": "大图款"}, ensure_ascii=False), encoding="utf-8")
    row = catalog.import_folder(rig.hq.engine, rig.hq.blobs, folder, actor="test", publish=True)
    return row.id, hashlib.sha256(nail).hexdigest(), len(nail)


def visible(style_id: str) -> bool:
    return style_id in {s["client_uid"] for s in local_styles("--customer")}


def status() -> dict[str, object]:
    result: dict[str, object] = nailmirror("sync", "status", "--json").json()
    return result


@pytest.mark.slow
def test_offline_then_back(rig: HqRig, proxy: FaultProxy) -> None:
    enroll(rig, proxy.url)
    proxy.down = True
    failed = nailmirror("sync", "now")
    assert failed.rc == 1 and "OFFLINE" in failed.err and len(failed.err.strip().splitlines()) == 1
    report = status()
    assert report["state"] == "OFFLINE" and report["offline_since"] and report["cursor"] is None
    proxy.down = False
    style_id = rig.publish_new()
    assert nailmirror("sync", "now").rc == 0
    report = status()
    assert report["state"] == "OK" and report["offline_since"] is None and report["last_success_at"]
    assert visible(style_id)


@pytest.mark.slow
def test_reset_mid_blob_resumes_with_range(rig: HqRig, proxy: FaultProxy, tmp_path: Path) -> None:
    enroll(rig, proxy.url)
    style_id, sha256, size = publish_big(rig, tmp_path)
    proxy.rules.append(Rule(path=f"/v1/blobs/{sha256}", cut_after=size // 2))
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err
    gets = [h for h in proxy.seen if f"/v1/blobs/{sha256}" in h.split("\r\n", 1)[0]]
    assert len(gets) == 2
    assert "range: bytes=" not in gets[0].lower()
    ranged = next(line for line in gets[1].split("\r\n") if line.lower().startswith("range:"))
    resumed_from = int(ranged.split("=")[1].rstrip("-"))
    assert 0 < resumed_from < size  # it asked only for the rest
    assert f'"{sha256}"' in gets[1]  # If-Range: the blob's ETag
    assert visible(style_id)
    shown = nailmirror("styles", "show", next(s["style_code"] for s in local_styles() if s["client_uid"] == style_id),
                       "--json").json()
    assert sha256 in {a["file_sha256"] for a in shown["assets"]}


@pytest.mark.slow
def test_reset_mid_page_keeps_the_old_cursor_then_applies(rig: HqRig, proxy: FaultProxy) -> None:
    enroll(rig, proxy.url)
    assert nailmirror("sync", "now").rc == 0
    cursor = status()["cursor"]
    style_id = rig.publish_new()
    proxy.rules.append(Rule(path="/v1/catalog/changes", cut_after=300))
    failed = nailmirror("sync", "now")
    assert failed.rc == 1 and "OFFLINE" in failed.err
    assert status()["cursor"] == cursor and not visible(style_id)
    assert nailmirror("sync", "now").rc == 0
    assert status()["cursor"] != cursor and visible(style_id)


@pytest.mark.slow
def test_hash_mismatch_refetches_once_then_the_style_stays_hidden(rig: HqRig, proxy: FaultProxy) -> None:
    enroll(rig, proxy.url)
    style_id = rig.publish_new()
    nail = next(a for a in rig.style_assets(style_id) if a["type"] == "NAIL_TEXTURE")
    path = rig.blob_path(nail["sha256"])
    data = bytearray(path.read_bytes())
    data[-20] ^= 0xFF  # HQ's copy rotted on disk: same size, other bytes
    path.write_bytes(bytes(data))
    run = nailmirror("sync", "now")
    assert run.rc == 1 and "download(s) failed" in run.err and "hash_mismatch" in run.err
    assert sum(f"/v1/blobs/{nail['sha256']}" in p for p in proxy.paths()) == 2  # once, then once more
    assert not visible(style_id)
    assert status()["pending_downloads"] == 1


@pytest.mark.slow
def test_blob_404_is_a_dead_letter_and_the_style_stays_hidden(rig: HqRig, proxy: FaultProxy) -> None:
    enroll(rig, proxy.url)
    style_id = rig.publish_new()
    nail = next(a for a in rig.style_assets(style_id) if a["type"] == "NAIL_TEXTURE")
    body = json.dumps({"nm": 1, "error": "not_found", "message": "no such blob", "retryable": False}).encode()
    proxy.rules.append(Rule(path=f"/v1/blobs/{nail['sha256']}", times=10,
                            answer=answer(404, "Not Found", {"Content-Type": "application/json"}, body)))
    run = nailmirror("sync", "now")
    assert run.rc == 1 and "not_found" in run.err
    assert sum(f"/v1/blobs/{nail['sha256']}" in p for p in proxy.paths()) == 1  # no retry
    assert not visible(style_id)
    dead = nailmirror("tasks", "list", "--status", "DEAD", "--type", "BLOB_FETCH", "--json")
    assert dead.rc == 0 and len(dead.json()) == 1


@pytest.mark.slow
def test_410_epoch_change_replaces_the_catalog(rig: HqRig, proxy: FaultProxy) -> None:
    enroll(rig, proxy.url)
    kept, dropped = rig.publish_new("保留款"), rig.publish_new("下架款")
    assert nailmirror("sync", "now").rc == 0
    assert visible(kept) and visible(dropped)
    starter = {s["client_uid"] for s in local_styles() if s["owner"] == "LOCAL"}
    old_epoch = str(status()["cursor"]).split(".")[0]
    rig.set_status(dropped, "WITHDRAWN")
    rig.new_epoch()  # HQ restored: the kiosk's cursor is from another history
    assert nailmirror("sync", "now").rc == 0
    assert visible(kept) and not visible(dropped)
    assert str(status()["cursor"]).split(".")[0] != old_epoch
    assert starter <= {s["client_uid"] for s in local_styles() if s["owner"] == "LOCAL"}  # never HQ's: kept


@pytest.mark.slow
def test_captive_portal_page_is_transient_and_nothing_is_applied(rig: HqRig, proxy: FaultProxy) -> None:
    enroll(rig, proxy.url)
    style_id = rig.publish_new()
    proxy.rules.append(Rule(path="/v1/hello", answer=answer(200, "OK", {"Content-Type": "text/html"},
                                                             b"<html>Please log in to Store-WiFi</html>")))
    run = nailmirror("sync", "now")
    assert run.rc == 1 and "captive_portal" in run.err
    assert status()["state"] == "OFFLINE" and not visible(style_id)


@pytest.mark.slow
def test_503_retry_after_is_honoured(rig: HqRig, proxy: FaultProxy) -> None:
    enroll(rig, proxy.url)
    body = json.dumps({"nm": 1, "error": "unavailable", "message": "maintenance", "retryable": True}).encode()
    proxy.rules.append(Rule(path="/v1/hello", answer=answer(503, "Service Unavailable",
                                                             {"Content-Type": "application/json",
                                                              "Retry-After": "120"}, body)))
    first = nailmirror("sync", "now")
    assert first.rc == 1 and "unavailable" in first.err
    seen = len(proxy.seen)
    second = nailmirror("sync", "now")
    assert second.rc == 1 and "wait" in second.err
    assert len(proxy.seen) == seen  # it did not ask HQ again before Retry-After


@pytest.mark.slow
def test_revoked_kiosk_stops_asking(rig: HqRig, proxy: FaultProxy) -> None:
    store_id = enroll(rig, proxy.url)
    assert nailmirror("sync", "now").rc == 0
    rig.revoke(store_id)
    assert nailmirror("sync", "now").rc == 1
    seen = len(proxy.seen)
    for _ in range(5):
        run = nailmirror("sync", "now")
        assert run.rc == 1 and "REVOKED" in run.err
    assert len(proxy.seen) == seen  # no retry storm: not one more request
    assert local_styles("--customer")  # still lists (and tries on) what it has


def test_426_upgrade_required(rig: HqRig, tmp_path: Path) -> None:
    _, code = rig.add_store("SH-9")
    enrolled = HttpHq(rig.url, None, parts_dir=tmp_path).enroll(code, "k", "0.1.0")
    future = HttpHq(rig.url, enrolled["token"], parts_dir=tmp_path, protocol=99)
    with pytest.raises(SyncError) as caught:
        future.hello()
    assert caught.value.fault is Fault.UPGRADE_REQUIRED and caught.value.code == "upgrade_required"
    assert enrolled["token"] not in str(caught.value) and enrolled["token"] not in repr(future)


@pytest.mark.slow
def test_429_quota_keeps_the_draft_queued_and_sends_it_after_the_wait(rig: HqRig, proxy: FaultProxy,
                                                                      tmp_path: Path) -> None:
    from tests.support.hq_fixtures import style_folder

    enroll(rig, proxy.url)
    imported = nailmirror("styles", "import", str(style_folder(tmp_path / "q", salt=61)))
    code = imported.out.strip()
    assert nailmirror("styles", "submit", code).rc == 0
    body = json.dumps({"nm": 1, "error": "submission_quota_exceeded", "message": "over 20 drafts a day",
                       "retryable": True}).encode()
    proxy.rules.append(Rule(path="/v1/drafts/", answer=answer(429, "Too Many Requests",
                                                               {"Content-Type": "application/json",
                                                                "Retry-After": "1"}, body)))
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err  # sync now waited out the Retry-After and sent it
    puts = [p for p in proxy.paths() if p.startswith("/v1/drafts/")]
    assert len(puts) == 2
    draft_id = next(s["client_uid"] for s in local_styles() if s["style_code"] == code)
    assert [d["rev"] for d in rig.drafts() if d["draft_id"] == draft_id] == [1]
    task = nailmirror("tasks", "list", "--type", "DRAFT_PUSH", "--json").json()[0]
    assert task["status"] == "SUCCESS" and task["rate_limited_count"] == 1 and task["attempt_count"] == 1


@pytest.mark.slow
def test_410_ahead_of_server_hq_restored_without_a_new_epoch(rig: HqRig, proxy: FaultProxy) -> None:
    """HQ went back in time (an old backup restored by hand, same epoch): the kiosk's cursor is past HQ's head,
    HQ answers 410 ahead_of_server, and the kiosk resyncs from the snapshot."""
    from sqlalchemy import update

    from nailmirror_hq import db
    from nailmirror_hq.schema import channel

    enroll(rig, proxy.url)
    first = rig.publish_new("第一款")
    assert nailmirror("sync", "now").rc == 0
    with db.write(rig.hq.engine) as conn:
        conn.execute(update(channel).values(head_seq=0))
    assert nailmirror("sync", "now").rc == 0
    assert any("/v1/catalog/snapshot" in p for p in proxy.paths()[-6:])
    assert visible(first)
    assert str(status()["cursor"]).endswith(".0")


@pytest.mark.slow
def test_digest_mismatch_drift_is_repaired_by_one_resync(rig: HqRig, proxy: FaultProxy) -> None:
    """A row lost behind sync's back (the kiosk's disk image restored, a hand edit): HQ's digest on the last
    page differs from the kiosk's, and one snapshot brings the row back."""
    from nailmirror_desktop.core.db import open_database
    from nailmirror_desktop.core.paths import database_path

    enroll(rig, proxy.url)
    style_id = rig.publish_new()
    assert nailmirror("sync", "now").rc == 0
    conn = open_database(database_path())
    with conn:
        conn.execute("UPDATE style SET deleted = 1 WHERE client_uid = ?", (style_id,))
    conn.close()
    assert not visible(style_id)
    assert nailmirror("sync", "now").rc == 0
    assert visible(style_id)
    assert sum("/v1/catalog/snapshot" in p for p in proxy.paths()) == 2  # the first sync's and the repair's
    assert nailmirror("sync", "now").rc == 0  # in step again: no more snapshots
    assert sum("/v1/catalog/snapshot" in p for p in proxy.paths()) == 2


def test_sync_now_fetches_blobs_back_to_back(rig: HqRig, proxy: FaultProxy, monkeypatch: pytest.MonkeyPatch) -> None:
    """`sync now` looks at its deadline between tasks but does not wait while downloads are due: it once slept
    0.5 s after every blob (500 styles, 1,500 blobs: 12 minutes instead of seconds)."""
    from nailmirror_desktop.core.clock import SystemClock

    enroll(rig, proxy.url)
    for n in range(4):
        rig.publish_new(f"款{n}")
    naps: list[float] = []
    real_sleep = SystemClock.sleep
    monkeypatch.setattr(SystemClock, "sleep", lambda self, s: (naps.append(s), real_sleep(self, s))[1])
    assert nailmirror("sync", "now").rc == 0
    fetched = [h for h in proxy.seen if "/v1/blobs/" in h.split("\r\n", 1)[0]]
    assert len(fetched) >= 8
    assert len([n for n in naps if n >= 0.5]) <= 1, naps  # at most one, between the last download and the end
