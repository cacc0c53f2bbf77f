"""A hostile or broken HQ (issue #20 §10–13, §15): answers crafted on the real wire by the fault proxy in front
of the real HQ app on loopback. Whatever HQ sends, the kiosk says what happened on one line, applies nothing of
a malformed answer, writes nothing outside its folders, never holds more of a blob than HQ declared, and
`sync now --timeout` holds."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from nailmirror_desktop.adapters.sync.client import HttpHq
from nailmirror_desktop.core.db import open_database
from nailmirror_desktop.core.paths import data_dir, database_path
from nailmirror_desktop.core.sync import state
from nailmirror_protocol import paths
from tests.adapters.sync.test_client import publish_big, status, visible
from tests.support.sync_rig import ROOT, FaultProxy, HqRig, Rule, answer, enroll, nailmirror

EVIL = "../../x"


def hq_client(rig: HqRig, url: str | None = None) -> HttpHq:
    conn = open_database(database_path())
    try:
        current = state.require(conn)
    finally:
        conn.close()
    return HttpHq(url or rig.url, current.token, parts_dir=data_dir() / "sync" / "parts")


def real_page(rig: HqRig) -> dict[str, Any]:
    """HQ's own next feed page for this kiosk (what the proxy then bends)."""
    cursor = str(status()["cursor"])
    return hq_client(rig).get_json(paths.CATALOG_CHANGES, {"since": cursor, "limit": "500"})


def json_answer(document: object) -> bytes:
    return answer(200, "OK", {"Content-Type": "application/json"}, json.dumps(document).encode())


def one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


