"""The failure table's two "restored" rows (catalog_sync.md §4.11), with the kiosk's own `nailmirror sync now`
against the real HQ on loopback:

- HQ restored from a backup (`nailmirror-hq restore`: a new epoch). The kiosk resyncs by snapshot replace: what
  HQ no longer has goes, its own drafts stay, and a revision it had sent but HQ lost goes up again.
- A kiosk restored from an old disk image: an old cursor (behind HQ, same epoch) and the drafts the image had.
  The kiosk catches up by replaying the feed from that cursor (versions already applied are skipped), a draft
  approved at HQ since comes back as the catalog style once, and nothing is duplicated.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from nailmirror_hq import backup
from tests.support.hq_fixtures import style_folder
from tests.support.sync_rig import HqRig, enroll, local_styles, nailmirror


def _draft(tmp_path: Path, name: str, salt: int, *, submit: bool) -> tuple[str, str]:
    """A kiosk draft imported from a folder (submitted to HQ when `submit`): (style code, draft id)."""
    imported = nailmirror("styles", "import", str(style_folder(tmp_path / f"d{salt}", name=name, salt=salt)))
    assert imported.rc == 0, imported.err
    code = imported.out.strip()
    if submit:
        assert nailmirror("styles", "submit", code).rc == 0
    return code, next(s["client_uid"] for s in local_styles() if s["style_code"] == code)


def _sync() -> dict[str, object]:
    run = nailmirror("sync", "now", "--json")
    assert run.rc == 0, run.err
    result: dict[str, object] = run.json()
    return result


def _customer_ids() -> set[str]:
    return {s["client_uid"] for s in local_styles("--customer")}


@pytest.mark.slow
def test_hq_restored_from_a_backup_resyncs_the_kiosk_and_keeps_its_drafts(rig: HqRig, tmp_path: Path) -> None:
    store_id = enroll(rig)
    before_backup = rig.publish_new("备份前")
    first = _sync()
    backup.backup(rig.hq.engine, rig.hq.blobs, tmp_path / "backup")

    # After the backup: a submitted draft reaches HQ, a local draft stays local, HQ publishes another style.
    sent_code, sent_id = _draft(tmp_path, "已送审", 61, submit=True)
    local_code, local_id = _draft(tmp_path, "本地草稿", 62, submit=False)
    after_backup = rig.publish_new("备份后")
    _sync()
    assert {d["draft_id"] for d in rig.drafts()} == {sent_id}
    assert {before_backup, after_backup} <= _customer_ids()

    restored = backup.restore(rig.hq.engine, rig.hq.blobs, tmp_path / "backup", "test")
    assert restored["epoch"] != str(first["cursor"]).split(".")[0]
    assert rig.drafts() == []  # HQ lost the draft with everything after the backup

    synced = _sync()
    assert str(synced["cursor"]).startswith(restored["epoch"] + ".")  # resynced on HQ's new history
    assert synced["state"] == "OK" and synced["pending_uploads"] == 0
    shown = _customer_ids()
    assert before_backup in shown and after_backup not in shown  # a replace: what HQ no longer has goes
    # The kiosk's drafts are all here, once, and the one HQ lost went up again.
    codes = Counter(s["style_code"] for s in local_styles())
    assert codes[sent_code] == 1 and codes[local_code] == 1
    assert {s["client_uid"] for s in local_styles()} >= {sent_id, local_id}
    at_hq = [d for d in rig.drafts() if d["draft_id"] == sent_id]
    assert len(at_hq) == 1 and at_hq[0]["store_id"] == store_id and at_hq[0]["status"] == "PENDING_REVIEW"
    assert local_id not in {d["draft_id"] for d in rig.drafts()}  # never submitted: never sent
    # It can still be decided as usual: approved at HQ, it comes back as the same style, once.
    rig.approve(sent_id)
    _sync()
    rows = [s for s in local_styles() if s["client_uid"] == sent_id]
    assert len(rows) == 1 and rows[0]["status"] == "PUBLISHED" and rows[0]["style_code"] == sent_code


@pytest.mark.slow
def test_a_kiosk_restored_from_an_old_disk_image_catches_up_without_duplicates(
        rig: HqRig, tmp_path: Path, nailmirror_home: Path) -> None:
    enroll(rig)
    early = rig.publish_new("早期款")
    imaged_at = _sync()
    pending_code, pending_id = _draft(tmp_path, "镜像中的送审", 71, submit=True)
    assert nailmirror("sync", "now").rc == 0  # the image has it as sent, not yet decided
    image = tmp_path / "disk-image"
    shutil.copytree(nailmirror_home, image)

    # Life goes on after the image was taken: publishes, a take-down, the draft approved, a newer draft.
    later = rig.publish_new("后来款")
    rig.set_status(early, "WITHDRAWN")
    rig.approve(pending_id)
    _, lost_id = _draft(tmp_path, "镜像后的送审", 72, submit=True)
    current = _sync()
    assert current["cursor"] != imaged_at["cursor"]

    # The kiosk's disk dies; it is restored from the image (old cursor, the token it had, the old drafts).
    shutil.rmtree(nailmirror_home)
    shutil.copytree(image, nailmirror_home)
    assert nailmirror("sync", "status", "--json").json()["cursor"] == imaged_at["cursor"]
    caught_up = _sync()
    assert caught_up["cursor"] == current["cursor"]  # the same epoch: the feed replayed from the old cursor
    cycle = caught_up["cycle"]
    assert isinstance(cycle, dict) and cycle["snapshot"] is False
    shown = _customer_ids()
    assert later in shown and early not in shown
    # The draft the image had sent comes back as HQ's style: one row, its code, PUBLISHED.
    rows = [s for s in local_styles() if s["client_uid"] == pending_id]
    assert len(rows) == 1 and rows[0]["status"] == "PUBLISHED" and rows[0]["style_code"] == pending_code
    # No style twice; the draft made after the image is gone with the disk (HQ still has it, pending review).
    uids = Counter(s["client_uid"] for s in local_styles())
    assert max(uids.values()) == 1 and lost_id not in uids
    assert [d["status"] for d in rig.drafts() if d["draft_id"] == lost_id] == ["PENDING_REVIEW"]
    assert caught_up["pending_uploads"] == 0 and caught_up["pending_downloads"] == 0
