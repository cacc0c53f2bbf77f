"""Where the transport matters, a real uvicorn on 127.0.0.1 and stdlib http.client (what the kiosk uses)."""

from __future__ import annotations

import gzip
import http.client
import json
from collections.abc import Iterator

import pytest

from nailmirror_hq import catalog
from nailmirror_hq.api.app import create_app
from nailmirror_hq.service import HQ
from tests.support.hq_fixtures import add_store, png, sha, style_folder
from tests.support.hq_servers import Uvicorn


@pytest.fixture
def server(hq_local_blobs: HQ) -> Iterator[Uvicorn]:
    running = Uvicorn(create_app(hq_local_blobs))
    yield running
    running.stop()


def _request(server: Uvicorn, method: str, path: str, headers: dict[str, str] | None = None,
             body: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        answer = conn.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        conn.close()


def _kiosk(hq: HQ, server: Uvicorn) -> dict[str, str]:
    _, code = add_store(hq)
    status, _, body = _request(server, "POST", "/v1/enroll", {"Content-Type": "application/json"},
                               json.dumps({"nm": 1, "code": code}).encode())
    assert status == 201
    return {"Authorization": f"Bearer {json.loads(body)['token']}", "NM-Protocol": "1"}


def test_a_cut_blob_download_resumes_with_range_and_if_range(hq_local_blobs: HQ, server: Uvicorn) -> None:
    hq = hq_local_blobs
    headers = _kiosk(hq, server)
    data = png(300, 200, (120, 60, 200), salt=5)  # a few hundred KB would do the same; size is not the point
    name = sha(data)
    assert _request(server, "PUT", f"/v1/blobs/{name}", {**headers, "Content-Type": "image/png"}, data)[0] == 201
    # The first attempt is cut after 60 % (the client stops reading): what arrived is kept as the .part.
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", f"/v1/blobs/{name}", headers=headers)
    answer = conn.getresponse()
    assert answer.status == 200 and answer.getheader("Accept-Ranges") == "bytes"
    part = answer.read(int(len(data) * 0.6))
    conn.close()
    status, got, rest = _request(server, "GET", f"/v1/blobs/{name}",
                                 {**headers, "Range": f"bytes={len(part)}-", "If-Range": f'"{name}"'})
    assert status == 206
    assert got["content-range"] == f"bytes {len(part)}-{len(data) - 1}/{len(data)}"
    assert sha(part + rest) == name
    stale, _, whole = _request(server, "GET", f"/v1/blobs/{name}",
                               {**headers, "Range": f"bytes={len(part)}-", "If-Range": '"something-else"'})
    assert stale == 200 and whole == data  # a stale validator: start the file over
    past, got, _ = _request(server, "GET", f"/v1/blobs/{name}", {**headers, "Range": f"bytes={len(data) + 10}-"})
    assert past == 416 and got["content-range"] == f"bytes */{len(data)}"


def test_json_is_gzipped_on_request_but_blobs_never_are(hq_local_blobs: HQ, server: Uvicorn, tmp_path) -> None:
    hq = hq_local_blobs
    headers = _kiosk(hq, server)
    for salt in range(3):  # a snapshot over gzip's 1 KiB threshold
        catalog.import_folder(hq.engine, hq.blobs, style_folder(tmp_path, salt=salt), actor="test", publish=True)
    status, got, body = _request(server, "GET", "/v1/catalog/snapshot", {**headers, "Accept-Encoding": "gzip"})
    assert status == 200 and got.get("content-encoding") == "gzip"
    assert len(json.loads(gzip.decompress(body))["styles"]) == 3
    data = png(64, 64, salt=1)
    _request(server, "PUT", f"/v1/blobs/{sha(data)}", headers, data)
    status, got, body = _request(server, "GET", f"/v1/blobs/{sha(data)}", {**headers, "Accept-Encoding": "gzip"})
    assert status == 200 and "content-encoding" not in got and body == data
