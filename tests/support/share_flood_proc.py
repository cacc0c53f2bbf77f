"""A connection flood for the share server's soak test (run as `python tests/support/share_flood_proc.py PORT`).

It makes ATTEMPTS connections to 127.0.0.1:PORT from 127.0.0.2–127.0.0.9 in turn, paced over SECONDS, and keeps
each one open until the end unless the server closes it; every fourth one sends a request head a byte every
half second and never finishes it. Loopback only. Prints one JSON line: what became of the connections
(`closed_fast`: closed by the server within a second of connecting).
"""

from __future__ import annotations

import argparse
import errno
import json
import resource
import selectors
import socket
import time
from collections import Counter
from dataclasses import dataclass

SOURCES = [f"127.0.0.{n}" for n in range(2, 10)]
SLOW_HEAD = b"GET /s/" + b"a" * 4000


@dataclass
class Attempt:
    started: float
    slow: bool
    connected: float | None = None
    closed: float | None = None
    sent: int = 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--attempts", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--hold", type=float, default=1.0)
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this side holds up to every attempt at once
    print(json.dumps(flood(args.port, args.attempts, args.seconds, args.hold)), flush=True)


def flood(port: int, attempts: int, seconds: float, hold_s: float) -> dict[str, object]:
    run = Flood(port)
    start = time.monotonic()
    next_slow_byte = start
    while (now := time.monotonic()) - start < seconds + hold_s or len(run.records) < attempts:
        run.open_up_to(min(attempts, int(attempts * (now - start) / seconds) + 1))
        for key, mask in run.selector.select(0.02):
            run.on_event(key.fileobj, key.data, mask)  # type: ignore[arg-type]
        if now >= next_slow_byte:
            next_slow_byte = now + 0.5
            run.send_slow_bytes()
    return run.report(time.monotonic() - start)


class Flood:
    def __init__(self, port: int) -> None:
        self.port = port
        self.selector = selectors.DefaultSelector()
        self.records: list[Attempt] = []
        self.errors: Counter[str] = Counter()
        self.open_now = self.max_open = 0

    def open_up_to(self, due: int) -> None:
        while len(self.records) < due:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.bind((SOURCES[len(self.records) % len(SOURCES)], 0))
            record = Attempt(time.monotonic(), slow=len(self.records) % 4 == 0)
            self.records.append(record)
            code = sock.connect_ex(("127.0.0.1", self.port))
            if code not in (0, errno.EINPROGRESS):
                self.errors[errno.errorcode.get(code, str(code))] += 1
                record.closed = record.started
                sock.close()
                continue
            self.selector.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE, record)

    def on_event(self, sock: socket.socket, record: Attempt, mask: int) -> None:
        if record.connected is None and mask & selectors.EVENT_WRITE:
            code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if code:
                self.errors[errno.errorcode.get(code, str(code))] += 1
                self._closed(sock, record)
                return
            record.connected = time.monotonic()
            self.open_now += 1
            self.max_open = max(self.max_open, self.open_now)
            self.selector.modify(sock, selectors.EVENT_READ, record)
        if mask & selectors.EVENT_READ:
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            if not data:
                self.open_now -= record.connected is not None
                self._closed(sock, record)

    def send_slow_bytes(self) -> None:
        for key in list(self.selector.get_map().values()):
            record, sock = key.data, key.fileobj
            if record.slow and record.connected is not None and record.sent < len(SLOW_HEAD):
                try:
                    sock.send(SLOW_HEAD[record.sent:record.sent + 1])  # type: ignore[union-attr]
                    record.sent += 1
                except OSError:
                    pass

    def report(self, seconds: float) -> dict[str, object]:
        still_open = len(self.selector.get_map())
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        lasted = [r.closed - r.connected for r in self.records if r.closed is not None and r.connected is not None]
        return {
            "attempts": len(self.records),
            "connected": sum(r.connected is not None for r in self.records),
            "connect_errors": dict(self.errors),
            "closed_fast": sum(t < 1.0 for t in lasted),
            "closed_later": sum(t >= 1.0 for t in lasted),
            "open_at_end": still_open,
            "max_open_seen": self.max_open,
            "seconds": round(seconds, 2),
        }

    def _closed(self, sock: socket.socket, record: Attempt) -> None:
        record.closed = time.monotonic()
        self.selector.unregister(sock)
        sock.close()


if __name__ == "__main__":
    main()
