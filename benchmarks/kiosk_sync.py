"""The kiosk's side of catalog sync, end to end: the real HQ (`nailmirror-hq serve`, a process of its own, on
127.0.0.1), a counting TCP relay in front of it, and the kiosk's own `nailmirror sync now` in this process (a
fresh data directory). The catalog is published into HQ's database from here before HQ starts serving.

    python benchmarks/kiosk_sync.py                       # full size: a 500-style catalog, then 10 changes
    python benchmarks/kiosk_sync.py --styles 5 --changes 2   # toy size (CI's test)

Figures: first sync of the catalog (seconds, requests, bytes down incl. headers, blobs fetched) and an
incremental sync of N changes (seconds, requests, bytes). Each style has 3 distinct images (nail, accent,
preview), so the first sync fetches 3 x styles blobs, in several cycles when that is more than the engine's
per-source backlog (200). The last line is the JSON summary; `first_sync_<styles>_s` (`first_sync_500_s` at full
size) is the first sync's seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--styles", type=int, default=500)
    parser.add_argument("--changes", type=int, default=10)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="nm-kiosk-sync-bench-"))
    os.environ["NAILMIRROR_HOME"] = str(work / "kiosk")
    (work / "kiosk").mkdir()
    from tests.support.sync_rig import FaultProxy, HqRig, enroll, local_styles, nailmirror

    rig = HqRig(work / "hq")
    hq: _Served | None = None
    relay: FaultProxy | None = None
    try:
        started = time.perf_counter()
        ids = [_publish(rig, work, f"基准款{i}", i) for i in range(args.styles)]
        publish_s = time.perf_counter() - started
        hq = _Served(work / "hq")
        relay = FaultProxy(hq.port)
        enroll(rig, relay.url)
        local_styles()  # the kiosk's own starter catalog loads first, as on a kiosk's first start (not counted)
        first = _measured(relay, lambda: nailmirror("sync", "now", "--timeout", "3600"))
        shown = {s["client_uid"] for s in local_styles("--customer", "--limit", "100000")}
        assert set(ids) <= shown, "the first sync did not show every style"
        for i in range(args.changes):  # 10 changes: half new styles, half take-downs
            if i % 2 == 0:
                _publish(rig, work, f"新款{i}", args.styles + i)
            else:
                rig.set_status(ids[i], "WITHDRAWN")
        incremental = _measured(relay, lambda: nailmirror("sync", "now"))
        summary = {"benchmark": "kiosk_sync", "styles": args.styles, "hq_publish_s": round(publish_s, 2),
                   f"first_sync_{args.styles}_s": first["seconds"], "kiosk_first_sync": first,
                   "changes": args.changes, "kiosk_incremental_sync": incremental,
                   "load_note": "measured on a shared box: seconds are upper bounds"}
        print(json.dumps(summary))
        return 0
    finally:
        if relay is not None:
            relay.stop()
        if hq is not None:
            hq.stop()
        rig.stop()
        shutil.rmtree(work, ignore_errors=True)


class _Served:
    """`nailmirror-hq serve` on a free loopback port over HQ's data directory `root`."""

    def __init__(self, root: Path) -> None:
        import subprocess

        from tests.support.hq_servers import free_port, wait_port

        self.port = free_port()
        env = {**os.environ, "NAILMIRROR_HQ_STARTER_CATALOG": ""}
        for key in ("NAILMIRROR_HQ_DATABASE_URL", "NAILMIRROR_HQ_BLOBS"):
            env.pop(key, None)
        self.proc = subprocess.Popen([sys.executable, "-m", "nailmirror_hq", "--data", str(root), "serve",
                                      "--host", "127.0.0.1", "--port", str(self.port)], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
        if not wait_port(self.port, 60):
            self.stop()
            raise SystemExit("kiosk_sync.py: nailmirror-hq serve did not start")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except Exception:  # noqa: BLE001 — a server that will not stop is killed: the data is thrown away
                self.proc.kill()
                self.proc.wait()
        if self.proc.stderr is not None:
            self.proc.stderr.close()


def _publish(rig, work: Path, name: str, n: int) -> str:  # type: ignore[no-untyped-def]
    """A published style whose three images are unique to `n` (so no blob is shared between styles)."""
    from nailmirror_hq import catalog
    from tests.support.hq_fixtures import png

    folder = work / "folders" / f"s{n}"
    folder.mkdir(parents=True)
    colour = (n % 256, (n // 256) % 256, 90)
    (folder / "nail.png").write_bytes(png(rgb=colour))
    (folder / "accent.png").write_bytes(png(rgb=colour, salt=1))
    (folder / "preview.png").write_bytes(png(32, 24, colour))
    (folder / "style.json").write_text(json.dumps({"name": name, "accent_fingers": ["ring"]}, ensure_ascii=False),
                                       encoding="utf-8")
    return str(catalog.import_folder(rig.hq.engine, rig.hq.blobs, folder, actor="bench", publish=True).id)


def _measured(relay, run) -> dict[str, object]:  # type: ignore[no-untyped-def]
    requests, down, up = len(relay.seen), relay.bytes_down, relay.bytes_up
    blobs_before = sum("/v1/blobs/" in p for p in relay.paths())
    started = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - started
    if result.rc != 0:
        raise SystemExit(f"sync now failed: {result.err.strip()}")
    return {"seconds": round(seconds, 2), "requests": len(relay.seen) - requests,
            "bytes_down": relay.bytes_down - down, "bytes_up": relay.bytes_up - up,
            "blobs_fetched": sum("/v1/blobs/" in p for p in relay.paths()) - blobs_before}


if __name__ == "__main__":
    sys.exit(main())
