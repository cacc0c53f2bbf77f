"""Fake OpenAI Images and DashScope Wan servers: real HTTP on 127.0.0.1, the wire shapes of
ARCHITECTURE.md §9, scriptable per test.

Each server runs `http.server.ThreadingHTTPServer` in a daemon thread. A test queues `Reply`s (status,
headers, JSON or raw body, and transport misbehaviour: a delay, a connection dropped mid-body, an endless body)
and reads back what the client sent (`requests`, `submit_count`).
"""

from __future__ import annotations

import base64
import collections
import dataclasses
import itertools
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import cv2
import numpy as np

API_KEY = "sk-test-0123456789abcdef"


def swatch_png(seed: int = 1, size: int = 512) -> bytes:
    """A colourful, non-uniform design swatch (stripes and dots) as PNG bytes: passes the quality screen."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    base = rng.integers(60, 200, size=3).astype(np.float32)
    image = np.empty((size, size, 3), np.float32)
    for c in range(3):
        image[..., c] = base[c] + 50 * np.sin((x + y * (c + 1)) / (17 + 5 * c))
    for _ in range(40):
        cx, cy, r = (int(v) for v in rng.integers(0, size, 2).tolist() + [int(rng.integers(6, 24))])
        cv2.circle(image, (cx, cy), r, tuple(float(v) for v in rng.integers(0, 255, 3)), -1)
    ok, encoded = cv2.imencode(".png", np.clip(image, 0, 255).astype(np.uint8))
    assert ok
    return encoded.tobytes()


def blank_png(size: int = 512, value: int = 255) -> bytes:
    ok, encoded = cv2.imencode(".png", np.full((size, size, 3), value, np.uint8))
    assert ok
    return encoded.tobytes()


@dataclass
class Reply:
    """One scripted answer. `drop_after`: send that many body bytes of a declared full length, then cut the
    connection. `endless`: stream bytes without Content-Length until the client hangs up. `delay_s`: wait first.
    `drip_s`: spread the body over `drip_s` seconds in small pieces (each read is quick, the whole answer slow).
    `hang_up`: read the request, then close the connection without a word (the answer is lost)."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drop_after: int | None = None
    endless: bool = False
    drip_s: float = 0.0
    hang_up: bool = False

    @staticmethod
    def json(status: int, document: Any, headers: dict[str, str] | None = None) -> Reply:
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        return Reply(status, json.dumps(document).encode("utf-8"), all_headers)

    @staticmethod
    def image(data: bytes, content_type: str = "image/png") -> Reply:
        return Reply(200, data, {"Content-Type": content_type})

    @staticmethod
    def redirect(location: str, status: int = 302) -> Reply:
        return Reply(status, b"", {"Location": location})


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


