"""How long customers' photos stay on the kiosk.

A saved before/after snapshot shows a customer's hand, so it is kept only as long as the salon has said it needs
it (KioskConfig.snapshot_keep_days) and then deleted — at start-up and whenever a customer's session ends. The
age is the file's modification time: a snapshot is written once and never touched again. A half-written file
(`*.part`, left by a crash or power cut mid-save) is deleted once it is an hour old, whatever the setting.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)

DAY_S = 86_400
PARTIAL_MAX_AGE_S = 3_600
PARTIAL_SUFFIX = ".part"


def purge_expired_photos(folder: Path, keep_days: int, now_s: float) -> list[Path]:
    """Delete the plain files directly in `folder` older than `keep_days` (and partial ones older than an hour);
    returns what was deleted. Sub-folders and links are left alone; a file that cannot be deleted is logged and
    skipped, so one locked file never keeps the others."""
    if keep_days < 1:
        raise ValueError("keep_days must be at least 1")
    deleted: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return deleted
    for entry in entries:
        max_age_s = PARTIAL_MAX_AGE_S if entry.name.endswith(PARTIAL_SUFFIX) else keep_days * DAY_S
        try:
            if not entry.is_file(follow_symlinks=False) or now_s - entry.stat().st_mtime <= max_age_s:
                continue
            os.remove(entry.path)
        except FileNotFoundError:
            continue  # gone already (another purge, or staff tidying up)
        except OSError as exc:
            log.warning("could not delete an expired photo %s: %s", entry.name, exc)
            continue
        deleted.append(Path(entry.path))
    if deleted:
        log.info("deleted %d expired photo file(s) from %s", len(deleted), folder)
    return deleted
