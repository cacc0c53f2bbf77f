"""The snapshots the kiosk keeps, as staff see them: listed newest first, deleted for good (ARCHITECTURE.md §3).

ui/tryon/snapshot.py writes a snapshot as two files in data_dir()/snapshots, `<UTC time>_<code>_before.png` and
`<UTC time>_<code>_after.png` (code `none` when no style was on); the EFFECT_PREVIEW render
(app/effect_preview.py) writes its better "after" over the same `_after.png`, through a `<stem>.<task>.part`
file renamed into place. So one snapshot is its stem: deleting it removes both images and any render partial,
and the render, if it is still running, does not bring the "after" back (it writes only over a file that is
still there). The time in the name is UTC; the UI shows it in the store's time zone. Stdlib only.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger(__name__)

_NAME = re.compile(r"^(?P<stamp>\d{8}T\d{12}Z)_(?P<code>[A-Za-z0-9-]{1,40})_(?P<side>before|after)\.png$")
_STAMP = "%Y%m%dT%H%M%S%fZ"
NO_STYLE = "none"


@dataclass(frozen=True)
class SnapshotEntry:
    """One saved before/after pair. `after` may be missing while `before` is there (a save cut short), and the
    other way round; `taken_at` is UTC."""

    stem: str
    taken_at: datetime
    style_code: str  # "" when no style was on
    before: Path | None
    after: Path | None

    @property
    def shown(self) -> Path:
        """The image a gallery shows: the "after" (what the customer kept), else the "before"."""
        path = self.after or self.before
        assert path is not None  # an entry is made only for a file that exists
        return path

    def files(self) -> list[Path]:
        return [p for p in (self.before, self.after) if p is not None]


def list_snapshots(folder: Path) -> list[SnapshotEntry]:
    """The snapshots in `folder`, newest first; files of other names (partials, the owned marker) are left out."""
    pairs: dict[str, dict[str, Path]] = {}
    found: dict[str, tuple[datetime, str]] = {}
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return []
    for entry in entries:
        match = _NAME.match(entry.name)
        if match is None or not entry.is_file(follow_symlinks=False):
            continue
        try:
            taken_at = datetime.strptime(match["stamp"], _STAMP).replace(tzinfo=UTC)
        except ValueError:
            continue
        stem = f"{match['stamp']}_{match['code']}"
        pairs.setdefault(stem, {})[match["side"]] = Path(entry.path)
        code = match["code"]
        found[stem] = (taken_at, "" if code == NO_STYLE else code)
    snapshots = [SnapshotEntry(stem, found[stem][0], found[stem][1], sides.get("before"), sides.get("after"))
                 for stem, sides in pairs.items()]
    snapshots.sort(key=lambda s: (s.taken_at, s.stem), reverse=True)
    return snapshots


def delete_snapshot(folder: Path, stem: str) -> list[Path]:
    """Delete every file of the snapshot `stem` in `folder` (both images and any render partial); returns what
    was deleted. Already gone is fine; a file that cannot be deleted raises OSError after the others went."""
    if not re.fullmatch(r"\d{8}T\d{12}Z_[A-Za-z0-9-]{1,40}", stem):
        raise ValueError(f"not a snapshot name: {stem!r}")  # never a path: nothing outside `folder` is touched
    deleted: list[Path] = []
    failed: OSError | None = None
    for entry in list(os.scandir(folder)):
        if not entry.name.startswith(stem + "_") or not entry.is_file(follow_symlinks=False):
            continue
        try:
            os.remove(entry.path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.warning("could not delete snapshot file %s: %s", entry.name, exc)
            failed = exc
            continue
        deleted.append(Path(entry.path))
    if failed is not None:
        raise failed
    log.info("deleted snapshot %s (%d file(s))", stem, len(deleted))
    return deleted


def delete_all_snapshots(folder: Path) -> list[Path]:
    """Delete every snapshot in `folder` (partials too); returns what was deleted."""
    deleted: list[Path] = []
    stems = {s.stem for s in list_snapshots(folder)}
    for entry in list(os.scandir(folder)) if folder.is_dir() else []:
        match = re.match(r"^(\d{8}T\d{12}Z_[A-Za-z0-9-]{1,40})_", entry.name)
        if match:
            stems.add(match.group(1))
    for stem in sorted(stems):
        deleted += delete_snapshot(folder, stem)
    return deleted
