"""The kiosk's sync tests' rig: the real HQ app on a real loopback socket (uvicorn), a fault-injecting TCP proxy
in front of it, and the kiosk's own `nailmirror` command run in-process (its stdout, stderr and exit status).

HQ starts without the starter catalog unless a test asks for it (loading it takes seconds on a loaded box);
the kiosk always loads its own on first use, as a real kiosk does.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nailmirror_hq import catalog, db, drafts, stores
from nailmirror_hq.api.app import create_app
from nailmirror_hq.config import Settings
from nailmirror_hq.service import HQ, open_hq
from tests.support.hq_fixtures import Ticks, style_folder
from tests.support.hq_servers import Uvicorn, free_port

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Run:
    rc: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def nailmirror(*argv: str) -> Run:
    from nailmirror_desktop.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return Run(rc, out.getvalue(), err.getvalue())


class HqRig:
    """One HQ (SQLite + filesystem blobs unless given PostgreSQL and S3 URLs) served on 127.0.0.1, with the
    operations a chain's staff do."""

    def __init__(self, root: Path, *, starter: Path | None = None, database_url: str | None = None,
                 blobs_url: str | None = None, ticks: Ticks | None = None) -> None:
        self.root = root
        self.database_url, self.blobs_url = database_url, blobs_url
        self.hq: HQ = open_hq(Settings(root, database_url or f"sqlite:///{root / 'hq.sqlite3'}",
                                       blobs_url or (root / "blobs").as_uri(), starter))
        self.server = Uvicorn(create_app(self.hq, ticks) if ticks else create_app(self.hq))
        self.folders = 0

    @property
    def url(self) -> str:
        return self.server.url

    def add_store(self, name: str = "SH-0012") -> tuple[str, str]:
        with db.write(self.hq.engine) as conn:
            found, code = stores.add_store(conn, name, stores.DEFAULT_CHANNEL, "test")
        return found.id, code

    def publish_new(self, name: str = "樱花法式") -> str:
        self.folders += 1
        folder = style_folder(self.root / "folders", name=name, salt=self.folders)
        row = catalog.import_folder(self.hq.engine, self.hq.blobs, folder, actor="test", publish=True)
        return row.id

    def set_status(self, style_id: str, status: str) -> None:
        with db.write(self.hq.engine) as conn:
            catalog.set_status(conn, style_id, status, "test")

    def drafts(self) -> list[dict[str, Any]]:
        with db.read(self.hq.engine) as conn:
            return drafts.list_drafts(conn)

    def approve(self, draft_id: str) -> None:
        with db.write(self.hq.engine) as conn:
            drafts.approve(conn, draft_id, "reviewer-a")

    def reject(self, draft_id: str, reason: str) -> None:
        with db.write(self.hq.engine) as conn:
            drafts.reject(conn, draft_id, "reviewer-a", reason)

    def revoke(self, store_id: str) -> None:
        with db.write(self.hq.engine) as conn:
            stores.revoke(conn, store_id, "test")

    def new_epoch(self) -> None:
        """What a restore from backup does to the feed's history (kiosks then resync by snapshot)."""
        from nailmirror_hq import meta

        with db.write(self.hq.engine) as conn:
            meta.put(conn, "epoch", meta.new_epoch())

    def blob_path(self, sha256: str) -> Path:
        path = self.hq.blobs.local_path(sha256)
        assert path is not None
        return Path(path)

    def style_assets(self, style_id: str) -> list[dict[str, Any]]:
        with db.read(self.hq.engine) as conn:
            row = catalog.get_style(conn, style_id)
        assert row is not None
        return list(row.body["assets"])

    def cli(self, *argv: str) -> Any:
        """`nailmirror-hq ARGV --json` as a real process on this HQ's database and blob store (what a chain's
        scripts run beside the serving process); its parsed JSON answer."""
        env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_HQ_HOME": str(self.root),
               "NAILMIRROR_HQ_STARTER_CATALOG": ""}
        for key, value in (("NAILMIRROR_HQ_DATABASE_URL", self.database_url), ("NAILMIRROR_HQ_BLOBS", self.blobs_url)):
            if value:
                env[key] = value
            else:
                env.pop(key, None)
        done = subprocess.run([sys.executable, "-m", "nailmirror_hq", *argv, "--json"], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout)

    def stop(self) -> None:
        self.server.stop()
        self.hq.close()