class FakeServer:
    """A loopback HTTP server; subclasses route requests in `route(request) -> Reply`."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.blobs: dict[str, Reply | Callable[[], Reply]] = {}
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake._handle(self)

            def do_POST(self) -> None:
                fake._handle(self)

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), name=type(self).__name__,
                                        daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def serve_blob(self, name: str, reply: Reply | Callable[[], Reply]) -> str:
        """Serve `reply` at /blobs/<name>; returns its URL."""
        self.blobs[name] = reply
        return self.url(f"/blobs/{name}")

    def requests_to(self, path_prefix: str, method: str | None = None) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests
                    if r.path.startswith(path_prefix) and (method is None or r.method == method)]

    def route(self, request: RecordedRequest) -> Reply:
        raise NotImplementedError

    def _route_common(self, request: RecordedRequest) -> Reply:
        if request.path.startswith("/blobs/"):
            blob = self.blobs.get(request.path[len("/blobs/") :])
            if blob is None:
                return Reply(404, b"NoSuchKey", {"Content-Type": "application/xml"})
            return blob() if callable(blob) else blob
        return self.route(request)

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        request = RecordedRequest(handler.command, handler.path, dict(handler.headers.items()), body)
        with self._lock:
            self.requests.append(request)
        reply = self._route_common(request)
        _write_reply(handler, reply)


_DRIP_PIECES = 60


def _write_reply(handler: BaseHTTPRequestHandler, reply: Reply) -> None:
    if reply.delay_s:
        time.sleep(reply.delay_s)
    try:
        if reply.hang_up:
            handler.connection.shutdown(socket.SHUT_RDWR)
            handler.close_connection = True
            return
        handler.send_response(reply.status)
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        if reply.endless:
            handler.send_header("Connection", "close")
            handler.end_headers()
            chunk = (reply.body or b"\x89PNG\r\n\x1a\n") * 8192
            for _ in range(4096):  # stops at ~256 MB even if the client keeps reading
                handler.wfile.write(chunk)
            return
        handler.send_header("Content-Length", str(len(reply.body)))
        handler.end_headers()
        if reply.drip_s:
            step = max(1, len(reply.body) // _DRIP_PIECES)
            for start in range(0, len(reply.body), step):
                handler.wfile.write(reply.body[start : start + step])
                handler.wfile.flush()
                time.sleep(reply.drip_s * step / max(1, len(reply.body)))
            return
        if reply.drop_after is None:
            handler.wfile.write(reply.body)
            return
        handler.wfile.write(reply.body[: reply.drop_after])
        handler.wfile.flush()
        handler.connection.shutdown(socket.SHUT_RDWR)  # the peer sees the body end early
        handler.close_connection = True
    except (BrokenPipeError, ConnectionResetError, OSError):
        pass  # the client hung up (it refused an endless or huge body): that is the point


class FakeOpenAI(FakeServer):
    """`POST /v1/images/generations`. Unscripted calls succeed with `b64_json` of `default_image`."""

    def __init__(self, default_image: bytes | None = None) -> None:
        super().__init__()
        self.script: collections.deque[Reply] = collections.deque()
        self.default_image = default_image or swatch_png()

    @property
    def generation_count(self) -> int:
        return len(self.requests_to("/v1/images/generations", "POST"))

    def queue(self, *replies: Reply) -> None:
        self.script.extend(replies)

    def route(self, request: RecordedRequest) -> Reply:
        if request.method != "POST" or request.path != "/v1/images/generations":
            return openai_error(404, "unknown_url", "invalid_request_error", f"Unknown request URL: {request.path}")
        if request.headers.get("Authorization") != f"Bearer {API_KEY}":
            sent = request.headers.get("Authorization", "").removeprefix("Bearer ")
            # The real API quotes the key it got (partly masked); quoting it whole tests that we cut it out.
            return openai_error(401, "invalid_api_key", "invalid_request_error", f"Incorrect API key provided: {sent}.")
        if self.script:
            return self.script.popleft()
        return openai_success(self.default_image)


def openai_success(*images: bytes) -> Reply:
    return Reply.json(
        200,
        {
            "created": 1713833628,
            "data": [{"b64_json": base64.b64encode(image).decode("ascii"), "revised_prompt": None} for image in images],
            "background": "opaque",
            "output_format": "png",
            "size": "1024x1024",
            "quality": "medium",
            "usage": {"input_tokens": 50, "input_tokens_details": {"text_tokens": 50, "image_tokens": 0},
                      "output_tokens": 4160, "total_tokens": 4210},
        },
        {"x-request-id": "req_" + uuid.uuid4().hex[:12]},
    )


def openai_error(status: int, code: str | None, error_type: str, message: str,
                 headers: dict[str, str] | None = None, **extra: Any) -> Reply:
    return Reply.json(status, {"error": {"message": message, "type": error_type, "param": None, "code": code, **extra}},
                      headers)


def openai_rate_limited(retry_after_s: int = 1) -> Reply:
    return openai_error(429, "rate_limit_exceeded", "requests", "Rate limit reached for images per minute",
                        {"Retry-After": str(retry_after_s)})


def openai_server_error() -> Reply:
    return openai_error(500, None, "server_error", "The server had an error while processing your request.")


def openai_moderation_blocked() -> Reply:
    return openai_error(
        400, "moderation_blocked", "image_generation_user_error",
        "Your request was rejected by the safety system. safety_violations=[sexual].",
        moderation_details={"moderation_stage": "input", "categories": ["sexual"]},
    )


def openai_insufficient_quota() -> Reply:
    return openai_error(429, "insufficient_quota", "insufficient_quota",
                        "You exceeded your current quota, please check your plan and billing details.")


class FakeDashScope(FakeServer):
    """Submit at `/api/v1/services/aigc/text2image/image-synthesis`, poll at `/api/v1/tasks/{id}`.

    `submit_script` answers submits (unscripted: a new task); `next_task_polls` is the poll script given to the
    next created task (each poll takes the next entry, the last repeats); `task_polls[id]` can be changed later.
    """

    SUBMIT = "/api/v1/services/aigc/text2image/image-synthesis"

    def __init__(self) -> None:
        super().__init__()
        self.submit_script: collections.deque[Reply] = collections.deque()
        self.next_task_polls: list[Callable[[str], Reply]] = [dashscope_succeeded_with(self, swatch_png())]
        self.task_polls: dict[str, collections.deque[Callable[[str], Reply]]] = {}
        self.task_scripts: collections.deque[list[Callable[[str], Reply]]] = collections.deque()
        self._ids = itertools.count(1)

    @property
    def submit_count(self) -> int:
        return len(self.requests_to(self.SUBMIT, "POST"))

    def poll_count(self, task_id: str | None = None) -> int:
        return len(self.requests_to("/api/v1/tasks/" + (task_id or ""), "GET"))

    def script_next_task(self, *polls: Callable[[str], Reply]) -> None:
        """The poll script of every task created from now on (unless `script_tasks` queued one)."""
        self.next_task_polls = list(polls)

    def script_tasks(self, *scripts: list[Callable[[str], Reply]]) -> None:
        """One poll script per upcoming submit, in order (then `next_task_polls` again)."""
        self.task_scripts.extend(list(script) for script in scripts)

    def set_task_polls(self, task_id: str, *polls: Callable[[str], Reply]) -> None:
        self.task_polls[task_id] = collections.deque(polls)

    def route(self, request: RecordedRequest) -> Reply:
        if request.headers.get("Authorization") != f"Bearer {API_KEY}":
            return dashscope_error(401, "InvalidApiKey", "Invalid API-key provided.")
        if request.method == "POST" and request.path == self.SUBMIT:
            return self._submit(request)
        if request.method == "GET" and request.path.startswith("/api/v1/tasks/"):
            return self._poll(request.path.rsplit("/", 1)[-1])
        return dashscope_error(404, "NotFound", f"{request.path} not found")

    def _submit(self, request: RecordedRequest) -> Reply:
        if request.headers.get("X-DashScope-Async") != "enable":
            return dashscope_error(403, "AccessDenied", "current user api does not support synchronous calls")
        if self.submit_script:
            return self.submit_script.popleft()
        task_id = f"{next(self._ids):04d}dc79-{uuid.uuid4().hex[:8]}"
        script = self.task_scripts.popleft() if self.task_scripts else self.next_task_polls
        self.task_polls[task_id] = collections.deque(script)
        return Reply.json(200, {"output": {"task_status": "PENDING", "task_id": task_id},
                                "request_id": str(uuid.uuid4())})

    def _poll(self, task_id: str) -> Reply:
        script = self.task_polls.get(task_id)
        if script is None:  # unknown or expired ids answer 200 UNKNOWN, not 404 (§1b)
            return dashscope_status("UNKNOWN")(task_id)
        step = script.popleft() if len(script) > 1 else script[0]
        return step(task_id)


def dashscope_error(status: int, code: str, message: str) -> Reply:
    return Reply.json(status, {"code": code, "message": message, "request_id": str(uuid.uuid4())})


def dashscope_status(status: str, **output: Any) -> Callable[[str], Reply]:
    def reply(task_id: str) -> Reply:
        return Reply.json(200, {"request_id": str(uuid.uuid4()),
                                "output": {"task_id": task_id, "task_status": status, **output}})

    return reply


def dashscope_failed(code: str, message: str) -> Callable[[str], Reply]:
    return dashscope_status("FAILED", code=code, message=message)


def dashscope_succeeded(result_urls: list[str], refused: int = 0) -> Callable[[str], Reply]:
    """SUCCEEDED with one `results[]` entry per URL, plus `refused` DataInspectionFailed entries (partial)."""

    def reply(task_id: str) -> Reply:
        results: list[dict[str, Any]] = [{"orig_prompt": "nail art", "actual_prompt": "nail art, swatch", "url": url}
                                         for url in result_urls]
        results += [{"code": "DataInspectionFailed", "message": "Output data may contain inappropriate content."}
                    for _ in range(refused)]
        total = len(results)
        return Reply.json(200, {
            "request_id": str(uuid.uuid4()),
            "output": {"task_id": task_id, "task_status": "SUCCEEDED",
                       "submit_time": "2025-01-08 16:03:59.840", "scheduled_time": "2025-01-08 16:03:59.863",
                       "end_time": "2025-01-08 16:04:10.660", "results": results,
                       "task_metrics": {"TOTAL": total, "SUCCEEDED": len(result_urls), "FAILED": refused}},
            "usage": {"image_count": len(result_urls)},
        })

    return reply


def dashscope_succeeded_with(server: FakeServer, *images: bytes, refused: int = 0) -> Callable[[str], Reply]:
    """SUCCEEDED whose result URLs point back at `server` (/blobs/…), serving `images`."""
    urls = [server.serve_blob(f"{uuid.uuid4().hex}.png", Reply.image(image)) for image in images]
    return dashscope_succeeded(urls, refused)


def replies_in_turn(*replies: Reply) -> Callable[[], Reply]:
    """A blob that answers each request with the next reply (the last one repeats)."""
    queue = collections.deque(replies)

    def next_reply() -> Reply:
        return queue.popleft() if len(queue) > 1 else queue[0]

    return next_reply


def dashscope_throttled() -> Reply:
    return dashscope_error(429, "Throttling.RateQuota", "Requests rate limit exceeded, please try again later.")


def dripping(reply: Reply, seconds: float) -> Reply:
    """`reply` with its body spread evenly over `seconds` (a piece every few tens of milliseconds: each read is
    quick, the whole answer is not)."""
    return dataclasses.replace(reply, drip_s=seconds)


def deeply_nested_json(depth: int = 100_000) -> Reply:
    """A 200 whose JSON nests `depth` lists deep: valid JSON that Python's parser cannot take (RecursionError)."""
    return Reply(200, b"[" * depth + b"]" * depth, {"Content-Type": "application/json"})


def huge_number_json(digits: int = 5_000) -> Reply:
    """A 200 whose JSON holds an integer of `digits` digits (Python refuses to convert past 4,300: ValueError)."""
    return Reply(200, b'{"created": ' + b"7" * digits + b', "output": {"task_id": ' + b"9" * digits + b"}}",
                 {"Content-Type": "application/json"})


def invalid_utf8_json() -> Reply:
    return Reply(200, b'{"output": {"task_id": "\xff\xfe"}, "data": [{"b64_json": "\xff"}]}',
                 {"Content-Type": "application/json"})


def endless_json() -> Reply:
    """A 200 that streams JSON-looking bytes without a length until the client hangs up."""
    return Reply(200, b'{"data": [' + b" " * 1024, {"Content-Type": "application/json"}, endless=True)


def hang_up() -> Reply:
    """Read the request, answer nothing, close: the request was sent and its outcome is unknown."""
    return Reply(hang_up=True)
