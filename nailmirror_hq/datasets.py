"""Datasets (issue #27 §2): a named, frozen list of label versions, and the evaluation set kept apart.

`create` freezes, at one moment, every capture's newest label version that is accepted and whose capture is not in
the evaluation split (labels.in_evaluation): later labels never change it. Its members are capture_dataset rows
(the table #26 made), so a withdrawal deletes a member where it always did and counts it in the dataset's `lost`;
nothing else ever changes a dataset. The evaluation set is not frozen: it is every evaluation-split capture's
newest accepted label, read when a model is scored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, func, select

from nailmirror_hq import audit, clock, db, labels
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.schema import capture, capture_dataset, label_dataset, label_version

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


@dataclass(frozen=True)
class Member:
    code: str
    label_version: int | None  # None: a legacy (#26) dataset's capture, listed without a label
    store_id: str
    day: str
    width: int
    height: int
    skin_tone: str | None
    nail_kind: str | None
    mask_sha256: str | None
    image_sha256: str


@dataclass(frozen=True)
class Dataset:
    name: str
    created_at: str
    created_by: str
    members: int  # when it was frozen
    lost: int  # members a withdrawal or retention took away since
    excluded: int  # legacy members taken out because their capture is in the evaluation split
    legacy: bool

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "created_at": self.created_at, "created_by": self.created_by,
                "members": self.members, "lost": self.lost, "held": self.members - self.lost,
                "excluded": self.excluded, "legacy": self.legacy}


def create(engine: Engine, name: str, actor: str) -> Dataset:
    """Freeze a dataset of every accepted label not in the evaluation set; 409 when the name is taken or nothing
    qualifies, 400 for a malformed name."""
    if not NAME.match(name):
        raise HQError(400, "invalid_dataset", "a dataset name is 1..80 letters, digits, '.', '_' or '-'")
    with db.write(engine) as conn:
        taken = (conn.execute(select(label_dataset.c.name).where(label_dataset.c.name == name)).first()
                 or conn.execute(select(capture_dataset.c.code).where(capture_dataset.c.dataset == name)).first())
        if taken:
            raise HQError(409, "dataset_exists", f"dataset {name} exists; a dataset never changes, pick a new name")
        chosen = [m for m in _newest_accepted(conn) if not labels.in_evaluation(m.store_id, m.day)]
        if not chosen:
            raise HQError(409, "dataset_empty", "no accepted label outside the evaluation set yet")
        now = clock.now_text()
        conn.execute(capture_dataset.insert(), [{"dataset": name, "code": m.code, "added_at": now,
                                                 "label_version": m.label_version} for m in chosen])
        conn.execute(label_dataset.insert().values(name=name, created_at=now, created_by=actor,
                                                   members=len(chosen), lost=0, excluded=0, legacy=0))
        audit.record(conn, actor, "DATASET_CREATE", "dataset", name, members=len(chosen))
    return Dataset(name, now, actor, len(chosen), 0, 0, False)


def list_datasets(conn: Connection) -> list[Dataset]:
    return [_dataset(r) for r in conn.execute(select(label_dataset).order_by(label_dataset.c.created_at.desc(),
                                                                             label_dataset.c.name)).all()]


def get(conn: Connection, name: str) -> Dataset:
    row = conn.execute(select(label_dataset).where(label_dataset.c.name == name)).one_or_none()
    if row is None:
        raise not_found(f"dataset {name}")
    return _dataset(row)


def members(conn: Connection, name: str) -> list[Member]:
    """The members a dataset still holds, by capture code."""
    get(conn, name)
    rows = conn.execute(
        select(capture_dataset.c.code, capture_dataset.c.label_version, capture.c.store_id, capture.c.taken_at,
               capture.c.width, capture.c.height, capture.c.image_sha256, label_version.c.skin_tone,
               label_version.c.nail_kind, label_version.c.mask_sha256)
        .join(capture, capture.c.code == capture_dataset.c.code)
        .outerjoin(label_version, label_version.c.id == capture_dataset.c.label_version)
        .where(capture_dataset.c.dataset == name).order_by(capture_dataset.c.code)).all()
    return [_member(r, r.label_version) for r in rows]


def evaluation_members(conn: Connection) -> list[Member]:
    """The evaluation set now: every evaluation-split capture's newest label, when it is accepted."""
    return [m for m in _newest_accepted(conn) if labels.in_evaluation(m.store_id, m.day)]


def _newest_accepted(conn: Connection) -> list[Member]:
    newest = (select(label_version.c.code, func.max(label_version.c.version).label("v"))
              .group_by(label_version.c.code).subquery())
    rows = conn.execute(
        select(label_version.c.id.label("label_version"), label_version.c.code, capture.c.store_id,
               capture.c.taken_at, capture.c.width, capture.c.height, capture.c.image_sha256,
               label_version.c.skin_tone, label_version.c.nail_kind, label_version.c.mask_sha256)
        .join(newest, (label_version.c.code == newest.c.code) & (label_version.c.version == newest.c.v))
        .join(capture, capture.c.code == label_version.c.code)
        .where(label_version.c.decision == "accepted").order_by(label_version.c.code)).all()
    return [_member(r, r.label_version) for r in rows]


def _member(r: Any, version: int | None) -> Member:
    return Member(r.code, None if version is None else int(version), r.store_id, labels.capture_day(r.taken_at),
                  int(r.width), int(r.height), r.skin_tone, r.nail_kind, r.mask_sha256, r.image_sha256)


def _dataset(r: Any) -> Dataset:
    return Dataset(r.name, r.created_at, r.created_by, int(r.members), int(r.lost), int(r.excluded),
                   bool(r.legacy))
