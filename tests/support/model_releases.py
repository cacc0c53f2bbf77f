"""Signed model releases for the kiosk's tests (issue #27 §5), beyond what HQ itself sends: ed25519 keys, signed
manifests and rotations made with the protocol's own framing, and `ReleasingHq`, a real HTTP relay on loopback in
front of the real HQ app that adds HQ's key to enrollment and hello, "model" changes to the feed, `models` to the
snapshot, and serves the model files as blobs, so a test can forge, tamper and rotate at will. Everything else is
HQ's own answer, passed through untouched."""

from __future__ import annotations

import hashlib
import http.client
import json
import secrets
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from nailmirror_protocol import model_release as mr
from nailmirror_protocol import paths


@dataclass(frozen=True)
class HqSigner:
    private: Ed25519PrivateKey
    key: mr.HQKey

    @classmethod
    def new(cls) -> HqSigner:
        private = Ed25519PrivateKey.generate()
        raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return cls(private, {"alg": "ed25519", "key": mr.b64(raw), "key_id": mr.key_id(raw)})

    def sign(self, manifest: mr.ModelManifest) -> mr.ModelRelease:
        signature = self.private.sign(mr.signed_message(mr.MODEL_RELEASE_PURPOSE, mr.manifest_payload(manifest)))
        return {"manifest": manifest, "signature": mr.b64(signature), "key_id": self.key["key_id"]}

    def rotate_to(self, new: HqSigner, *, signed_by: HqSigner | None = None) -> mr.KeyRotation:
        """A rotation from this key to `new`, signed by this key (or, forged, by `signed_by`)."""
        at = "2026-12-05T03:00:00.000Z"
        payload = mr.rotation_payload(self.key["key_id"], new.key, at)
        signature = (signed_by or self).private.sign(mr.signed_message(mr.KEY_ROTATION_PURPOSE, payload))
        return {"old_key_id": self.key["key_id"], "new_key": new.key, "rotated_at": at,
                "signature": mr.b64(signature)}


def model_file(size: int = 40_000) -> bytes:
    """Bytes standing for an .onnx file: the fetching side never opens it (loading is issue #27 §7's)."""
    return secrets.token_bytes(size)


def manifest_for(data: bytes, slot: str = "live", *, shapes_ok: bool = True) -> mr.ModelManifest:
    sha = hashlib.sha256(data).hexdigest()
    inputs: list[mr.TensorSpec] = [{"name": "roi", "shape": [-1, 3, 64, 64], "dtype": "float32"}]
    if not shapes_ok:
        inputs = [{"name": "image", "shape": [-1, 3, 256, 256], "dtype": "float32"}]
    return {"name": "nail_segmenter", "version": mr.model_version_name("nail_segmenter", sha),
            "slot": slot, "sha256": sha, "size": len(data), "inputs": inputs,  # type: ignore[typeddict-item]
            "outputs": [{"name": "logits", "shape": [-1, 1, 64, 64], "dtype": "float32"}],
            "gate_report_id": "gate-1", "created_at": "2026-12-05T02:00:00.000Z"}


@dataclass
class ReleasingHq:
    """A loopback relay to HQ on `upstream_port` that speaks for the releases HQ does not send yet."""

    upstream_port: int
    enroll_key: mr.HQKey | None = None
    hello_key: mr.HQKey | None = None
    rotations: list[mr.KeyRotation] = field(default_factory=list)
    snapshot_models: list[dict[str, Any]] | None = None  # the snapshot's `models`; None: left out (an older HQ)
    feed: list[dict[str, Any]] = field(default_factory=list)  # "model" changes for the next last feed page
    blobs: dict[str, bytes] = field(default_factory=dict)  # sha256 → the bytes served for it
    reports: list[dict[str, Any]] = field(default_factory=list)  # the sync reports the kiosk sent
    blob_requests: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        relay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                relay._handle(self)

            def do_POST(self) -> None:
                relay._handle(self)

            def do_PUT(self) -> None:
                relay._handle(self)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def serve_model(self, data: bytes, *, as_sha: str | None = None) -> None:
        self.blobs[as_sha or hashlib.sha256(data).hexdigest()] = data

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        path = handler.path.split("?", 1)[0]
        if handler.command == "GET" and path.startswith("/v1/blobs/") and path.rsplit("/", 1)[1] in self.blobs:
            sha = path.rsplit("/", 1)[1]
            self.blob_requests.append(sha)
            self._send(handler, 200, {"Content-Type": "application/octet-stream", "ETag": f'"{sha}"'}, self.blobs[sha])
            return
        if handler.command == "PUT" and path == paths.SYNC_REPORT:
            self.reports.append(json.loads(body))
        status, headers, answer = self._forward(handler, body)
        if status in (200, 201) and path in (paths.ENROLL, paths.HELLO, paths.CATALOG_CHANGES, paths.CATALOG_SNAPSHOT):
            answer = json.dumps(self._rewrite(path, json.loads(answer))).encode("utf-8")
        self._send(handler, status, headers, answer)

    def _rewrite(self, path: str, document: dict[str, Any]) -> dict[str, Any]:
        # The relay speaks for keys and releases entirely: HQ's own (issue #27, HQ side) are replaced, and None
        # stands for an HQ from before releases.
        key = self.enroll_key if path == paths.ENROLL else self.hello_key
        if path in (paths.ENROLL, paths.HELLO):
            document.pop("hq_key", None)
            document.pop("hq_key_rotations", None)
            if key is not None:
                document["hq_key"] = key
                if self.rotations:
                    document["hq_key_rotations"] = self.rotations
        if path == paths.CATALOG_SNAPSHOT:
            document.pop("models", None)
            if self.snapshot_models is not None:
                document["models"] = self.snapshot_models
        if path == paths.CATALOG_CHANGES:
            document["changes"] = [c for c in document["changes"] if c.get("type") != "model"]
        if path == paths.CATALOG_CHANGES and not document.get("has_more") and self.feed:
            document["changes"] = [*document["changes"], *self.feed]
            self.feed = []
        return document

    def _forward(self, handler: BaseHTTPRequestHandler, body: bytes) -> tuple[int, dict[str, str], bytes]:
        upstream = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=30)
        try:
            headers = {k: v for k, v in handler.headers.items() if k.lower() not in ("host", "connection")}
            upstream.request(handler.command, handler.path, body=body or None, headers=headers)
            response = upstream.getresponse()
            answer = response.read()
            kept = {k: v for k, v in response.getheaders()
                    if k.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server")}
            return response.status, kept, answer
        finally:
            upstream.close()

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, headers: dict[str, str], body: bytes) -> None:
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)


def model_change(slot: str, release: int, body: mr.ModelRelease | None = None) -> dict[str, Any]:
    """A feed change: an upsert of `slot` with `body`, or (no body) its withdrawal."""
    if body is None:
        return {"seq": 1, "type": "model", "op": "delete", "id": slot, "version": release}
    return {"seq": 1, "type": "model", "op": "upsert", "id": slot, "version": release, "model": body}


def snapshot_model(slot: str, release: int, body: mr.ModelRelease) -> dict[str, Any]:
    return {"id": slot, "version": release, "model": body}
