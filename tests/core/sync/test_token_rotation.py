"""The kiosk rotates its token (POST /v1/auth/rotate) in the sync cycle once it is 30 days old, against the real
HQ on loopback behind the fault proxy. The new token is stored only after a call with it succeeded, so neither a
kill -9 between HQ's rotation and the kiosk's write, nor HQ refusing the new token, locks the kiosk out; and a
kiosk restored from a disk image older than a rotation works within HQ's 24 h overlap, and after it is told to
enroll again (keeping its catalog)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import update

from nailmirror_desktop.core.paths import database_path
from nailmirror_hq import clock, db, stores
from nailmirror_hq.schema import retired_token
from tests.support.sync_rig import FaultProxy, HqRig, Rule, answer, enroll, local_styles, nailmirror

WORKER = Path(__file__).resolve().parents[2] / "support" / "sync_worker_proc.py"


def _kiosk_token() -> tuple[str, str]:
    conn = sqlite3.connect(database_path())
    try:
        token, issued = conn.execute("SELECT token, enrolled_at FROM sync_state").fetchone()
    finally:
        conn.close()
    return str(token), str(issued)


def _age_token(days: int) -> None:
    conn = sqlite3.connect(database_path())
    with conn:
        conn.execute("UPDATE sync_state SET enrolled_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?)",
                     (f"-{days} days",))
    conn.close()


def _hq_accepts(rig: HqRig, token: str) -> int:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(rig.url + "/v1/hello", headers={"Authorization": f"Bearer {token}",
                                                                     "NM-Protocol": "1"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def _rotations(proxy: FaultProxy) -> int:
    return sum(1 for p in proxy.paths() if p.startswith("/v1/auth/rotate"))


@pytest.mark.slow
def test_a_young_token_is_kept_and_a_30_day_old_one_is_rotated_once(rig: HqRig, proxy: FaultProxy) -> None:
    enroll(rig, proxy.url)
    first, _ = _kiosk_token()
    assert nailmirror("sync", "now").rc == 0
    assert _rotations(proxy) == 0 and _kiosk_token()[0] == first

    _age_token(29)
    assert nailmirror("sync", "now").rc == 0
    assert _rotations(proxy) == 0 and _kiosk_token()[0] == first

    _age_token(31)
    _, aged = _kiosk_token()
    assert nailmirror("sync", "now").rc == 0
    second, issued = _kiosk_token()
    assert _rotations(proxy) == 1 and second != first and second.startswith("nmst_") and issued > aged
    assert _hq_accepts(rig, second) == 200 and _hq_accepts(rig, first) == 200  # the 24 h overlap
    assert nailmirror("sync", "now").rc == 0 and _rotations(proxy) == 1  # young again: no more rotations
    status = nailmirror("sync", "status", "--json")
    assert second not in status.out and first not in status.out

    with db.write(rig.hq.engine) as conn:  # a day later the old one is gone; the kiosk never needed it again
        conn.execute(update(retired_token).values(valid_until=clock.now_text(-stores.ROTATION_GRACE)))
    assert _hq_accepts(rig, first) == 401
    assert nailmirror("sync", "now").rc == 0


@pytest.mark.slow
def test_a_kill_between_hqs_rotation_and_the_kiosks_write_does_not_lock_the_kiosk_out(rig: HqRig) -> None:
    enroll(rig)
    assert nailmirror("sync", "now").rc == 0
    old, _ = _kiosk_token()
    _age_token(40)
    killed = subprocess.run([sys.executable, str(WORKER), "--kill-at", "token_saved"], env=dict(os.environ),
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert _kiosk_token()[0] == old  # HQ rotated; the kiosk never stored the new token
    assert _hq_accepts(rig, old) == 200  # still valid: the overlap is for this
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err
    new, _ = _kiosk_token()
    assert new != old and _hq_accepts(rig, new) == 200  # rotated again, from the old token


@pytest.mark.slow
def test_a_new_token_hq_refuses_is_never_stored(rig: HqRig, proxy: FaultProxy) -> None:
    """HQ lost the rotation (e.g. a database fail-over): the first call with the new token gets 401. The kiosk
    keeps the old one, the cycle goes on, and the next cycle rotates again."""
    enroll(rig, proxy.url)
    assert nailmirror("sync", "now").rc == 0
    old, _ = _kiosk_token()
    _age_token(40)
    refusal = answer(401, "Unauthorized", {"Content-Type": "application/json"},
                     json.dumps({"nm": 1, "error": "token_invalid", "message": "unknown token"}).encode())
    proxy.rules.append(Rule(path="/v1/hello", skip=1, answer=refusal))  # the call right after the rotation
    published = rig.publish_new("轮换中")
    run = nailmirror("sync", "now")
    assert run.rc == 0, run.err
    assert _kiosk_token()[0] == old and _rotations(proxy) == 1
    assert published in {s["client_uid"] for s in local_styles("--customer")}  # the cycle went on
    assert nailmirror("sync", "status", "--json").json()["state"] == "OK"
    assert nailmirror("sync", "now").rc == 0 and _rotations(proxy) == 2 and _kiosk_token()[0] != old


@pytest.mark.slow
def test_a_kiosk_restored_from_an_image_older_than_a_rotation(rig: HqRig, tmp_path: Path,
                                                              nailmirror_home: Path) -> None:
    """Within the 24 h overlap the image's token works (and is rotated again); after it, sync says to enroll
    again and the kiosk keeps its catalog; enrolling again (a new code for the store) takes its catalog over by
    id, without duplicates."""
    store_id = enroll(rig)
    kept = rig.publish_new("镜像款")
    assert nailmirror("sync", "now").rc == 0
    _age_token(40)
    image = tmp_path / "disk-image"
    shutil.copytree(nailmirror_home, image)
    imaged, _ = _kiosk_token()
    assert nailmirror("sync", "now").rc == 0 and _kiosk_token()[0] != imaged  # rotated after the image

    def restore_image() -> None:
        shutil.rmtree(nailmirror_home)
        shutil.copytree(image, nailmirror_home)

    restore_image()
    assert nailmirror("sync", "now").rc == 0  # within the overlap: the old token works, and is rotated again
    assert _kiosk_token()[0] != imaged

    restore_image()
    with db.write(rig.hq.engine) as conn:
        conn.execute(update(retired_token).values(valid_until=clock.now_text(-stores.ROTATION_GRACE)))
    failed = nailmirror("sync", "now")
    assert failed.rc == 1 and "enroll again" in failed.err and len(failed.err.strip().splitlines()) == 1
    assert kept in {s["client_uid"] for s in local_styles("--customer")}  # offline, the catalog is kept
    assert nailmirror("sync", "status", "--json").json()["state"] == "REVOKED"

    with db.write(rig.hq.engine) as conn:
        code = stores.new_enroll_code(conn, store_id, "test")
    assert nailmirror("sync", "enroll", code, "--hq", rig.url).rc == 0
    assert nailmirror("sync", "now").rc == 0
    uids = Counter(s["client_uid"] for s in local_styles())
    assert uids[kept] == 1 and max(uids.values()) == 1
