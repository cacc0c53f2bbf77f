"""Blob downloads (adapters/sync/blobs.py) from the real HQ on loopback: a redirect to another host gets no
token, and a stale partial download never ends up in the catalog."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from nailmirror_desktop.core.paths import data_dir
from tests.support.sync_rig import FaultProxy, HqRig, Rule, answer, enroll, local_styles, nailmirror


class Cdn:
    """Another host (localhost, not 127.0.0.1) serving HQ's blob files, recording each request's headers."""

    def __init__(self, rig: HqRig) -> None:
        seen: list[dict[str, str]] = []
        self.seen = seen

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                seen.append({k.lower(): v for k, v in self.headers.items()})
                data = rig.blob_path(self.path.rsplit("/", 1)[-1]).read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://localhost:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.slow
def test_a_redirect_to_another_host_is_followed_without_the_token(rig: HqRig) -> None:
    proxy, cdn = FaultProxy(rig.server.port), Cdn(rig)
    try:
        enroll(rig, proxy.url)
        style_id = rig.publish_new()
        blobs = [a["sha256"] for a in rig.style_assets(style_id)]
        for sha256 in blobs:
            proxy.rules.append(Rule(path=f"/v1/blobs/{sha256}", answer=answer(
                307, "Temporary Redirect", {"Location": f"{cdn.url}/presigned/{sha256}"}, b"")))
        run = nailmirror("sync", "now")
        assert run.rc == 0, run.err
        assert len(cdn.seen) == len(blobs)
        assert all("authorization" not in headers for headers in cdn.seen)
        assert any("authorization" in h.lower() for h in proxy.seen)  # HQ itself did get it
        assert style_id in {s["client_uid"] for s in local_styles("--customer")}
    finally:
        proxy.stop()
        cdn.stop()


@pytest.mark.slow
def test_a_stale_partial_download_is_caught_by_the_hash_and_fetched_again(rig: HqRig) -> None:
    enroll(rig)
    style_id = rig.publish_new()
    nail = next(a for a in rig.style_assets(style_id) if a["type"] == "NAIL_TEXTURE")
    parts = data_dir() / "sync" / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    (parts / f"{nail['sha256']}.part").write_bytes(b"\x00" * (nail["size"] // 2))  # left by a crash, not HQ's bytes
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err
    assert style_id in {s["client_uid"] for s in local_styles("--customer")}
    assert not (parts / f"{nail['sha256']}.part").exists()
