"""kill -9 of a real kiosk process during sync (tests/support/sync_worker_proc.py): on restart the database is
consistent and the next `sync now` ends in the same state as an uninterrupted one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.sync_rig import HqRig, enroll, local_styles, nailmirror

WORKER = Path(__file__).resolve().parents[2] / "support" / "sync_worker_proc.py"


def killed_sync(point: str) -> None:
    result = subprocess.run([sys.executable, str(WORKER), "--kill-at", point], env=dict(os.environ),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == -signal.SIGKILL, result.stderr[-2000:]


@pytest.mark.slow
def test_kill_inside_a_page_transaction_leaves_the_old_cursor(rig: HqRig) -> None:
    enroll(rig)
    assert nailmirror("sync", "now").rc == 0
    cursor = nailmirror("sync", "status", "--json").json()["cursor"]
    style_id = rig.publish_new()
    killed_sync("page_commit")
    assert nailmirror("sync", "status", "--json").json()["cursor"] == cursor  # the page never committed
    assert style_id not in {s["client_uid"] for s in local_styles()}
    assert nailmirror("sync", "now").rc == 0
    assert [s["client_uid"] for s in local_styles("--customer")].count(style_id) == 1


@pytest.mark.slow
def test_kill_between_storing_a_blob_and_recording_it(rig: HqRig) -> None:
    enroll(rig)
    style_id = rig.publish_new()
    killed_sync("blob_stored")
    assert style_id not in {s["client_uid"] for s in local_styles("--customer")}
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err
    assert [s["client_uid"] for s in local_styles("--customer")].count(style_id) == 1
    assert nailmirror("sync", "status", "--json").json()["pending_downloads"] == 0
