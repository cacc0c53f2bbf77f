"""Rows of the failure table (catalog_sync.md §4.11) the other sync tests did not reach, through the fault proxy
in front of the real HQ on loopback, with the kiosk's own `nailmirror sync now`:

- a 200 to a Range request (a proxy or CDN that ignores ranges): the part is restarted, never spliced;
- a 416 to a Range request: the part is dropped and the blob fetched from 0;
- `backoff_s` in hello: the next cycle waits that long (no request before it), and then syncs.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from nailmirror_desktop.core.paths import database_path
from tests.adapters.sync.test_client import publish_big, visible
from tests.support.sync_rig import FaultProxy, HqRig, Rule, answer, enroll, nailmirror


def _blob_gets(proxy: FaultProxy, sha256: str) -> list[str]:
    return [h for h in proxy.seen if f"/v1/blobs/{sha256}" in h.split("\r\n", 1)[0]]


@pytest.mark.slow
def test_a_200_to_a_range_request_restarts_the_part(rig: HqRig, proxy: FaultProxy, tmp_path: Path) -> None:
    enroll(rig, proxy.url)
    style_id, sha256, size = publish_big(rig, tmp_path)
    whole = rig.blob_path(sha256).read_bytes()
    full = answer(200, "OK", {"Content-Type": "image/png", "ETag": f'"{sha256}"'}, whole)
    proxy.rules += [Rule(path=f"/v1/blobs/{sha256}", cut_after=size // 3),  # a part of a third is kept
                    Rule(path=f"/v1/blobs/{sha256}", answer=full)]  # then the range is ignored
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err
    gets = _blob_gets(proxy, sha256)
    assert len(gets) == 2 and "range: bytes=" in gets[1].lower()
    assert visible(style_id)  # the hash held: the whole answer replaced the part instead of being appended


@pytest.mark.slow
def test_a_416_to_a_range_request_fetches_the_blob_from_0(rig: HqRig, proxy: FaultProxy, tmp_path: Path) -> None:
    enroll(rig, proxy.url)
    style_id, sha256, size = publish_big(rig, tmp_path)
    refused = answer(416, "Range Not Satisfiable", {"Content-Range": f"bytes */{size}"}, b"")
    proxy.rules += [Rule(path=f"/v1/blobs/{sha256}", cut_after=size // 2),
                    Rule(path=f"/v1/blobs/{sha256}", answer=refused)]
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err
    gets = _blob_gets(proxy, sha256)
    assert len(gets) == 3 and "range: bytes=" in gets[1].lower() and "range: bytes=" not in gets[2].lower()
    assert visible(style_id)


@pytest.mark.slow
def test_backoff_in_hello_delays_the_next_cycle(rig: HqRig, proxy: FaultProxy) -> None:
    enroll(rig, proxy.url)
    assert nailmirror("sync", "now").rc == 0
    # HQ under load says "back off 120 s" in hello (its own hello, with backoff_s raised on the way).
    proxy.rules.append(Rule(path="/v1/hello", answer=_hello_with_backoff(rig, 120)))
    assert nailmirror("sync", "now").rc == 0
    asked = len(proxy.seen)
    waited = nailmirror("sync", "now")
    assert waited.rc == 1 and "wait" in waited.err and len(waited.err.strip().splitlines()) == 1
    assert len(proxy.seen) == asked  # no request before the time HQ asked for
    conn = sqlite3.connect(database_path())
    with conn:
        conn.execute("UPDATE sync_state SET not_before = NULL")  # the 120 s have passed
    conn.close()
    assert nailmirror("sync", "now").rc == 0 and len(proxy.seen) > asked


def _hello_with_backoff(rig: HqRig, seconds: int) -> bytes:
    """HQ's real hello for this kiosk, with backoff_s set: as HQ answers when it sheds load."""
    import urllib.request

    conn = sqlite3.connect(database_path())
    token = conn.execute("SELECT token FROM sync_state").fetchone()[0]
    conn.close()
    request = urllib.request.Request(rig.url + "/v1/hello", headers={"Authorization": f"Bearer {token}",
                                                                     "NM-Protocol": "1"})
    with urllib.request.urlopen(request, timeout=10) as reply:
        body = json.loads(reply.read())
    body["backoff_s"] = seconds
    return answer(200, "OK", {"Content-Type": "application/json", "Cache-Control": "no-store"},
                  json.dumps(body).encode())
