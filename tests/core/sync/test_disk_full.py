"""The failure table's "disk full while writing a blob" row (catalog_sync.md §4.11, §7 case 10), for real: the
kiosk's own `nailmirror sync now` runs as a child process under RLIMIT_FSIZE (SIGXFSZ ignored, so a write past
the cap fails with EFBIG exactly where a full disk fails with ENOSPC), against the real HQ on loopback behind the
fault proxy. The cap sits above the kiosk database's size and below the updated style's big nail texture, so the
database keeps working and the blob's write is the one that fails."""

from __future__ import annotations

import hashlib
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from nailmirror_hq import catalog, db
from tests.adapters.sync.test_client import noisy_png
from tests.support.sync_rig import FaultProxy, HqRig, enroll, local_styles, nailmirror

ROOT = Path(__file__).resolve().parents[3]


def _capped(limit: int) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def _shown(style_id: str) -> dict[str, object]:
    rows = [s for s in local_styles("--customer") if s["client_uid"] == style_id]
    assert len(rows) == 1, rows
    return rows[0]


def _textures(code: str) -> set[str]:
    shown = nailmirror("styles", "show", code, "--json").json()
    return {a["file_sha256"] for a in shown["assets"] if a["asset_type"] == "NAIL_TEXTURE"}


@pytest.mark.slow
def test_a_full_disk_while_writing_a_blob_keeps_the_old_version_and_resumes_when_space_returns(
        rig: HqRig, proxy: FaultProxy, nailmirror_home: Path) -> None:
    enroll(rig, proxy.url)
    style_id = rig.publish_new("旧版")
    assert nailmirror("sync", "now").rc == 0
    old = _shown(style_id)
    old_textures = _textures(str(old["style_code"]))

    # The chain edits the style: a new nail texture bigger than the room this kiosk is about to have.
    biggest_file = max(p.stat().st_size for p in nailmirror_home.rglob("*") if p.is_file())
    limit = biggest_file + 1024 * 1024
    big = noisy_png(1024, (limit + 1536 * 1024) // (3 * 1024) + 1)
    sha = hashlib.sha256(big).hexdigest()
    assert len(big) > limit + 1024 * 1024
    with db.write(rig.hq.engine) as conn:
        row = catalog.get_style(conn, style_id)
        assert row is not None
        catalog.store_blob(rig.hq.blobs, big, sha)
        catalog.record_blob(conn, sha, len(big), "PNG", 1024, 1)
        body = dict(row.body)
        body["name"] = {"zh": "新版", "en": ""}
        body["assets"] = [{**a, "sha256": sha, "size": len(big)} if a["type"] == "NAIL_TEXTURE" and a["slot"] == "nail"
                          else a for a in row.body["assets"]]
        catalog.replace_body(conn, style_id, body, "test")  # type: ignore[arg-type]

    env = {**os.environ, "PYTHONPATH": str(ROOT), "NAILMIRROR_HOME": str(nailmirror_home)}
    full = subprocess.run([sys.executable, "-m", "nailmirror_desktop", "sync", "now"], env=env, capture_output=True,
                          text=True, preexec_fn=_capped(limit), timeout=300)
    # A clear one-line reason, at once (not a timeout), and not a network fault.
    assert full.returncode == 1, full.stderr
    assert "DISK_FULL" in full.stderr and "disk" in full.stderr and "Traceback" not in full.stderr
    assert len(full.stderr.strip().splitlines()) == 1, full.stderr

    part = nailmirror_home / "sync" / "parts" / f"{sha}.part"
    assert part.is_file() and 0 < part.stat().st_size <= limit  # what arrived is kept for the resume
    kept = part.stat().st_size
    # Nothing partial became visible: no file of the new blob (nor a temporary) in the asset store ...
    assets = nailmirror_home / "assets"
    assert not [p for p in assets.rglob("*") if sha in p.name or p.name.endswith(".tmp")]
    # ... and the old version keeps showing, with all its own textures.
    staged = _shown(style_id)
    assert staged["name"] == "旧版" and staged["content_version"] == old["content_version"]
    assert staged["is_previewable"] and _textures(str(staged["style_code"])) == old_textures
    status = nailmirror("sync", "status", "--json").json()
    assert status["pending_downloads"] == 1

    # Space returns; staff run sync now: the fetch resumes where the disk stopped it and the update shows.
    proxy.seen.clear()
    resumed = nailmirror("sync", "now")
    assert resumed.rc == 0, resumed.err
    gets = [h for h in proxy.seen if f"/v1/blobs/{sha}" in h.split("\r\n", 1)[0]]
    assert len(gets) == 1 and f"range: bytes={kept}-" in gets[0].lower()
    done = _shown(style_id)
    assert done["name"] == "新版" and int(str(done["content_version"])) == int(str(old["content_version"])) + 1
    assert sha in _textures(str(done["style_code"]))
    assert not part.exists()
