"""Consented nail captures at HQ (issue #26): kept, listed, shown, withdrawn and expired.

A capture arrives from the kiosk that made it (`put_capture`, PUT /v1/captures/{code}): its image goes to the
capture store (`HQ.require_captures()`: captures/ apart from the catalog's blobs, never served on /v1/blobs nor
presigned to any kiosk), then its row. Every read of a capture (the list, one capture, its image) goes through
`can_read_captures` and leaves an audit row. A withdrawal (`withdraw`, by code: from any kiosk of the chain or an
operator) deletes the row, the dataset rows that listed it (each labels dataset counts a member lost), its label
versions (labels.py) with their masks, and the image, and records the withdrawal (no image) so the kiosk still
holding a copy is answered 410 and deletes it. `expire` deletes captures past the chain's
retention age (HQ config, default 180 days), used by a training or not.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Connection, Engine, delete, func, select, update

from nailmirror_hq import audit, clock, db, roles
from nailmirror_hq.blobs import BlobStore
from nailmirror_hq.errors import HQError, not_found
from nailmirror_hq.images import probe
from nailmirror_hq.schema import capture, capture_dataset, capture_withdrawal, label_dataset, label_version
from nailmirror_protocol import paths
from nailmirror_protocol.errors import ErrorCode
from nailmirror_protocol.shapes import CAPTURE_IMAGE_MAX_BYTES

FACTS_MAX_BYTES = 64 * 1024
CONSENTERS = ("customer", "staff")


class Reader(Protocol):
    """Who asks to read captures: a signed-in reviewer's web session, or the operator at HQ's shell."""

    @property
    def reviewer(self) -> str: ...


@dataclass(frozen=True)
class Operator:
    """The CLI's reader: whoever runs `nailmirror-hq` on HQ's machine (they hold the database already)."""

    reviewer: str


@dataclass(frozen=True)
class CaptureRow:
    code: str
    store_id: str
    kiosk_id: str
    image_sha256: str
    size: int
    width: int
    height: int
    taken_at: str
    received_at: str
    consent_by: str
    consent_at: str
    consent_text_version: str
    model_version: str
    facts: dict[str, Any]

    def summary(self) -> dict[str, Any]:
        return {"code": paths.show_capture_code(self.code), "store_id": self.store_id, "kiosk_id": self.kiosk_id,
                "taken_at": self.taken_at, "received_at": self.received_at, "consent_by": self.consent_by,
                "consent_at": self.consent_at, "consent_text_version": self.consent_text_version,
                "model_version": self.model_version, "size": self.size, "width": self.width, "height": self.height}


@dataclass(frozen=True)
class Withdrawal:
    code: str
    held: bool  # HQ held the capture (and deleted it)
    datasets: tuple[str, ...]  # the datasets that listed it
    already: bool  # the code had been withdrawn before


def can_read_captures(session: Reader | None) -> bool:
    """The one place that decides who reads captures (list, show, image): the operator at HQ's shell (who holds
    the database itself), or a signed-in person whose role has READ_CAPTURES (labeller, trainer, ops admin)."""
    if session is None or not session.reviewer:
        return False
    if isinstance(session, Operator):
        return True
    return roles.allows(getattr(session, "role", None), roles.Permission.READ_CAPTURES)


def require_reader(session: Reader | None) -> Reader:
    if session is None or not can_read_captures(session):
        raise HQError(403, ErrorCode.BAD_REQUEST, "reading captures needs the read_captures permission")
    return session


# ---- from the kiosks ----------------------------------------------------------------------------------------

def put_capture(engine: Engine, store: BlobStore, store_id: str, kiosk_id: str, code_text: str,
                body: dict[str, Any]) -> tuple[str, int]:
    """Keep one capture; (code, 201 stored | 200 a replay). 410 for a withdrawn code, 409 for a code held under
    another image, 400 for a malformed body (one line)."""
    code = _code(code_text)
    image, facts = _checked(code, body)
    sha256 = hashlib.sha256(image).hexdigest()
    if sha256 != body.get("image_sha256"):
        raise HQError(400, ErrorCode.HASH_MISMATCH, "the image does not hash to image_sha256",
                      {"computed": sha256})
    info = probe(image[:65536])
    if info is None or info.format != "PNG":
        raise HQError(415, ErrorCode.MEDIA_TYPE_NOT_ALLOWED, "a capture is a PNG image")
    with db.read(engine) as conn:
        _refuse_withdrawn(conn, code)
        held = conn.execute(select(capture.c.image_sha256).where(capture.c.code == code)).scalar_one_or_none()
    if held is not None:
        return code, _replay(code, held, sha256)
    _store_image(store, sha256, image)  # the image before the row that names it
    withdrawn = orphan = False
    with db.write(engine) as conn:
        if conn.execute(select(capture_withdrawal.c.code).where(capture_withdrawal.c.code == code)).first():
            # Withdrawn while its image was being stored: the image goes again, and the kiosk hears 410.
            withdrawn, orphan = True, _unreferenced(conn, sha256)
        else:
            held = conn.execute(select(capture.c.image_sha256).where(capture.c.code == code)).scalar_one_or_none()
            if held is not None:
                return code, _replay(code, held, sha256)
            _insert(conn, code, store_id, kiosk_id, sha256, len(image), info.width, info.height, body, facts)
    if withdrawn:
        if orphan:
            store.delete(sha256)
        with db.read(engine) as conn:
            _refuse_withdrawn(conn, code)
    return code, 201


def _insert(conn: Connection, code: str, store_id: str, kiosk_id: str, sha256: str, size: int, width: int,
            height: int, body: dict[str, Any], facts: str) -> None:
    consent = body["consent"]
    conn.execute(capture.insert().values(
        code=code, store_id=store_id, kiosk_id=kiosk_id, image_sha256=sha256, size=size, width=width,
        height=height, taken_at=body["taken_at"], received_at=clock.now_text(), consent_by=consent["by"],
        consent_at=consent["at"], consent_text_version=consent["text_version"],
        model_version=body["model_version"], facts=facts))
    audit.record(conn, f"kiosk:{kiosk_id}", "CAPTURE_RECEIVE", "capture", code, store_id=store_id,
                 consent_by=consent["by"])


def _replay(code: str, held: str, sha256: str) -> int:
    if held != sha256:
        raise HQError(409, ErrorCode.CAPTURE_CONFLICT, f"capture {paths.show_capture_code(code)} is held under"
                                                       " another image")
    return 200


def _refuse_withdrawn(conn: Connection, code: str) -> None:
    if conn.execute(select(capture_withdrawal.c.code).where(capture_withdrawal.c.code == code)).first():
        raise HQError(410, ErrorCode.CAPTURE_WITHDRAWN, f"capture {paths.show_capture_code(code)} was withdrawn;"
                                                        " delete it")


def _code(text: str) -> str:
    try:
        return paths.normalise_capture_code(text)
    except ValueError as exc:
        raise HQError(400, ErrorCode.INVALID_CAPTURE, str(exc)) from None


def _checked(code: str, body: dict[str, Any]) -> tuple[bytes, str]:
    """The image's bytes and the facts as JSON text, or a one-line 400 naming the first wrong field."""
    def bad(message: str) -> HQError:
        return HQError(400, ErrorCode.INVALID_CAPTURE, f"capture: {message}")

    if body.get("nm") != 1:
        raise bad('no "nm": 1')
    if str(body.get("code", "")).replace("-", "").upper() != code:
        raise bad("code differs from the path's")
    consent = body.get("consent")
    if not isinstance(consent, dict) or consent.get("by") not in CONSENTERS:
        raise bad("consent.by must be customer or staff: nothing is kept without a consent record")
    for key, limit in (("at", 24), ("text_version", 40)):
        if not isinstance(consent.get(key), str) or not 0 < len(consent[key]) <= limit:
            raise bad(f"consent.{key} must be a string of 1..{limit} characters")
    for key, limit in (("taken_at", 24), ("model_version", 80)):
        if not isinstance(body.get(key), str) or not 0 < len(body[key]) <= limit:
            raise bad(f"{key} must be a string of 1..{limit} characters")
    encoded = body.get("image_png_b64")
    if not isinstance(encoded, str) or len(encoded) > CAPTURE_IMAGE_MAX_BYTES * 4 // 3 + 4:
        raise HQError(413, ErrorCode.BLOB_TOO_LARGE, f"a capture's image is at most {CAPTURE_IMAGE_MAX_BYTES} bytes")
    try:
        image = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise bad("image_png_b64 is not base64") from None
    facts = body.get("facts", {})
    text = json.dumps(facts, ensure_ascii=False, sort_keys=True) if isinstance(facts, dict) else ""
    if not text or len(text.encode()) > FACTS_MAX_BYTES:
        raise bad(f"facts must be a JSON object of at most {FACTS_MAX_BYTES} bytes")
    return image, text