@dataclass
class Rule:
    """For requests whose path contains `path`: `cut_after` response bytes then reset, or answer `answer`
    (raw HTTP bytes) instead of forwarding, or relay the answer one byte every `drip_s` seconds after its first
    `cut_after` bytes (a dripping server); the first `skip` matching requests pass, then `times` are affected
    (then it passes again)."""

    path: str
    times: int = 1
    skip: int = 0
    cut_after: int | None = None
    answer: bytes | None = None
    drip_s: float | None = None


@dataclass
class FaultProxy:
    """A stdlib TCP proxy for one HTTP request per connection (the kiosk's client opens one per exchange)."""

    upstream_port: int
    port: int = field(default_factory=free_port)
    down: bool = False  # accept and reset at once: the network is gone
    rules: list[Rule] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)  # request heads, in order
    bytes_down: int = 0  # response bytes relayed to the kiosk (headers included)
    bytes_up: int = 0  # request bytes relayed to HQ

    def __post_init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._stop = False
        self._stopped = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def paths(self) -> list[str]:
        return [head.split("\r\n", 1)[0].split(" ")[1] for head in self.seen]

    def _serve(self) -> None:
        while not self._stop:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(client,), daemon=True).start()

    def _handle(self, client: socket.socket) -> None:
        with client:
            if self.down:
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                return
            head, body = _read_request(client)
            if not head:
                return
            self.seen.append(head)
            path = head.split("\r\n", 1)[0].split(" ")[1]
            rule = next((r for r in self.rules if r.path in path and r.times > 0), None)
            if rule is not None and rule.skip > 0:
                rule.skip -= 1
                rule = None
            if rule is not None:
                rule.times -= 1
                if rule.answer is not None:
                    with contextlib.suppress(OSError):  # the kiosk may hang up part-way (an answer it refuses)
                        client.sendall(rule.answer)
                    return
            with socket.create_connection(("127.0.0.1", self.upstream_port)) as upstream:
                upstream.sendall(head.encode("latin-1") + body)
                self.bytes_up += len(head) + len(body)
                sent = 0
                while True:
                    chunk = upstream.recv(65536)
                    if not chunk:
                        return
                    if rule is not None and rule.drip_s is not None:
                        if not self._drip(client, chunk, rule.drip_s, max(0, (rule.cut_after or 0) - sent)):
                            return
                        sent += len(chunk)
                        continue
                    if rule is not None and rule.cut_after is not None and sent + len(chunk) > rule.cut_after:
                        client.sendall(chunk[:rule.cut_after - sent])
                        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                        return
                    client.sendall(chunk)
                    sent += len(chunk)
                    self.bytes_down += len(chunk)

    def _drip(self, client: socket.socket, chunk: bytes, every_s: float, at_once: int) -> bool:
        """Send `chunk` a byte at a time (after the first `at_once` bytes of the answer); False once the kiosk
        hung up or the proxy stops."""
        try:
            for i in range(len(chunk)):
                if i >= at_once and self._stopped.wait(every_s):
                    return False
                client.sendall(chunk[i:i + 1])
                self.bytes_down += 1
        except OSError:
            return False
        return True

    def stop(self) -> None:
        self._stop = True
        self._stopped.set()
        self._listener.close()


def _read_request(client: socket.socket) -> tuple[str, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(65536)
        if not chunk:
            return "", b""
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    text = head.decode("latin-1")
    length = 0
    lines = text.split("\r\n")
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = client.recv(65536)
        if not chunk:
            break
        body += chunk
    # One request per connection: ask the upstream to close after answering, so the relay ends.
    kept = [line for line in lines if not line.lower().startswith("connection:")]
    return "\r\n".join([*kept, "Connection: close"]) + "\r\n\r\n", body


def answer(status: int, reason: str, headers: dict[str, str], body: bytes) -> bytes:
    lines = [f"HTTP/1.1 {status} {reason}", *(f"{k}: {v}" for k, v in headers.items()),
             f"Content-Length: {len(body)}", "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def enroll(rig: HqRig, url: str | None = None) -> str:
    store_id, code = rig.add_store(f"SH-{uuid.uuid4().hex[:6]}")
    run = nailmirror("sync", "enroll", code, "--hq", url or rig.url)
    assert run.rc == 0, run.err
    return store_id


def local_styles(*extra: str) -> list[dict[str, Any]]:
    run = nailmirror("styles", "list", "--json", "--limit", "1000", *extra)
    assert run.rc == 0, run.err
    result: list[dict[str, Any]] = run.json()
    return result


Check = Callable[[], bool]