def as_a_process(*argv: str) -> subprocess.CompletedProcess[str]:
    """`nailmirror ARGV` as staff run it: its own process, no logging configured (tests capture logs in-process,
    which would hide what Python's last-resort handler prints to a real terminal)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "nailmirror_desktop", *argv], env=env, capture_output=True,
                          text=True, timeout=120)


def synced_then_published(rig: HqRig, proxy: FaultProxy) -> tuple[str, dict[str, Any]]:
    enroll(rig, proxy.url)
    assert nailmirror("sync", "now").rc == 0
    style_id = rig.publish_new()
    return style_id, real_page(rig)


@pytest.mark.slow
def test_a_hash_that_is_a_path_refuses_the_page_and_nothing_is_written_outside(
        rig: HqRig, proxy: FaultProxy, tmp_path: Path) -> None:
    style_id, page = synced_then_published(rig, proxy)
    cursor = status()["cursor"]
    page["changes"][-1]["style"]["assets"][0]["sha256"] = EVIL
    proxy.rules.append(Rule(path=paths.CATALOG_CHANGES, answer=json_answer(page)))
    run = nailmirror("sync", "now")
    assert run.rc == 1 and one_line(run.err), run.err
    assert "malformed_answer" in run.err and "sha256 is not 64 lower-case hex digits" in run.err
    assert status()["cursor"] == cursor and not visible(style_id)
    assert not [p for p in tmp_path.rglob("x.part")] and not [p for p in tmp_path.rglob("x")]
    assert nailmirror("sync", "now").rc == 0 and visible(style_id)  # HQ's own page is then applied


@pytest.mark.parametrize("name", [EVIL, "A" * 64, "0" * 63, "0" * 64 + "\n", "../" + "0" * 61])
def test_every_blob_path_builder_refuses_anything_but_64_lower_case_hex(name: str, tmp_path: Path) -> None:
    from nailmirror_desktop.adapters.http.client import Timeouts
    from nailmirror_desktop.adapters.sync.blobs import fetch_resumable
    from nailmirror_desktop.core.catalog.assets import blob_relative_path
    from nailmirror_desktop.core.catalog.errors import StyleError
    from nailmirror_desktop.core.sync.errors import SyncError

    root = tmp_path / "root"
    parts = root / "a" / "b" / "parts"
    with pytest.raises(SyncError) as refused:
        fetch_resumable("http://127.0.0.1:9/v1/blobs/x", name, 10, headers={}, parts_dir=parts,
                        timeouts=Timeouts(1.0, 1.0))
    assert refused.value.code == "bad_sha256"
    assert not root.exists()  # not even the parts folder
    with pytest.raises(StyleError):
        blob_relative_path(name, "PNG")
    with pytest.raises(ValueError):
        paths.blob(name)


@pytest.mark.slow
def test_a_change_without_a_type_is_one_line_and_nothing_of_its_page_is_applied(
        rig: HqRig, proxy: FaultProxy) -> None:
    style_id, page = synced_then_published(rig, proxy)
    cursor = status()["cursor"]
    page["changes"].append({"seq": page["changes"][-1]["seq"] + 1, "op": "upsert", "id": "x", "version": 1})
    proxy.rules.append(Rule(path=paths.CATALOG_CHANGES, answer=json_answer(page)))
    run = nailmirror("sync", "now")
    assert run.rc == 1 and one_line(run.err), run.err
    assert f"changes[{len(page['changes']) - 1}].type is missing" in run.err and "KeyError" not in run.err
    assert status()["cursor"] == cursor and not visible(style_id)  # the good change before it: not applied
    proxy.rules.append(Rule(path=paths.CATALOG_CHANGES, answer=json_answer(page)))
    process = as_a_process("sync", "now")
    assert process.returncode == 1 and one_line(process.stderr), process.stderr


@pytest.mark.parametrize("bend", [
    lambda c: c["style"].update(name="樱花"),  # an object expected
    lambda c: c.update(version="7"),  # an integer expected
    lambda c: c["style"]["assets"][0].update(size=-1),
    lambda c: c["style"]["assets"][0].update(size=2**40),
    lambda c: c["style"].update(prompt="p" * 100_000),  # bounded strings
    lambda c: c.update(id="../styles/x"),
], ids=["name", "version", "size_negative", "size_huge", "prompt_long", "id_path"])
@pytest.mark.slow
def test_a_known_field_with_a_wrong_shape_refuses_its_page(rig: HqRig, proxy: FaultProxy, bend: Any) -> None:
    style_id, page = synced_then_published(rig, proxy)
    bend(page["changes"][-1])
    proxy.rules.append(Rule(path=paths.CATALOG_CHANGES, answer=json_answer(page)))
    run = nailmirror("sync", "now")
    assert run.rc == 1 and one_line(run.err) and "malformed_answer" in run.err, run.err
    assert not visible(style_id)


@pytest.mark.slow
def test_unknown_change_types_and_fields_are_skipped_and_logged_once(
        rig: HqRig, proxy: FaultProxy, caplog: pytest.LogCaptureFixture) -> None:
    style_id, page = synced_then_published(rig, proxy)
    seq = page["changes"][-1]["seq"]
    page["changes"][:0] = [{"seq": seq, "type": "sticker", "op": "upsert", "id": f"s{i}", "version": 1,
                            "sticker": {"glitter": True}} for i in range(3)]
    page["changes"][-1]["style"]["glitter"] = "gold"
    page["changes"][-1]["hologram"] = 1
    page["sparkle"] = True
    proxy.rules.append(Rule(path=paths.CATALOG_CHANGES, answer=json_answer(page)))
    with caplog.at_level(logging.INFO, logger="nailmirror_desktop.adapters.sync.client"):
        run = nailmirror("sync", "now")
    assert run.rc == 0, run.err
    assert visible(style_id)
    notes = [r.getMessage() for r in caplog.records if "does not know" in r.getMessage()]
    assert len(notes) == 4, notes  # the type once (not three times), and each unknown field once
    assert any("'sticker'" in n for n in notes) and any("'glitter'" in n for n in notes)


@pytest.mark.slow
def test_an_answer_past_the_declared_size_is_cut_there(rig: HqRig, proxy: FaultProxy, tmp_path: Path) -> None:
    import tracemalloc

    from nailmirror_desktop.core.sync.errors import Fault, SyncError

    enroll(rig, proxy.url)
    style_id, sha256, size = publish_big(rig, tmp_path)
    flood = 40 * 1024 * 1024  # HQ answers 40 MB for a blob its feed says is ~270 KB
    heads = [f"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n{extra}Connection: close\r\n\r\n".encode()
             for extra in (f"Content-Length: {flood}\r\n", "")]  # declared so, and not declared (read to the end)
    parts = data_dir() / "sync" / "parts"
    for head in heads:
        proxy.rules.append(Rule(path=f"/v1/blobs/{sha256}", answer=head + b"\x00" * flood))
        tracemalloc.start()
        try:
            with pytest.raises(SyncError) as cut:
                hq_client(rig, proxy.url).fetch_blob(sha256, size)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert cut.value.fault is Fault.HASH_MISMATCH and cut.value.code == "blob_oversize"
        assert peak < 2 * 1024 * 1024, peak  # chunks, never the 40 MB (nor the blob's 270 KB twice over)
        assert not list(parts.glob("*.part"))
    for _ in range(2):
        proxy.rules.append(Rule(path=f"/v1/blobs/{sha256}", answer=heads[1] + b"\x00" * flood))
    run = nailmirror("sync", "now")
    assert run.rc == 1 and one_line(run.err) and "blob_oversize" in run.err, run.err
    assert not visible(style_id) and not list(parts.glob("*.part"))
    assert nailmirror("sync", "now").rc == 0 and visible(style_id)  # HQ's real bytes then go through (§14)


@pytest.mark.slow
@pytest.mark.parametrize("dripping", ["blob", "feed"])
def test_sync_now_timeout_holds_across_everything_it_fetches(rig: HqRig, proxy: FaultProxy, tmp_path: Path,
                                                            dripping: str) -> None:
    enroll(rig, proxy.url)
    assert nailmirror("sync", "now").rc == 0
    style_id, sha256, size = publish_big(rig, tmp_path)
    path = f"/v1/blobs/{sha256}" if dripping == "blob" else paths.CATALOG_CHANGES
    proxy.rules.append(Rule(path=path, cut_after=300, drip_s=0.05, times=5))  # a byte every 50 ms
    started = time.monotonic()
    run = nailmirror("sync", "now", "--timeout", "2")
    took = time.monotonic() - started
    assert run.rc == 1 and one_line(run.err) and "timed out after 2 s" in run.err, run.err
    assert took < 6, took  # the read timeout alone (30 s per wait, 120 s per blob) would let it drip on
    assert not visible(style_id)


@pytest.mark.slow
def test_a_body_cut_short_is_named_so_not_a_captive_portal(rig: HqRig, proxy: FaultProxy) -> None:
    _style_id, page = synced_then_published(rig, proxy)
    body = json.dumps(page).encode()
    half = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n" + body[:len(body) // 2]
    proxy.rules.append(Rule(path=paths.CATALOG_CHANGES, answer=half))
    run = nailmirror("sync", "now")
    assert run.rc == 1 and one_line(run.err), run.err
    assert "truncated_answer" in run.err and "cut short" in run.err and "captive" not in run.err


@pytest.mark.slow
def test_a_feed_claiming_zero_styles_is_said_on_one_line_and_nothing_is_deleted(
        rig: HqRig, proxy: FaultProxy) -> None:
    from nailmirror_protocol.canonical import catalog_digest

    style_id, _page = synced_then_published(rig, proxy)
    assert nailmirror("sync", "now").rc == 0 and visible(style_id)
    page = real_page(rig)
    assert page["state"]["count"] >= 1
    page["state"] = {"count": 0, "digest": catalog_digest([])}
    proxy.rules.append(Rule(path=paths.CATALOG_CHANGES, answer=json_answer(page)))
    run = nailmirror("sync", "now")
    assert run.rc == 0 and one_line(run.err), run.err
    assert run.err.startswith("warning: HQ's feed says it has 0 style(s), but its snapshot gave 1")
    assert visible(style_id)  # the feed's word alone deletes nothing
    report = status()
    assert report["state"] == "OK" and "0 style(s)" in str(report["last_warning"])
    proxy.rules.append(Rule(path=paths.CATALOG_CHANGES, answer=json_answer(page)))
    process = as_a_process("sync", "now")
    assert process.returncode == 0 and one_line(process.stderr), process.stderr
    assert process.stderr.startswith("warning: HQ's feed says it has 0 style(s)")
    assert nailmirror("sync", "now").rc == 0 and status()["last_warning"] is None  # said while it lasts


def test_an_enrollment_answer_with_a_token_that_is_no_token_is_refused(rig: HqRig, proxy: FaultProxy) -> None:
    _store_id, code = rig.add_store("SH-evil")
    evil = {"nm": 1, "store_id": "st_SH-evil", "kiosk_id": "k_1", "token": "nmst_abc\r\nX-Evil: 1 and more text",
            "channel": "all", "hq_time": "2026-01-01T00:00:00.000Z"}
    proxy.rules.append(Rule(path=paths.ENROLL, answer=answer(201, "Created", {"Content-Type": "application/json"},
                                                            json.dumps(evil).encode())))
    run = nailmirror("sync", "enroll", code, "--hq", proxy.url)
    assert run.rc == 1 and one_line(run.err) and "token is not an id or code" in run.err, run.err
    assert status()["state"] == "NOT_ENROLLED"