def _store_image(store: BlobStore, sha256: str, image: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix="nm-hq-capture-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(image)
        store.put_verified(sha256, Path(tmp))
    except OSError as exc:
        if exc.errno == 28:  # ENOSPC
            raise HQError(507, ErrorCode.STORAGE_FULL, "HQ's capture store is full", retry_after=600) from None
        raise
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


# ---- withdrawal and retention -------------------------------------------------------------------------------

def withdraw(engine: Engine, store: BlobStore, code_text: str, actor: str) -> Withdrawal:
    """Delete the capture `code_text` everywhere HQ keeps it (row, datasets, image) and record the withdrawal,
    so a kiosk still holding a copy deletes it. Withdrawing a code HQ never held is recorded too (the capture
    may still be on its way up from a kiosk that was offline)."""
    code = _code(code_text)
    with db.write(engine) as conn:
        before = conn.execute(select(capture_withdrawal).where(capture_withdrawal.c.code == code)).one_or_none()
        if before is not None:
            return Withdrawal(code, bool(before.held), tuple(json.loads(before.datasets)), True)
        sha256, datasets, masks = _delete_rows(conn, [code]).get(code, (None, (), ()))
        conn.execute(capture_withdrawal.insert().values(
            code=code, withdrawn_at=clock.now_text(), actor=actor, held=int(sha256 is not None),
            datasets=json.dumps(list(datasets))))
        audit.record(conn, actor, "CAPTURE_WITHDRAW", "capture", code, held=sha256 is not None,
                     datasets=list(datasets))
        orphans = {sha for sha in (sha256, *masks) if sha is not None and _unreferenced(conn, sha)}
    for sha in sorted(orphans):  # after the commit: a file without a row is garbage, never the reverse
        store.delete(sha)
    return Withdrawal(code, sha256 is not None, datasets, False)


def expire(engine: Engine, store: BlobStore, retention: timedelta) -> list[str]:
    """Delete every capture received longer than `retention` ago (the chain's retention age), used by a training
    or not; the codes deleted."""
    cutoff = clock.now_text(-retention)
    with db.write(engine) as conn:
        codes = list(conn.execute(select(capture.c.code).where(capture.c.received_at < cutoff)).scalars())
        deleted = _delete_rows(conn, codes)
        for code, (_, datasets, _) in deleted.items():
            audit.record(conn, "maintenance", "CAPTURE_EXPIRE", "capture", code, datasets=list(datasets))
        orphans = {sha for image, _, masks in deleted.values() for sha in (image, *masks) if _unreferenced(conn, sha)}
    for sha256 in sorted(orphans):
        store.delete(sha256)
    return codes


def _delete_rows(conn: Connection,
                 codes: list[str]) -> dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """Delete the captures `codes`, their dataset rows and their label versions; code → (image sha256, datasets
    that listed it, its label masks' sha256). Each labels dataset that listed it counts one more member lost."""
    found: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {}
    for code in codes:
        sha256 = conn.execute(select(capture.c.image_sha256).where(capture.c.code == code)).scalar_one_or_none()
        if sha256 is None:
            continue
        datasets = tuple(sorted(conn.execute(select(capture_dataset.c.dataset)
                                             .where(capture_dataset.c.code == code)).scalars()))
        conn.execute(delete(capture_dataset).where(capture_dataset.c.code == code))
        if datasets:
            conn.execute(update(label_dataset).where(label_dataset.c.name.in_(datasets))
                         .values(lost=label_dataset.c.lost + 1))
        masks = tuple(sorted({m for m in conn.execute(select(label_version.c.mask_sha256)
                                                      .where(label_version.c.code == code)).scalars() if m}))
        conn.execute(delete(label_version).where(label_version.c.code == code))
        conn.execute(delete(capture).where(capture.c.code == code))
        found[code] = (sha256, datasets, masks)
    return found


def _unreferenced(conn: Connection, sha256: str) -> bool:
    """No capture image and no label mask is this file (the capture store holds both)."""
    return (conn.execute(select(capture.c.code).where(capture.c.image_sha256 == sha256)).first() is None
            and conn.execute(select(label_version.c.id).where(label_version.c.mask_sha256 == sha256))
            .first() is None)


def add_to_dataset(conn: Connection, dataset: str, code_text: str) -> None:
    """List a capture in a legacy dataset (issue #26's training inputs, without label versions); inside db.write.
    A labels dataset is frozen (datasets.py) and an evaluation capture is never trained on: both refused (409)."""
    from nailmirror_hq import labels  # labels reads captures: imported here, not at the top

    code = _code(code_text)
    found = conn.execute(select(capture.c.store_id, capture.c.taken_at).where(capture.c.code == code)).first()
    if found is None:
        raise not_found(f"capture {code_text}")
    if labels.in_evaluation(found.store_id, labels.capture_day(found.taken_at)):
        raise HQError(409, "evaluation_capture", f"capture {code_text} is in the evaluation set; never trained on")
    frozen = conn.execute(select(label_dataset.c.legacy).where(label_dataset.c.name == dataset)).scalar()
    if frozen == 0:
        raise HQError(409, "dataset_frozen", f"dataset {dataset} is frozen")
    conn.execute(capture_dataset.insert().values(dataset=dataset, code=code, added_at=clock.now_text()))


# ---- reads: each one permitted by can_read_captures and audited -----------------------------------------------

def list_captures(engine: Engine, session: Reader | None, *, limit: int = 200) -> list[CaptureRow]:
    reader = require_reader(session)
    with db.read(engine) as conn:
        rows = [row_of(r) for r in conn.execute(select(capture).order_by(capture.c.received_at.desc())
                                               .limit(limit)).all()]
    _audit_read(engine, reader, "CAPTURE_LIST", "*", count=len(rows))
    return rows


def counts(engine: Engine, session: Reader | None) -> list[dict[str, Any]]:
    """Captures per store and day (of taking), newest day first."""
    reader = require_reader(session)
    day = func.substr(capture.c.taken_at, 1, 10)
    with db.read(engine) as conn:
        rows = conn.execute(select(capture.c.store_id, day.label("day"), func.count().label("n"))
                            .group_by(capture.c.store_id, day).order_by(day.desc(), capture.c.store_id)).all()
        withdrawn = conn.execute(select(func.count()).select_from(capture_withdrawal)).scalar_one()
    _audit_read(engine, reader, "CAPTURE_COUNTS", "*")
    return [{"store_id": r.store_id, "day": r.day, "captures": int(r.n)} for r in rows] + (
        [{"store_id": "", "day": "", "withdrawn": int(withdrawn)}] if withdrawn else [])


def show(engine: Engine, session: Reader | None, code_text: str) -> CaptureRow:
    reader = require_reader(session)
    code = _code(code_text)
    with db.read(engine) as conn:
        row = conn.execute(select(capture).where(capture.c.code == code)).one_or_none()
    if row is None:
        raise not_found(f"capture {code_text}")
    _audit_read(engine, reader, "CAPTURE_SHOW", code)
    return row_of(row)


def read_image(engine: Engine, store: BlobStore, session: Reader | None, code_text: str) -> bytes:
    reader = require_reader(session)
    code = _code(code_text)
    with db.read(engine) as conn:
        sha256 = conn.execute(select(capture.c.image_sha256).where(capture.c.code == code)).scalar_one_or_none()
    if sha256 is None:
        raise not_found(f"capture {code_text}")
    data = b"".join(store.read_chunks(sha256))
    _audit_read(engine, reader, "CAPTURE_IMAGE", code)
    return data


def _audit_read(engine: Engine, reader: Reader, action: str, entity_id: str, **detail: Any) -> None:
    with db.write(engine) as conn:
        audit.record(conn, reader.reviewer, action, "capture", entity_id, **detail)


def row_of(row: Any) -> CaptureRow:
    return CaptureRow(row.code, row.store_id, row.kiosk_id, row.image_sha256, int(row.size), int(row.width),
                      int(row.height), row.taken_at, row.received_at, row.consent_by, row.consent_at,
                      row.consent_text_version, row.model_version, json.loads(row.facts))
