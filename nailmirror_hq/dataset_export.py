"""A dataset, or the evaluation set, written as a folder the trainer and the scorer read (issue #27, for the
`model train` / `model evaluate` jobs): `images/<name>.png` (the capture as kept), `masks/<name>.png` (its label,
0/255 single-channel, the image's size) and `index.csv` — the layout of shared/data/nails_eval, so
tools/extract_nail_rois.py and `nailmirror evaluate` read it with `--data DIR`. Writing it reads captures, so it is
audited like every other read.

A photo's name leads with its image's sha256 (`<12 hex>-<code>`): the readers take the photos in name order, and
the trainer's seeded batches follow that order, so named by the random capture codes alone the same photos and labels
trained a different model each time they were captured again (a tiny run passed the gate or not by that draw).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine

from nailmirror_hq import audit, datasets, db
from nailmirror_hq.blobs import BlobStore
from nailmirror_hq.errors import HQError

EVALUATION = "evaluation"
COLUMNS = ("image", "mask", "width", "height", "skin_tone", "nail_kind", "store_id", "day", "capture",
           "label_version")


@dataclass(frozen=True)
class ExportSummary:
    name: str
    count: int
    label_versions: tuple[int, ...]
    out_dir: Path


def export_dataset(engine: Engine, captures: BlobStore, name: str, out_dir: Path,
                   actor: str = "export") -> ExportSummary:
    """Write dataset `name` to `out_dir` (absent or empty). A legacy dataset (captures without labels) is refused."""
    with db.read(engine) as conn:
        found = datasets.get(conn, name)
        held = datasets.members(conn, name)
    if found.legacy:
        raise HQError(409, "dataset_legacy", f"dataset {name} lists captures without labels (made before"
                                             " labelling); create a labels dataset instead")
    return _write(engine, captures, name, held, out_dir, actor)


def export_evaluation_set(engine: Engine, captures: BlobStore, out_dir: Path,
                          actor: str = "export") -> ExportSummary:
    with db.read(engine) as conn:
        held = datasets.evaluation_members(conn)
    return _write(engine, captures, EVALUATION, held, out_dir, actor)


def _write(engine: Engine, captures: BlobStore, name: str, held: list[datasets.Member], out_dir: Path,
           actor: str) -> ExportSummary:
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise HQError(409, "export_target", f"{out_dir} is not an empty folder")
    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    (out_dir / "masks").mkdir(exist_ok=True)
    written = []
    with open(out_dir / "index.csv", "w", newline="", encoding="utf-8") as index:
        table = csv.writer(index, lineterminator="\n")
        table.writerow(COLUMNS)
        for member in sorted(held, key=file_name):
            if member.mask_sha256 is None or member.label_version is None:
                continue
            photo = file_name(member)
            _copy(captures, member.image_sha256, out_dir / "images" / photo)
            _copy(captures, member.mask_sha256, out_dir / "masks" / photo)
            table.writerow((photo, photo, member.width, member.height,
                            member.skin_tone, member.nail_kind, member.store_id, member.day, member.code,
                            member.label_version))
            written.append(member.label_version)
    with db.write(engine) as conn:
        audit.record(conn, actor, "DATASET_EXPORT", "dataset", name, count=len(written))
    return ExportSummary(name, len(written), tuple(written), out_dir)


def file_name(member: datasets.Member) -> str:
    """The photo's file name in an exported set: its content first (the order readers take), its code after."""
    return f"{member.image_sha256[:12]}-{member.code}.png"


def _copy(store: BlobStore, sha256: str, target: Path) -> None:
    with open(target, "wb") as out:
        for chunk in store.read_chunks(sha256):
            out.write(chunk)
